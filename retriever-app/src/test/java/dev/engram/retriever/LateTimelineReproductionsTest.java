package dev.engram.retriever;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * A fresh user's trial (session 15, F20) on the real pipeline (rule-based extractor, default embedding model,
 * consolidator, retriever read model): conversations uploaded late, dated between two moves, must take their place in
 * the city's history as a replay in time order would put them — a restatement of the value then in force is evidence
 * for that memory, not a second one; another value ends the one in force at its own time and is itself ended by the
 * next move; a value said before every known one is valid until the first of them.
 */
class LateTimelineReproductionsTest {

    private static final String T = "t1";

    private static String day(final int dayOfNovember) {
        return Instant.parse("2026-11-01T10:00:00Z").plusSeconds(86_400L * (dayOfNovember - 1)).toString();
    }

    private static List<Memory> cityHistory(final PipelineHarness pipeline, final String user) {
        return pipeline.retriever().memories(T + "/" + user).stream().filter(m -> "city".equals(m.getKey())).toList();
    }

    private static Memory only(final List<Memory> memories, final String value) {
        final List<Memory> of = memories.stream().filter(m -> value.equals(m.getValue())).toList();
        assertThat(of).as("one memory of %s among %s", value, memories).hasSize(1);
        return of.get(0);
    }

    @Test
    void shouldPlaceLateStatementsBetweenTwoMovesAsTimeOrderWould() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "late", "a", user("I live in Ghent.", day(1))));
            pipeline.publish(conversation(T, "late", "b", user("I moved to Bruges.", day(10))));
            pipeline.publish(conversation(T, "late", "c", user("I live in Ghent, love the canals here.", day(5))));
            pipeline.publish(conversation(T, "late", "d", user("I live in Antwerp.", day(6))));

            final List<Memory> history = cityHistory(pipeline, "late");
            final Memory bruges = only(history, "Bruges");
            final Memory ghent = only(history, "Ghent");
            final Memory antwerp = only(history, "Antwerp");
            assertThat(bruges.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
            assertThat(ghent.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(ghent.getValidFrom()).isEqualTo(Instant.parse(day(1)));
            assertThat(ghent.getValidTo()).as("ended by the late move to Antwerp").isEqualTo(Instant.parse(day(6)));
            assertThat(ghent.getSupersededBy()).isEqualTo(antwerp.getMemoryId());
            assertThat(ghent.getReinforcementCount()).as("the late restatement is its evidence").isEqualTo(2);
            assertThat(antwerp.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(antwerp.getValidFrom()).isEqualTo(Instant.parse(day(6)));
            assertThat(antwerp.getValidTo()).isEqualTo(Instant.parse(day(10)));
            assertThat(antwerp.getSupersededBy()).isEqualTo(bruges.getMemoryId());
        }
    }

    @Test
    void shouldEndALateValueSaidBeforeEveryKnownOneWhenTheFirstOfThemBegan() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "first", "a", user("I live in Ghent.", day(5))));
            pipeline.publish(conversation(T, "first", "b", user("I moved to Bruges.", day(10))));
            pipeline.publish(conversation(T, "first", "c", user("I live in Paris.", day(1))));

            final List<Memory> history = cityHistory(pipeline, "first");
            final Memory paris = only(history, "Paris");
            assertThat(paris.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(paris.getValidTo()).as("until Ghent began, not until Bruges").isEqualTo(Instant.parse(day(5)));
            assertThat(only(history, "Ghent").getValidTo()).isEqualTo(Instant.parse(day(10)));
            assertThat(only(history, "Bruges").getStatus()).isEqualTo(MemoryStatus.ACTIVE);
        }
    }
}
