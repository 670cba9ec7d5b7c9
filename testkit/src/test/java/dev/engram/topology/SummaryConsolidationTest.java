package dev.engram.topology;

import static dev.engram.topology.FedCandidates.episodic;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.domain.DomainConfig;
import dev.engram.port.ExtractedMemory;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * Conversation summaries (the LLM extractor's episodic summary, {@link ExtractedMemory#isSummary}) on
 * TopologyTestDriver with real MiniLM embeddings: two sessions' summaries read alike, yet each stays a
 * memory of its own — never reinforced, judged or merged — while the same texts as plain episodes
 * fold into one.
 */
class SummaryConsolidationTest {

    private static final String MIRA = "t1/u-mira";
    private static final Instant T0 = Instant.parse("2025-01-01T09:00:00Z");
    // no numbers or dates: statements naming different identifiers are never folded (Facts.sameIdentifiers)
    private static final String FIRST = "Mira and Tom caught up in the afternoon. Mira talked about her new beagle "
        + "puppy and Tom about his violin lessons. They agreed to meet again soon.";
    private static final String SECOND = "Mira and Tom caught up in the evening. Mira talked about her beagle puppy "
        + "and Tom about his violin lessons. They agreed to meet again soon.";

    private static MemoryCandidate summary(final String conversation, final Instant at, final String text) {
        return MemoryCandidate.newBuilder(episodic(MIRA, conversation, at.toString(), text))
            .setDisplayName(ExtractedMemory.SUMMARY_DISPLAY_NAME).build();
    }

    @Test
    void shouldKeepEverySessionSummaryWhenTheyReadAlikeButFoldTheSameTextsAsPlainEpisodes() {
        assertThat(FedCandidates.cosine(FIRST, SECOND)).as("alike enough to reinforce or merge").isGreaterThan(0.9);
        try (PipelineHarness driver = new PipelineHarness()) {
            final MemoryCandidate a = summary("c-1", T0, FIRST);
            final MemoryCandidate b = summary("c-2", T0.plus(Duration.ofDays(50)), SECOND);
            driver.pipe(a, b);
            driver.advanceTo(T0.plus(Duration.ofDays(53)));

            assertThat(driver.consolidator().active(MIRA)).extracting(Memory::getMemoryId)
                .containsExactlyInAnyOrder(a.getCandidateId(), b.getCandidateId());
            assertThat(driver.consolidator().active(MIRA)).allSatisfy(m -> assertThat(m.getReinforcementCount()).isEqualTo(1));
            assertThat(driver.operations()).extracting(kv -> kv.value).containsOnly("CREATED");
        }
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(episodic(MIRA, "c-1", T0.toString(), FIRST),
                episodic(MIRA, "c-2", T0.plus(Duration.ofDays(50)).toString(), SECOND));

            assertThat(driver.consolidator().active(MIRA)).hasSize(1);
            assertThat(driver.consolidator().active(MIRA).get(0).getReinforcementCount()).isEqualTo(2);
        }
    }

    @Test
    void shouldNotReinforceASummaryWhenAnEpisodeRepeatsIt() {
        try (PipelineHarness driver = new PipelineHarness(Map.of(DomainConfig.JUDGE_THRESHOLD, 0.0))) {
            final MemoryCandidate a = summary("c-1", T0, FIRST);
            final MemoryCandidate again = episodic(MIRA, "c-2", T0.plusSeconds(3600).toString(), FIRST);
            driver.pipe(a, again);

            assertThat(driver.consolidator().memory(MIRA, a.getCandidateId()).getReinforcementCount()).isEqualTo(1);
            assertThat(driver.consolidator().memory(MIRA, again.getCandidateId()).getStatus()).isEqualTo(MemoryStatus.ACTIVE);
        }
    }
}
