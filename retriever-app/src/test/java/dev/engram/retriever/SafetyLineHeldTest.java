package dev.engram.retriever;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.safety.SafetyFacts;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.RankRequest;
import dev.engram.scoring.ScoredMemory;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A fresh user's trial (session 10) on the real pipeline (rule-based extractor, default embedding model, consolidator
 * with observations, the retriever's read model): the context block keeps a safety fact under its constraint heading
 * whatever observation states it too.
 */
class SafetyLineHeldTest {

    private static final String T = "t3";
    private static final Instant T0 = Instant.parse("2026-12-01T09:00:00Z");
    private static Embedder embedder;
    private static HybridScorer scorer;

    @BeforeAll
    static void loadModel() {
        embedder = ScriptRoutedEmbedder.defaults();
        scorer = new HybridScorer(embedder, EngramConfig.defaults());
    }

    @AfterAll
    static void closeModel() throws Exception {
        embedder.close();
    }

    private static String at(final int minutes) {
        return T0.plus(Duration.ofMinutes(minutes)).toString();
    }

    private static PipelineHarness pipeline() {
        return PipelineHarness.builder().observations(ScriptRoutedEmbedder.defaults()).build();
    }

    /** The block of {@code GET .../context} within 512 tokens: the safety facts pinned, the ranking for a block. */
    private static String context(final PipelineHarness pipeline, final String userKey, final String message) {
        final List<Memory> memories = pipeline.retriever().memories(userKey);
        final List<Memory> pinned = SafetyFacts.concerns(message) ? SafetyFacts.DEFAULT.pinned(memories) : List.of();
        final List<ScoredMemory> hits = scorer.rank(RankRequest.of(message,
            EngramConfig.defaults().getInt(DomainConfig.MAX_K)).memories(memories).forContext());
        return ContextBlock.build(pinned, hits, 512).text();
    }

    @Test
    void shouldKeepThePeanutAllergyUnderItsConstraintHeadingWhenAnObservationStatesItToo() {
        try (PipelineHarness pipeline = pipeline()) {
            pipeline.publish(conversation(T, "p2", "c1", user("I'm allergic to peanuts.", at(0)),
                user("I have a severe peanut allergy.", at(1)), user("PEANUTS make me sick, I am ALLERGIC to them.", at(2))));
            pipeline.publish(conversation(T, "p2", "c2", user("Remember: I'm allergic to peanuts!", at(60)),
                user("I use VS Code.", at(61)), user("I use vscode for everything.", at(62)),
                user("My editor is Visual Studio Code.", at(63))));
            pipeline.advanceTo(T0.plus(Duration.ofDays(2)));

            final String block = context(pipeline, T + "/p2", "Can I eat a Snickers bar?");

            assertThat(block).as("the safety fact first, under its constraint heading")
                .startsWith("Known facts about the user:\n## CONSTRAINT\n- Is allergic to peanut (avoid it in food");
        }
    }
}
