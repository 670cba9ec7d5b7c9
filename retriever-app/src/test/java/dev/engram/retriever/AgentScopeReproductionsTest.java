package dev.engram.retriever;

import static dev.engram.testing.Conversations.assistant;
import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.RankRequest;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * Session 15 trial (F17) on the real pipeline ({@link PipelineHarness}: rule-based extractor, default embedding model,
 * consolidator, the retriever's read model): a role-play told to one agent ({@code agentId=storybot}: "I live in
 * Tortuga and I work at the Black Pearl") replaced the user's shared city and employer, and the support agent's
 * context block said "Lives in Tortuga". A fact told to one agent that contradicts the shared profile is that agent's.
 */
class AgentScopeReproductionsTest {

    private static final String T = "t1";

    private static String day(final int day) {
        return KnowledgeUpdateReproductionsTest.day(day);
    }

    private static Memory active(final PipelineHarness pipeline, final String userKey, final String key) {
        return pipeline.retriever().active(userKey).stream().filter(m -> key.equals(m.getKey())).findFirst()
            .orElseThrow(() -> new AssertionError("no ACTIVE " + key + " among "
                + pipeline.retriever().active(userKey).stream().map(m -> m.getKey() + "=" + m.getValue()).toList()));
    }

    /** The context block {@code GET .../context?agentId=agent} packs: the memories the agent sees, ranked. */
    private static String context(final Embedder embedder, final PipelineHarness pipeline, final String userKey,
                                  final String agent, final String message) {
        final List<Memory> visible = pipeline.retriever().memories(userKey).stream()
            .filter(m -> ReadRoutes.visibleTo(m, agent)).toList();
        return ContextBlock.build(new HybridScorer(embedder, EngramConfig.defaults()).rank(RankRequest.of(message,
            EngramConfig.defaults().getInt(DomainConfig.MAX_K)).memories(visible)), 512).text();
    }

    @Test
    void shouldKeepARolePlayToldToOneAgentOutOfTheProfileEveryOtherAgentReads() throws Exception {
        final String u = T + "/u-rp";
        try (PipelineHarness pipeline = new PipelineHarness();
             Embedder embedder = ScriptRoutedEmbedder.fromConfig(EngramConfig.defaults())) {
            pipeline.publish(conversation(T, "u-rp", "c-1", user("I live in Leeds and I work at Asda.", day(0))));
            final ConversationCompleted story = conversation(T, "u-rp", "c-2",
                user("Let's role-play. I'm a pirate captain. I live in Tortuga and I work at the Black Pearl.", day(1)),
                assistant("Arr, Captain!", day(1)));
            story.setAgentId("storybot");
            pipeline.publish(story);

            assertThat(active(pipeline, u, "city").getValue()).as("the shared city").isEqualTo("Leeds");
            assertThat(active(pipeline, u, "employer").getValue()).as("the shared employer").isEqualTo("Asda");
            assertThat(pipeline.retriever().profile(u).getFacts().get("city").getValue()).isEqualTo("Leeds");
            assertThat(pipeline.retriever().profile(u).getFacts().get("employer").getValue()).isEqualTo("Asda");
            final Memory storyCity = active(pipeline, u, "city@storybot");
            assertThat(storyCity.getValue()).isEqualTo("Tortuga");
            assertThat(storyCity.getAgentId()).isEqualTo("storybot");
            assertThat(context(embedder, pipeline, u, "support", "Where do I live?")).contains("Leeds")
                .doesNotContain("Tortuga").doesNotContain("Black Pearl");
            assertThat(context(embedder, pipeline, u, "storybot", "Where do I live?")).contains("Tortuga");

            // the user's own move, said without an agent, still changes the shared city
            pipeline.publish(conversation(T, "u-rp", "c-3", user("I moved to York.", day(5))));
            assertThat(active(pipeline, u, "city").getValue()).isEqualTo("York");
        }
    }
}
