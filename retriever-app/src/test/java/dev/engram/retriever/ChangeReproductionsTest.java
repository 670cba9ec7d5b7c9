package dev.engram.retriever;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The findings of session 15's user trials on the real pipeline (rule-based extractor, default embedding model,
 * consolidator, the retriever's read model, {@link PipelineHarness}), the context block as {@code GET .../context}
 * builds it ({@link ContextBlock}; the helpers of {@link KnowledgeUpdateReproductionsTest}): a change said in words the
 * rules did not read as one left the old value current.
 */
class ChangeReproductionsTest {

    private static final String T = "t1";
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
        return KnowledgeUpdateReproductionsTest.day(day);
    }

    private static String context(final PipelineHarness pipeline, final String userKey, final String message) {
        return KnowledgeUpdateReproductionsTest.context(embedder, pipeline, userKey, message);
    }

    private static String current(final String block) {
        return KnowledgeUpdateReproductionsTest.current(block);
    }

    private static List<String> activeContents(final PipelineHarness pipeline, final String userKey) {
        return pipeline.retriever().active(userKey).stream().map(Memory::getContent).toList();
    }

    @Test
    void shouldTellTheOldDrinkOnlyAsPastWhenTheUserQuitsItForAnother() {
        final String u = T + "/u-coffee";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-coffee", "c-1", user("I drink coffee every morning.", day(0))));
            pipeline.publish(conversation(T, "u-coffee", "c-2", user("I quit coffee, only tea now.", day(5))));

            final Memory coffee = pipeline.retriever().memories(u).stream()
                .filter(m -> "preference:coffee".equals(m.getKey())).findFirst().orElseThrow();
            assertThat(coffee.getStatus()).as("the old drink, taken back").isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(activeContents(pipeline, u)).contains("Drinks tea now").doesNotContain("Drinks coffee");
            assertThat(current(context(pipeline, u, "What should I drink in the morning?")))
                .contains("Drinks tea now").doesNotContain("Drinks coffee");
        }
    }

    @Test
    void shouldServeTheNewDoseAsCurrentAndTheOldOneAsPast() {
        final String u = T + "/u-dose";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-dose", "c-1", user("I take amlodipine 5 mg.", day(0))));
            pipeline.publish(conversation(T, "u-dose", "c-2", user("I raised my amlodipine to 10 mg.", day(5))));
            assertThat(activeContents(pipeline, u)).contains("Takes amlodipine 10 mg (medication)")
                .doesNotContain("Takes amlodipine 5 mg (medication)");

            // the drug of a dose said without it: the user's profile's
            pipeline.publish(conversation(T, "u-dose", "c-3", user("My dose went up to 20 mg.", day(9))));
            assertThat(activeContents(pipeline, u)).contains("Takes amlodipine 20 mg (medication)")
                .doesNotContain("Takes amlodipine 10 mg (medication)");
            assertThat(pipeline.retriever().memories(u).stream().filter(m -> "medication:amlodipine".equals(m.getKey())))
                .extracting(Memory::getStatus).containsExactlyInAnyOrder(MemoryStatus.ARCHIVED, MemoryStatus.ARCHIVED,
                    MemoryStatus.ACTIVE);
            assertThat(current(context(pipeline, u, "What dose of amlodipine do I take?"))).contains("20 mg")
                .doesNotContain("5 mg").doesNotContain("10 mg");

            pipeline.publish(conversation(T, "u-dose", "c-4", user("I stopped taking amlodipine.", day(12))));
            assertThat(pipeline.retriever().active(u)).noneMatch(m -> "medication:amlodipine".equals(m.getKey()));
        }
    }

    @Test
    void shouldTellTheOldTrackerOnlyAsPastWhenTheTeamSwitchesFromIt() {
        final String u = T + "/u-jira";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-jira", "c-1", user("We track work in Jira.", day(0))));
            assertThat(activeContents(pipeline, u)).contains("Uses Jira");

            pipeline.publish(conversation(T, "u-jira", "c-2", user("We switched from Jira to Linear.", day(10))));
            assertThat(activeContents(pipeline, u)).contains("Uses Linear").doesNotContain("Uses Jira");
            assertThat(current(context(pipeline, u, "Do we use Jira or Linear for tickets?"))).contains("Linear")
                .doesNotContain("Jira");
        }
    }

    @Test
    void shouldKeepANameAskedOfOneAgentForThatAgentAndTheUsersNameForEveryOther() {
        final String u = T + "/u-captain";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-captain", "c-1", user("My name is Dana.", day(0))));
            final dev.engram.avro.ConversationCompleted toTravel = conversation(T, "u-captain", "c-2",
                user("Call me Captain.", day(3)));
            toTravel.setAgentId("travel");
            pipeline.publish(toTravel);

            final Memory name = pipeline.retriever().active(u).stream().filter(m -> "name".equals(m.getKey()))
                .findFirst().orElseThrow();
            assertThat(name.getValue()).as("the user's name, every agent's").isEqualTo("Dana");
            final Memory nickname = pipeline.retriever().active(u).stream()
                .filter(m -> "nickname:travel".equals(m.getKey())).findFirst().orElseThrow();
            assertThat(nickname.getValue()).isEqualTo("Captain");
            assertThat(nickname.getAgentId()).isEqualTo("travel");
            assertThat(ReadRoutes.visibleTo(nickname, "travel")).isTrue();
            assertThat(ReadRoutes.visibleTo(nickname, "coding")).isFalse();
            assertThat(pipeline.retriever().profile(u).getFacts()).containsKey("name").doesNotContainKey("nickname:travel");
            assertThat(pipeline.retriever().profile(u).getFacts().get("name").getValue()).isEqualTo("Dana");
        }
    }
}
