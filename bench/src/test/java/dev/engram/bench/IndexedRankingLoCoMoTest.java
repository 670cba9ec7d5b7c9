package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.config.EngramConfig;
import dev.engram.consolidation.Observations;
import dev.engram.core.UserKey;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.ScoredMemory;
import dev.engram.scoring.UserMemoryIndex;
import dev.engram.stack.ConversationSources;
import dev.engram.stack.ProjectPaths;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import dev.engram.scoring.RankRequest;

/**
 * The retriever's kept index ranks the LoCoMo users' memories exactly as scoring every memory from scratch does:
 * the first sessions of the first LoCoMo dev conversation through the real extractor, consolidator and read model (TopologyTestDriver,
 * the default embedder), then every question of it asked as the speaker it names, and a third of them again after
 * a round of access reports changed the priors. Skipped when the LoCoMo file is not next to the repository.
 */
class IndexedRankingLoCoMoTest {

    /** Sessions of the conversation piped through the pipeline. */
    private static final int SESSIONS = 3;

    @Test
    void shouldRankTheLoCoMoUsersKeptIndexAsExhaustiveScoring() throws Exception {
        final Optional<Path> file = ProjectPaths.existing(Inputs.LOCOMO_DEV);
        Assumptions.assumeTrue(file.isPresent(), "LoCoMo dev split not found at " + Inputs.LOCOMO_DEV + ": skipped");
        final LoCoMoQa.Sample sample = LoCoMoQa.read(file.get()).get(0);
        final List<ConversationCompleted> conversations = ConversationSources.readAll(file.get()).getKey().stream()
            .filter(c -> sample.speakers().stream().anyMatch(s -> c.getUserId().equals(sample.userId(s))))
            // its first sessions (both speakers'): ~100 memories per user, to keep the default test run short
            .sorted(java.util.Comparator.comparing(ConversationCompleted::getCompletedAt)).limit(SESSIONS * 2L).toList();
        final HybridScorer scorer = new HybridScorer(ScriptRoutedEmbedder.defaults(), EngramConfig.defaults());
        // with observations: a list lifts an observation to its best candidate statement (ObservationLift), both paths
        try (PipelineHarness pipeline = PipelineHarness.builder().observations(ScriptRoutedEmbedder.defaults()).build()) {
            pipeline.publish(conversations.toArray(ConversationCompleted[]::new));
            pipeline.advanceTo(conversations.get(conversations.size() - 1).getCompletedAt().plusSeconds(86_400));
            int compared = 0;
            for (int round = 0; round < 2; round++) {
                for (final String speaker : sample.speakers()) {
                    final String user = new UserKey(ConversationSources.LOCOMO_TENANT, sample.userId(speaker)).wire();
                    final List<Memory> memories = pipeline.retriever().memories(user);
                    assertThat(memories.size()).as("memories of %s", user).isGreaterThan(20);
                    assertThat(memories).as("observations of %s", user).anyMatch(Observations::isObservation);
                    final UserMemoryIndex index = new UserMemoryIndex();
                    memories.forEach(index::put);
                    // each question as the speaker it names (as bench retrieval asks it); after the access reports
                    // a third of them again, with another k
                    final List<LoCoMoQa.Question> asked = sample.questions().stream()
                        .filter(q -> q.speakers().get(0).equals(speaker)).toList();
                    for (int i = 0; i < asked.size(); i += round == 0 ? 1 : 3) {
                        final String question = asked.get(i).question();
                        final int k = round == 0 ? 10 : 5;
                        assertThat(signature(scorer.rank(RankRequest.of(question, k).index(UserKey.parse(user), index))))
                            .as("%s, %s, k=%d, round %d", user, question, k, round)
                            .isEqualTo(signature(scorer.rank(RankRequest.of(question, k).memories(memories))));
                        compared++;
                    }
                    if (round == 0) {
                        // access reports as the retriever sends them, so recency and access counts differ per memory
                        final List<String> hit = new ArrayList<>();
                        for (final LoCoMoQa.Question q : asked.subList(0, Math.min(20, asked.size()))) {
                            scorer.rank(RankRequest.of(q.question(), 5).memories(memories)).forEach(h -> hit.add(h.memory().getMemoryId()));
                        }
                        pipeline.access(user, conversations.get(conversations.size() - 1).getCompletedAt()
                            .plusSeconds(86_400), hit.toArray(String[]::new));
                    }
                }
            }
            assertThat(compared).isGreaterThan(150);
        }
    }

    /** Each hit's id and exact score components (the index holds memories without their embedding). */
    private static List<String> signature(final List<ScoredMemory> hits) {
        return hits.stream().map(h -> h.memory().getMemoryId() + "|" + h.score() + "|" + h.semantic() + "|"
            + h.recency() + "|" + h.importance() + "|" + h.access()).toList();
    }
}
