package dev.engram.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;

import dev.engram.avro.Memory;
import dev.engram.avro.SourceRef;
import org.junit.jupiter.api.Test;

/** Deterministic ids: the same input gives the same id on every replay, different inputs different ids. */
class MemoryIdsTest {

    private static final java.time.Instant T0 = java.time.Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void shouldGiveTheSameCandidateIdWhenOnlyCaseSpacingOrTrailingPunctuationDiffer() {
        final String id = MemoryIds.candidateId("acme", "alice", "c1", "I live in  Berlin.");

        assertThat(MemoryIds.candidateId("acme", "alice", "c1", "i live in berlin")).isEqualTo(id);
        assertThat(MemoryIds.candidateId("acme", "alice", "c1", "ｉ live in Berlin!!")).as("NFKC folds full-width")
            .isEqualTo(id);
        assertThat(UUID.fromString(id).version()).isEqualTo(3);
    }

    @Test
    void shouldGiveDifferentIdsWhenAnyPartDiffersEvenIfTheJoinedTextIsTheSame() {
        final String id = MemoryIds.candidateId("acme", "alice", "c1", "x");

        assertThat(MemoryIds.candidateId("acme", "bob", "c1", "x")).isNotEqualTo(id);
        assertThat(MemoryIds.candidateId("acme", "alice", "c2", "x")).isNotEqualTo(id);
        assertThat(MemoryIds.uuid("ab", "c")).as("parts are NUL-separated").isNotEqualTo(MemoryIds.uuid("a", "bc"));
        assertThat(MemoryIds.eventId("m", "CREATED", "candidate:1"))
            .isEqualTo(MemoryIds.eventId("m", "CREATED", "candidate:1"))
            .isNotEqualTo(MemoryIds.eventId("m", "REINFORCED", "candidate:1"));
    }

    @Test
    void shouldNormalizeNullToEmptyAndKeepInnerPunctuation() {
        assertThat(MemoryIds.normalize(null)).isEmpty();
        assertThat(MemoryIds.normalize("  Dr. Who's   TARDIS?! ")).isEqualTo("dr. who's tardis");
    }

    @Test
    void shouldNameEveryCitedMessageOnceWhenSourcesOverlap() {
        final Memory memory = Memory.newBuilder(TestMemories.memory())
            .setSources(List.of(new SourceRef("c1", List.of(0, 2), T0), new SourceRef("c1", List.of(2), T0),
                new SourceRef("c2", List.of(0), T0))).build();

        assertThat(MemoryIds.citedMessages(memory)).containsExactlyInAnyOrder("c1#0", "c1#2", "c2#0");
    }

    @Test
    void shouldFoldAwayLetterCaseAndAccentsWhenComparingValues() {
        assertThat(MemoryIds.fold("São Paulo")).isEqualTo("sao paulo");
        assertThat(MemoryIds.fold("SÃO PAULO.")).isEqualTo("sao paulo");
        assertThat(MemoryIds.fold("Zu\u0308rich")).isEqualTo(MemoryIds.fold("Z\u00fcrich")).isEqualTo("zurich");
        assertThat(MemoryIds.fold(null)).isEmpty();
        assertThat(MemoryIds.withoutAccents("Zürich Ærø")).as("case kept, letters that are not accented kept")
            .isEqualTo("Zurich Ærø");
        assertThat(MemoryIds.withoutAccents("北京")).isEqualTo("北京");
    }
}
