package dev.engram.topology;

import static dev.engram.topology.FedCandidates.fact;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.MemoryCandidate;
import dev.engram.testing.PipelineHarness;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * Case 18 ({@code ../shared/cases/case-18.md}), the part the offline stack can run: a deployment switched to
 * another embedding model without {@code reembed} never writes a candidate of the new model beside the stored
 * vectors of the old one, nor compares the two: the candidate is dead-lettered with both model names. The
 * rest of the case (after {@code reembed} and the switch every memory is found with the new model, retrieval
 * answering throughout) needs the broker, the real models and the ops command: {@code ReembedIT}.
 */
class EmbeddingModelCasesTest {

    private static final String MIRA = "t1/u-mira";

    @Test
    void shouldDeadLetterACandidateOfAnotherEmbeddingModelNamingBothWhenTheUserHasStoredVectors_case18() {
        final MemoryCandidate kotlin = fact(MIRA, "c-1", "2025-02-03T09:12:00Z", "preferred_language", "Kotlin",
            "I write Kotlin.");
        final MemoryCandidate city = fact(MIRA, "c-2", "2025-02-04T09:12:00Z", "city", "Porto", "I live in Porto.");
        final MemoryCandidate otherModel = MemoryCandidate.newBuilder(city).setEmbeddingModel("all-minilm-l6-v2-q").build();
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(kotlin);
            driver.pipe(otherModel);
            final List<TestRecord<String, byte[]>> dead = driver.deadLetters();
            assertThat(dead).singleElement().satisfies(r -> assertThat(ConsolidationTopologyTest.header(r, "__streams.errors.message"))
                .contains("embedded with all-minilm-l6-v2-q", "stored vectors of this user are " + kotlin.getEmbeddingModel(),
                    "reembed --model all-minilm-l6-v2-q"));
            assertThat(driver.consolidator().active(MIRA)).extracting(m -> m.getKey()).containsExactly("preferred_language");
            // Another user without stored vectors takes the other model; the same model is accepted.
            driver.pipe("t1/u-new", MemoryCandidate.newBuilder(otherModel).setTenantId("t1").setUserId("u-new")
                .setCandidateId("cand-new").build(), Instant.parse("2025-02-04T09:12:00Z"));
            driver.pipe(city);
            assertThat(driver.deadLetters()).hasSize(1);
            assertThat(driver.consolidator().active(MIRA)).hasSize(2);
        }
    }
}
