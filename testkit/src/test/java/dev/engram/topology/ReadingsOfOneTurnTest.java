package dev.engram.topology;

import static dev.engram.topology.FedCandidates.episodic;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryType;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * One message read by two extractors (the LLM path with {@code llm.extraction.episodes}: the LLM's fact and the
 * offline extractor's episode of the same turn), on TopologyTestDriver with real embeddings: the turn as said stays a
 * memory of its own beside the paraphrase, which kept only part of it; a redelivered turn is still a duplicate.
 */
class ReadingsOfOneTurnTest {

    private static final String MELANIE = "t1/u-melanie";
    private static final Instant T0 = Instant.parse("2025-01-01T09:00:00Z");
    private static final String PARAPHRASE = "Melanie's family has been supportive and loving during tough times.";
    private static final String TURN = "Yeah, my family's been great - their love and support really helped me "
        + "through tough times. We enjoyed camping in the forest last summer.";

    private static MemoryCandidate llmFact() {
        return MemoryCandidate.newBuilder(episodic(MELANIE, "c-1", T0.toString(), PARAPHRASE))
            .setType(MemoryType.SEMANTIC).setImportance(0.7).setExtractor("llm+episodes").build();
    }

    @Test
    void shouldKeepTheTurnAsSaidWhenAnotherExtractorsFactCitesTheSameMessage() {
        try (PipelineHarness driver = new PipelineHarness()) {
            final MemoryCandidate fact = llmFact();
            final MemoryCandidate turn = episodic(MELANIE, "c-1", T0.toString(), TURN);
            driver.pipe(fact, turn);

            assertThat(driver.consolidator().active(MELANIE)).extracting(Memory::getContent)
                .as("the paraphrase leaves the camping out: the turn keeps it")
                .containsExactlyInAnyOrder(PARAPHRASE, TURN);
            assertThat(driver.consolidator().memory(MELANIE, fact.getCandidateId()).getReinforcementCount())
                .as("another reading of the same message is no confirmation").isEqualTo(1);
        }
    }

    @Test
    void shouldStillDropARedeliveredTurnWhenItsMemoryExists() {
        try (PipelineHarness driver = new PipelineHarness()) {
            final MemoryCandidate turn = episodic(MELANIE, "c-1", T0.toString(), TURN);
            driver.pipe(llmFact(), turn, turn);

            assertThat(driver.consolidator().active(MELANIE)).hasSize(2);
            assertThat(driver.consolidator().memory(MELANIE, turn.getCandidateId()).getReinforcementCount()).isEqualTo(1);
        }
    }
}
