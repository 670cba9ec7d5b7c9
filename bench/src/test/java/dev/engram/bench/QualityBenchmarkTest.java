package dev.engram.bench;

import static dev.engram.testing.MemoryFixtures.memory;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.Memory;
import dev.engram.avro.SourceRef;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.scoring.ScoredMemory;
import org.junit.jupiter.api.Test;

class QualityBenchmarkTest {

    private static final Instant T0 = Instant.parse("2023-05-08T13:56:00Z");

    static Path mini() throws URISyntaxException {
        return Path.of(QualityBenchmarkTest.class.getResource("/bench/qa-format-mini.json").toURI());
    }

    private static Memory turn(final String user, final String id, final String content, final int session, final int index) {
        return memory("locomo", user, id, content, T0.plusSeconds(86_400L * session))
            .setSources(List.of(SourceRef.newBuilder().setConversationId("conv-x:session_" + session)
                .setMessageIndexes(List.of(index)).setObservedAt(T0).build())).build();
    }

    @Test
    void shouldNormalizeEvidenceAndPickTheNamedSpeakerWhenReadingLoCoMo() throws Exception {
        final LoCoMoQa.Sample sample = LoCoMoQa.read(mini()).get(0);

        // category 5 dropped; "D" alone leaves no evidence, so the category-3 question is not scored
        assertThat(sample.questions()).extracting(LoCoMoQa.Question::category).containsExactly(4, 2, 1);
        assertThat(sample.questions().get(1).evidence()).containsExactlyInAnyOrder("D1:2"); // "D2:05" is past the end
        assertThat(sample.questions().get(0).speakers()).containsExactly("Ines");
        assertThat(sample.questions().get(1).speakers()).containsExactly("Tomas");
        assertThat(sample.questions().get(2).speakers()).containsExactly("Ines", "Tomas");
        assertThat(sample.diaId(1, 2)).isEqualTo("D1:3");
        assertThat(sample.turns().get(2).text()).endsWith(" [image: a photo of a pamphlet]");
        assertThat(LoCoMoQa.normalizeEvidence("D8:6; D9:17")).containsExactly("D8:6", "D9:17");
        assertThat(LoCoMoQa.normalizeEvidence("(D9:1 D4:4 D4:06)")).containsExactly("D9:1", "D4:4", "D4:6");
        assertThat(LoCoMoQa.normalizeEvidence("D:11:26")).containsExactly("D11:26");
        assertThat(LoCoMoQa.normalizeEvidence("D")).isEmpty();
    }

    @Test
    void shouldWriteEngramAndTheThreeBaselinesInTheAgreedShapeWhenEvaluated() throws Exception {
        final List<LoCoMoQa.Sample> samples = LoCoMoQa.read(mini());
        final Map<String, List<Memory>> memories = Map.of(
            "conv-x:Ines", List.of(
                turn("conv-x:Ines", "c1", "Joined a rowing club on the river yesterday and loved it.", 1, 0),
                turn("conv-x:Ines", "c3", "Comparing night schools to study architecture.", 1, 2),
                turn("conv-x:Ines", "c5", "Gave a talk about bridges at the library on Friday.", 2, 1)),
            "conv-x:Tomas", List.of(
                turn("conv-x:Tomas", "m2", "Built a birdhouse for the garden last week.", 1, 1),
                turn("conv-x:Tomas", "m4", "Went fishing with my brother at the lake last weekend.", 2, 0)));

        final Map<String, Object> figures = LoCoMoRecall.evaluate(samples, memories, ScriptRoutedEmbedder.defaults(),
            EngramConfig.defaults());
        final JsonNode json = new ObjectMapper().readTree(BenchReport.toJson(figures));

        assertThat(json.fieldNames()).toIterable()
            .containsExactly("engram", "baselineRawTurns", "baselineBm25", "baselineRrf");
        for (final JsonNode system : json) {
            for (final String k : List.of("recall@1", "recall@5", "recall@10", "recall@25")) {
                assertThat(system.path(k).isNumber()).as(k).isTrue();
                assertThat(system.path(k).asDouble()).isBetween(0.0, 1.0);
            }
            assertThat(system.path("recallAtTokens").fieldNames()).toIterable().containsExactly("256", "512", "1024", "2048");
            assertThat(system.path("meanSourceTurnsAtK").fieldNames()).toIterable().containsExactly("1", "5", "10", "25");
            assertThat(system.path("meanTokensAtK").fieldNames()).toIterable().containsExactly("1", "5", "10", "25");
            assertThat(system.path("questions").asInt()).isEqualTo(3);
            assertThat(system.path("byCategory").fieldNames()).toIterable().containsExactly("1", "2", "4");
            assertThat(system.path("byCategory").path("4").path("recall@10").isNumber()).isTrue();
            assertThat(system.path("byCategory").path("4").path("recallAtTokens").path("256").isNumber()).isTrue();
        }
        // the night-school question: Engram's top memory of Ines cites D1:3
        assertThat(json.path("engram").path("byCategory").path("4").path("recall@1").asDouble()).isEqualTo(1.0);
        assertThat(json.path("baselineRrf").path("recall@25").asDouble()).isEqualTo(1.0);

        // --llm replay adds an "llm" block (no per-category figures): the tables still print, with it at the end
        // (the tables' category loop read every block's byCategory and stopped the run before its JSON was written)
        final Map<String, Object> withLlm = new java.util.LinkedHashMap<>(figures);
        withLlm.put("llm", Map.of("stores", "LLM facts and summaries", "costPer1kConversations", 0.66));
        final java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        RecallTables.print(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8), withLlm,
            "LoCoMo evidence recall", Map.of());
        assertThat(printed.toString(java.nio.charset.StandardCharsets.UTF_8))
            .contains("engram (n=3)", "Category 4:", "LLM path (LLM facts and summaries):", "costPer1kConversations");
    }

    @Test
    void shouldCountAMemoryBothAskedUsersHoldWithTheSameContentOnceWhenMergingTheirHits() throws Exception {
        final LoCoMoQa.Sample sample = LoCoMoQa.read(mini()).get(0);
        final LoCoMoQa.Question both = sample.questions().get(2);
        final String summary = "Ines and Tomas talked about rowing on the river, a birdhouse and night school.";
        final Map<String, List<Memory>> memories = Map.of(
            "conv-x:Ines", List.of(turn("conv-x:Ines", "s-ines", summary, 1, 3),
                turn("conv-x:Ines", "c1", "Joined a rowing club on the river yesterday and loved it.", 1, 0)),
            "conv-x:Tomas", List.of(turn("conv-x:Tomas", "s-tomas", summary, 1, 3),
                turn("conv-x:Tomas", "m2", "Built a birdhouse for the garden last week.", 1, 1)));
        final var embedder = ScriptRoutedEmbedder.defaults();
        // every memory a candidate, so that each user's top 3 holds all of that user's memories
        final var scorer = new dev.engram.scoring.HybridScorer(embedder, EngramConfig.defaults().with(
            Map.of(DomainConfig.MIN_RELEVANCE, "0", DomainConfig.MIN_TOP_RELEVANCE, "0")));

        final List<ScoredMemory> top = LoCoMoRecall.merged(sample, both, embedder.embedQuery(both.question()),
            memories, scorer, 3);

        assertThat(top).extracting(h -> h.memory().getContent()).doesNotHaveDuplicates();
        assertThat(top).extracting(h -> h.memory().getMemoryId()).hasSize(3)
            .containsOnlyOnce("c1", "m2").containsAnyOf("s-ines", "s-tomas");
    }
}
