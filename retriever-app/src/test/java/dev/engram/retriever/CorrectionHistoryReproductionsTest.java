package dev.engram.retriever;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.RankRequest;
import dev.engram.scoring.ScoredMemory;
import dev.engram.scoring.UserMemoryIndex;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * User trial, session 15: a fact corrected in place through {@code PUT .../memories/{id}} (Graz → Vienna) keeps what it
 * replaced ({@code formerValues}), but an {@code asOf} read before the correction answered the corrected value, and a
 * late upload naming Graz, dated before the fact was first said, made a separate ARCHIVED "Lives in Graz" valid until
 * the fact's first statement instead of reinforcing the fact's history. On the real pipeline ({@link PipelineHarness}:
 * rule-based extractor, default embedding model, consolidation, the retriever's read model) and the retriever's ranking
 * ({@link HybridScorer}, both the kept index's path and the exhaustive one).
 */
class CorrectionHistoryReproductionsTest {

    private static final String T = "t1";
    private static final Instant T0 = Instant.parse("2024-03-04T09:00:00Z");
    private static final Instant CORRECTED_AT = T0.plus(Duration.ofDays(6));
    private static Embedder embedder;

    @BeforeAll
    static void loadModel() {
        embedder = ScriptRoutedEmbedder.fromConfig(EngramConfig.defaults());
    }

    @AfterAll
    static void closeModel() throws Exception {
        embedder.close();
    }

    private static String day(final int day) {
        return T0.plus(Duration.ofDays(day)).toString();
    }

    /** "I live in Graz." on day 2, corrected to Vienna on day 6 as {@code PUT {"value":"Vienna"}} issues it. */
    private static Memory grazCorrectedToVienna(final PipelineHarness pipeline, final String userId) {
        final String u = T + "/" + userId;
        pipeline.publish(conversation(T, userId, "c-1", user("I live in Graz.", day(2))));
        final Memory graz = city(pipeline, u);
        pipeline.command(KnowledgeUpdateReproductionsTest.correction(embedder, graz, null, "Vienna", CORRECTED_AT));
        return city(pipeline, u);
    }

    private static Memory city(final PipelineHarness pipeline, final String userKey) {
        return pipeline.consolidator().active(userKey).stream().filter(m -> "city".equals(m.getKey())).findFirst()
            .orElseThrow(() -> new AssertionError("no ACTIVE city among " + pipeline.consolidator().active(userKey)));
    }

    /** The city hit of "Where do I live?" as of a time: the retriever's kept index, and the exhaustive ranking. */
    private static List<Memory> cityAsOf(final PipelineHarness pipeline, final String userKey, final Instant asOf) {
        final HybridScorer scorer = new HybridScorer(embedder, EngramConfig.defaults());
        final List<Memory> memories = pipeline.retriever().memories(userKey);
        final UserMemoryIndex index = new UserMemoryIndex();
        memories.forEach(index::put);
        final List<ScoredMemory> indexed = scorer.rank(RankRequest.of("Where do I live?", 5).index(null, index).asOf(asOf));
        final List<ScoredMemory> exhaustive = scorer.rank(RankRequest.of("Where do I live?", 5).memories(memories).asOf(asOf));
        return List.of(cityHit(indexed), cityHit(exhaustive));
    }

    private static Memory cityHit(final List<ScoredMemory> hits) {
        return hits.stream().map(ScoredMemory::memory).filter(m -> "city".equals(m.getKey())).findFirst()
            .orElseThrow(() -> new AssertionError("no city among " + hits));
    }

    @Test
    void shouldAnswerTheValueTheFactHeldWhenAskedAsOfATimeBeforeItsCorrection() {
        final String u = T + "/u-asof";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            final Memory vienna = grazCorrectedToVienna(pipeline, "u-asof");
            assertThat(vienna.getValue()).isEqualTo("Vienna");

            assertThat(cityAsOf(pipeline, u, CORRECTED_AT.minus(Duration.ofDays(1)))).as("the day before the PUT")
                .hasSize(2).allSatisfy(m -> {
                    assertThat(m.getMemoryId()).isEqualTo(vienna.getMemoryId());
                    assertThat(m.getValue()).isEqualTo("Graz");
                    assertThat(m.getContent()).contains("Graz").doesNotContain("Vienna");
                    assertThat(m.getFormerValues()).as("no correction made yet").isEmpty();
                });
            assertThat(cityAsOf(pipeline, u, CORRECTED_AT.plus(Duration.ofDays(1)))).as("the day after it")
                .hasSize(2).allSatisfy(m -> {
                    assertThat(m.getValue()).isEqualTo("Vienna");
                    assertThat(m.getContent()).contains("Vienna");
                });
        }
    }

    @Test
    void shouldReinforceTheFactsHistoryWhenALateStatementOfItsFirstValueIsDatedBeforeTheFactBegan() {
        final String u = T + "/u-late-graz";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            final Memory vienna = grazCorrectedToVienna(pipeline, "u-late-graz");

            pipeline.publish(conversation(T, "u-late-graz", "c-late", user("I live in Graz.", day(0))));

            assertThat(pipeline.consolidator().memories(u)).as("no second Graz memory")
                .filteredOn(m -> "city".equals(m.getKey())).singleElement().satisfies(m -> {
                    assertThat(m.getMemoryId()).isEqualTo(vienna.getMemoryId());
                    assertThat(m.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
                    assertThat(m.getValue()).as("still the corrected value").isEqualTo("Vienna");
                    assertThat(m.getFormerValues()).extracting(f -> f.getValue()).containsExactly("Graz");
                    assertThat(m.getFormerValues().get(0).getCorrectedAt()).isEqualTo(CORRECTED_AT);
                    assertThat(m.getSources()).extracting(s -> s.getConversationId()).contains("c-1", "c-late");
                });
            assertThat(pipeline.retriever().profile(u).getFacts().get("city").getValue()).isEqualTo("Vienna");
        }
    }
}
