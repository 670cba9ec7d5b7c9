package dev.engram.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoSummaryTest {

    @TempDir
    Path dir;

    @Test
    void shouldWriteExactlyTheAgreedKeysWhenWritingTheSummaryFile() throws Exception {
        final DemoSummary summary = new DemoSummary(374, 3916, 3612, 4, 1, 12, 30, 5, 1, 0, 25.3);
        final Path file = dir.resolve("nested/s.json");

        summary.write(file);

        final JsonNode json = new ObjectMapper().readTree(Files.readString(file));
        assertThat(json.fieldNames()).toIterable().containsExactly("conversations", "candidates", "memoriesCreated",
            "memoriesReinforced", "memoriesSuperseded", "memoriesMerged", "memoriesArchived", "memoriesExpired",
            "contradictions", "deadLetters", "elapsedSeconds");
        assertThat(json.get("conversations").asLong()).isEqualTo(374);
        assertThat(json.get("elapsedSeconds").asDouble()).isEqualTo(25.3);
        assertThat(DemoSummary.read(file)).isEqualTo(summary);
    }

    @Test
    void shouldNotPrintAnEmptyReasonListWhenEveryConversationGaveSomethingToRemember() {
        final DemoSummary summary = new DemoSummary(25, 60, 40, 4, 1, 0, 0, 0, 1, 2, 9.5).with(DemoSummary.Outcomes.of(27,
            java.util.Map.of("remembered", 25L, "dead_lettered:validation", 2L)));

        assertThat(summary.toText()).contains("conversations in     27 = remembered 25 + nothing to remember 0 + dead-lettered 2")
            .doesNotContain("{}");
    }

    @Test
    void shouldSayWhatBecameOfEveryConversationWhenTheOutcomesAreKnown() throws Exception {
        final DemoSummary summary = new DemoSummary(25, 60, 40, 4, 1, 0, 0, 0, 1, 2, 9.5).with(DemoSummary.Outcomes.of(27,
            java.util.Map.of("remembered", 20L, "nothing_to_remember:no_words", 1L, "nothing_to_remember:nothing_extracted", 4L,
                "dead_lettered:validation", 2L)));
        final Path file = dir.resolve("s.json");

        summary.write(file);

        assertThat(summary.conversationOutcomes().unaccounted()).isZero();
        assertThat(summary.toText()).contains("conversations in     27 = remembered 20 + nothing to remember 5 "
            + "{no_words=1, nothing_extracted=4} + dead-lettered 2");
        final JsonNode outcomes = new ObjectMapper().readTree(Files.readString(file)).get("conversationOutcomes");
        assertThat(outcomes.get("in").asLong()).isEqualTo(27);
        assertThat(outcomes.get("nothingToRememberReasons").get("no_words").asLong()).isEqualTo(1);
        assertThat(DemoSummary.read(file)).isEqualTo(summary);
    }

    @Test
    void shouldCountSupersededMemoriesAmongTheArchivedWhenPrintingTheSummary() {
        // 4 superseded (ARCHIVED, reason SUPERSEDED) and 7 archived by the lifecycle, 2 of them expired
        final DemoSummary summary = new DemoSummary(25, 60, 40, 3, 4, 1, 7, 2, 1, 0, 9.5);

        assertThat(summary.toText()).contains("memories superseded  4 (ARCHIVED: a newer value replaced them)")
            .contains("memories archived    11 = superseded 4 + by the lifecycle 7 (stale, expired 2, merged, negated)");
    }

    @Test
    void shouldGiveEachLifecycleReasonItsCountWhenTheReasonsAreCounted() throws Exception {
        // the README trial's line named a number for expired only: "by the lifecycle 545 (stale, expired 2, merged, negated)"
        final DemoSummary summary = new DemoSummary(25, 60, 40, 3, 4, 1, 545, 2, 1, 0, 9.5)
            .withArchiveReasons(java.util.Map.of("STALE", 500L, "EXPIRED", 2L, "MERGED", 43L));
        final Path file = dir.resolve("reasons.json");

        summary.write(file);

        assertThat(summary.toText()).contains("by the lifecycle 545 (stale 500, expired 2, merged 43, negated 0)");
        final JsonNode reasons = new ObjectMapper().readTree(Files.readString(file)).get("memoriesArchivedByReason");
        assertThat(reasons.get("STALE").asLong()).isEqualTo(500);
        assertThat(reasons.get("NEGATED").asLong()).isZero();
        assertThat(DemoSummary.read(file)).isEqualTo(summary);
    }
}
