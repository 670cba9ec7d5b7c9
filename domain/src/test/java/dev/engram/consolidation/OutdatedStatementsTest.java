package dev.engram.consolidation;

import static dev.engram.consolidation.TopicListsTest.statement;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What observations and topic lists state of an outdated episode ({@link Observations#statementOf}): the part still
 * current, never the old value; and a mark that takes a clause back regroups the user at once
 * ({@link Observations#reorders}).
 */
class OutdatedStatementsTest {

    private static final Instant CHANGE = Instant.parse("2025-06-01T09:00:00Z");

    @BeforeAll
    static void trustRecords() {
        dev.engram.serde.AvroSerdes.trustGeneratedRecords();
    }

    @Test
    void shouldStateOnlyTheClausesStillCurrentOfAnOutdatedEpisodeAndRegroupWhenAMarkTakesOneBack() {
        final Memory lisbon = statement("f1", "city", "Lisbon", "City", "Lives in Lisbon", "c-1", 0);
        final Memory week = statement("e1", null, null, null,
            "Big week: I moved to Lisbon, I work at Hooli now; it is sunny there.", "c-2", 1);
        assertThat(Observations.statementOf(week)).as("current: stated whole").isSameAs(week);

        final Consolidator.Change moved = Outdated.mark(lisbon, "Porto", "f2", null, CHANGE, List.of(lisbon, week),
            "candidate:x").get(0);

        final Memory part = Observations.statementOf(moved.after());
        assertThat(part.getContent()).isEqualTo("I work at Hooli now.");
        assertThat(part.getMemoryId()).isEqualTo("e1");
        assertThat(part.getEmbedding()).isEqualTo(week.getEmbedding());
        assertThat(Observations.isStatement(moved.after())).isTrue();
        assertThat(Observations.reorders(moved)).as("the move takes Lisbon back: regrouped at once").isTrue();

        final Memory employer = statement("f3", "employer", "Hooli", "Employer", "Works at Hooli", "c-2", 1);
        final Consolidator.Change left = Outdated.mark(employer, "Initech", "f4", null, CHANGE.plusSeconds(86_400),
            List.of(employer, moved.after()), "candidate:y").get(0);

        assertThat(Observations.statementOf(left.after())).as("nothing of it current any more").isNull();
        assertThat(Observations.reorders(left)).as("a second mark takes Hooli back: regrouped at once").isTrue();
    }

    @Test
    void shouldKeepNoRelativeClauseOfTheOutdatedValueAsCurrent() {
        final Memory graz = statement("f1", "city", "Graz", "City", "Lives in Graz", "c-1", 0);
        final Memory greetings = statement("e1", null, null, null, "Greetings from Graz, where I live.", "c-2", 1);
        final Memory more = statement("e2", null, null, null, "Greetings from Graz, where I live, I love hiking.", "c-3", 2);

        final List<Consolidator.Change> moved = Outdated.mark(graz, "Vienna", "f2", null, CHANGE,
            List.of(graz, greetings, more), "candidate:x");

        assertThat(moved).filteredOn(c -> c.after().getMemoryId().equals("e1")).singleElement()
            .satisfies(c -> assertThat(OutdatedPart.currentPart(c.after())).as("\"where I live.\" says nothing alone").isNull());
        assertThat(moved).filteredOn(c -> c.after().getMemoryId().equals("e2")).singleElement()
            .satisfies(c -> assertThat(OutdatedPart.currentPart(c.after())).isEqualTo("I love hiking."));
    }

    @Test
    void shouldStateNothingOfAnEpisodeOutdatedWhole() {
        final Memory whole = Memory.newBuilder(statement("e1", null, null, null, "I live in Lisbon and cycle to work.",
            "c-1", 0)).setValidTo(CHANGE).setSupersededBy("f2").setOutdatedValues(List.of("Lisbon")).build();
        final Memory unmarked = Memory.newBuilder(whole).setOutdatedValues(List.of()).build();

        assertThat(Observations.statementOf(whole)).as("one clause, naming the old city").isNull();
        assertThat(Observations.statementOf(unmarked)).as("a mark without values: past whole").isNull();
    }
}
