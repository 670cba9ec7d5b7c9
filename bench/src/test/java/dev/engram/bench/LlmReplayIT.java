package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.SourceRef;
import org.junit.jupiter.api.Test;

/**
 * The LLM path end to end on the embedded stack (in-process broker, extractor with the LLM extractor,
 * consolidator with the LLM judge and merger, all over HTTP to {@link LoCoMoReplay}), on the invented
 * LoCoMo-format conversation {@code bench/replay-mini.json}: a paraphrase in the same session is no
 * new memory, one in a later session reinforces, "moved to Lisbon" supersedes "lives in Berlin", and
 * the figures count it.
 */
class LlmReplayIT {

    @Test
    void shouldReinforceParaphrasesAndSupersedeAMoveWhenReplayedThroughTheLlmPath() throws Exception {
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        final LlmReplaySource.Result result = new LlmReplaySource(0.15, 0.60, false, // the LLM's memories only, so every memory is a replayed one
            new PrintStream(log, true, StandardCharsets.UTF_8)).run(LoCoMoReplayTest.fixture(), "llm-replay-it");
        final List<Memory> mira = result.memories().get("mini-1:Mira");
        final Map<String, Object> f = result.figures();

        final Memory berlin = only(mira, "Mira lives in Berlin.");
        final Memory lisbon = only(mira, "Mira moved to Lisbon for a new job at a design studio.");
        assertThat(berlin.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
        assertThat(berlin.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
        assertThat(berlin.getSupersededBy()).isEqualTo(lisbon.getMemoryId());
        assertThat(lisbon.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
        assertThat(lisbon.getKey()).isEqualTo("city");
        assertThat(lisbon.getValue()).isEqualTo("Lisbon");

        // "adopted a beagle puppy named / called Biscuit" (session 1, twice) and "has a beagle puppy named
        // Biscuit" (session 2): one memory, evidence from both sessions
        assertThat(mira).noneMatch(m -> m.getContent().equals("Mira adopted a beagle puppy called Biscuit.")
            && m.getStatus() == MemoryStatus.ACTIVE);
        assertThat(mira).noneMatch(m -> m.getContent().equals("Mira has a beagle puppy named Biscuit.")
            && m.getStatus() == MemoryStatus.ACTIVE);
        final Memory biscuit = mira.stream().filter(m -> m.getStatus() == MemoryStatus.ACTIVE
            && m.getContent().contains("adopted a beagle puppy named Biscuit")).findFirst().orElseThrow();
        assertThat(biscuit.getSources()).extracting(SourceRef::getConversationId)
            .contains("mini-1:session_1", "mini-1:session_2");

        assertThat(f.get("conversations")).isEqualTo(4L);
        // the Berlin fact, and any memory that still states Berlin as current (marked outdated by the move), are
        // superseded by the Lisbon fact, and nothing else is
        final List<Memory> supersededByMove = mira.stream().filter(m -> m.getSupersededBy() != null).toList();
        assertThat(supersededByMove).contains(berlin).allSatisfy(m -> {
            assertThat(m.getSupersededBy()).isEqualTo(lisbon.getMemoryId());
            assertThat(m.getContent()).contains("Berlin");
        });
        assertThat((Long) f.get("superseded")).isEqualTo((long) supersededByMove.size());
        assertThat((Long) f.get("reinforced")).isPositive();
        assertThat((Long) f.get("candidates")).isGreaterThan((Long) f.get("created"));
        assertThat(f.get("deadLetters")).isEqualTo(0L);
        assertThat(f.get("requestsWithoutRecording")).isEqualTo(0L);
        assertThat((Long) f.get("promptTokens")).isPositive();
        assertThat((Double) f.get("costPer1kConversations")).isPositive();
        assertThat(((Map<?, ?>) f.get("sample")).get("superseded").toString()).contains("Lisbon");
    }

    private static Memory only(final List<Memory> memories, final String content) {
        final List<Memory> found = memories.stream().filter(m -> m.getContent().equals(content)).toList();
        assertThat(found).as(content).hasSize(1);
        return found.get(0);
    }
}
