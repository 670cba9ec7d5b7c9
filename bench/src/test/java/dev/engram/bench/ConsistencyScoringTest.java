package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.engram.bench.ConsistencyHistories.History;
import org.junit.jupiter.api.Test;

class ConsistencyScoringTest {

    private static final String BLOCK = String.join("\n",
        "Known facts about the user:",
        "## PERSONAL",
        "- Lives in Braga",
        "Relevant past conversations:",
        "## 2024-02-18",
        "- I moved from Porto to Braga last week.",
        "- My sister lives in Lisbon.",
        "Earlier, no longer current:",
        "- I live in Lisbon and love it (2024-01-08 until 2024-01-31)", "");

    @Test
    void shouldFindTheCurrentValueOnWordBoundariesOnly() {
        assertThat(ConsistencyScoring.holds(BLOCK, List.of("Braga"))).isTrue();
        assertThat(ConsistencyScoring.holds("- Works at Bragança Labs", List.of("Braga"))).isFalse();
        assertThat(ConsistencyScoring.holds("- 我住在上海。", List.of("上海"))).isTrue();
    }

    @Test
    void shouldCountACurrentValueOnlyOnALineNotToldAsPast() {
        final String past = "Earlier, no longer current:\n"
            + "- User: I love sushi, any good places in Lisbon? (2024-01-06 until 2024-01-21)\n";
        assertThat(ConsistencyScoring.holds(past, List.of("sushi"))).isTrue();
        assertThat(ConsistencyScoring.holdsAsCurrent(past, List.of("sushi"))).isFalse();
        assertThat(ConsistencyScoring.holdsAsCurrent("Relevant past conversations:\n## 2024-01-06\n- I love sushi.\n"
            + past, List.of("sushi"))).isTrue();
        assertThat(ConsistencyScoring.holdsAsCurrent(BLOCK, List.of("Braga"))).isTrue();
        assertThat(ConsistencyScoring.holdsAsCurrent("- I love it (2024-01-08 until 2024-01-31)\n", List.of("love")))
            .as("a line marked with the time it held").isFalse();
    }

    @Test
    void shouldNotCountAValueToldAsPastAChangeOrSomeoneElsesAsStale() {
        assertThat(ConsistencyScoring.staleLine(BLOCK, List.of("Lisbon", "Porto"), List.of("Braga"))).isNull();
    }

    @Test
    void shouldCountAnOutdatedValueStatedAsCurrent() {
        final String block = BLOCK + "Relevant past conversations:\n- I live in Porto, near the river.\n";
        assertThat(ConsistencyScoring.staleLine(block, List.of("Lisbon", "Porto"), List.of("Braga")))
            .isEqualTo("- I live in Porto, near the river.");
        assertThat(ConsistencyScoring.sectionOf(block, "- Lives in Braga")).isEqualTo("Known facts about the user:");
        assertThat(ConsistencyScoring.staleLine("- Biscuit died last night. — Assistant: I'm so sorry about Biscuit.\n",
            List.of("Biscuit"), List.of("Pixel"))).as("the line tells the end").isNull();
        assertThat(ConsistencyScoring.staleLine("- I quit Initech last week. I work at Hooli now.\n",
            List.of("Initech", "Hooli"), List.of("Pied Piper"))).isNotNull();
    }

    @Test
    void shouldShipHistoriesWithQuestionsAndAChurnOfFiftyDays() throws Exception {
        final List<History> histories = ConsistencyHistories.load(null);
        assertThat(histories.stream().filter(h -> !h.churn())).hasSizeGreaterThanOrEqualTo(20)
            .allSatisfy(h -> assertThat(h.questions()).isNotEmpty());
        final History churn = histories.stream().filter(History::churn).findFirst().orElseThrow();
        assertThat(churn.events()).hasSize(500);
        assertThat(churn.questions()).hasSize(10);
        assertThat(histories.stream().flatMap(h -> h.events().stream()).filter(ConsistencyHistories.Event::isCommand))
            .extracting(ConsistencyHistories.Event::command).contains("correct", "delete");
    }
}
