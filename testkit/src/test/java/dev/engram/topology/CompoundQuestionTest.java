package dev.engram.topology;

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
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.RelevanceModel;
import dev.engram.scoring.ScoredMemory;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * A fresh user's trial: "Which editor?" found "Uses VS Code as IDE" (relevance 0.0045) but "Which editor and what
 * snacks?" did not: the snack words diluted the question's vector and the fact's relevance, 0.00078, fell under
 * {@code retrieval.min.relevance} (0.002). A question that asks two things is ranked by each of its parts too, and a
 * memory that answers one part is relevant to the question. The whole pipeline on TopologyTestDriver: the rule-based
 * extractor, the default embedder, the retriever's list ranking.
 */
class CompoundQuestionTest {

    private static final String TENANT = "t1";
    private static final String ODA = "u-oda";
    private static final String USER = TENANT + "/" + ODA;
    private static final Instant T0 = Instant.parse("2025-03-01T09:00:00Z");
    private static final List<String> SAID = List.of(
        "I use VS Code as my IDE.",
        "My favourite snacks are salted pretzels and dark chocolate.",
        "I live in Utrecht, near the canals.",
        "I play badminton with my colleagues every Tuesday.",
        "My sister Anna is visiting us next month.",
        "We are renovating the kitchen this spring.");

    @Test
    void shouldFindTheAnswerToEachPartOfAQuestionThatAsksTwoThings() {
        try (PipelineHarness driver = new PipelineHarness()) {
            for (int i = 0; i < SAID.size(); i++) {
                driver.publish(conversation(TENANT, ODA, "c-" + i, user(SAID.get(i), T0.plus(Duration.ofHours(i)).toString())));
            }
            final Memory editor = driver.retriever().active(USER).stream()
                .filter(m -> m.getContent().contains("VS Code")).findFirst().orElseThrow();
            final HybridScorer scorer = new HybridScorer(ScriptRoutedEmbedder.defaults(), EngramConfig.defaults());
            final double floor = EngramConfig.defaults().getDouble(DomainConfig.MIN_RELEVANCE);
            assertThat(relevance(scorer, "Which editor and what snacks?", editor)).as("the whole question alone")
                .isLessThan(floor);
            assertThat(relevance(scorer, "Which editor", editor)).as("its first part").isGreaterThanOrEqualTo(floor);

            final List<ScoredMemory> both = driver.retrieve(USER, "Which editor and what snacks?", 5);

            assertThat(both).extracting(h -> h.memory().getContent()).anyMatch(c -> c.contains("VS Code"))
                .anyMatch(c -> c.contains("pretzels"));
            assertThat(driver.retrieve(USER, "Which editor?", 5)).extracting(h -> h.memory().getContent())
                .anyMatch(c -> c.contains("VS Code"));
        }
    }

    /** @return the memory's calibrated relevance to the text alone, as one query */
    private static double relevance(final HybridScorer scorer, final String text, final Memory memory) {
        final double[] f = scorer.features(text, List.of(memory))[0];
        return RelevanceModel.probability(scorer.relevance(memory.getEmbeddingModel()).logit(f[0], f[1], f[2] > 0));
    }
}
