package dev.engram.retriever;

import static dev.engram.testing.Conversations.assistant;
import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the context block says of a conversation on the real pipeline (rule-based extractor, default embedding model,
 * consolidator, the retriever's read model, the block as {@code GET .../context} packs the ranking): each thing said
 * once, who said what kept, the small talk of both parties and the assistant's questions left out, a yes or a no kept.
 */
class DenseContextBlockTest {

    private static final String T = "t1";
    private static final Instant T0 = Instant.parse("2024-05-06T09:00:00Z");
    private static Embedder embedder;

    @BeforeAll
    static void loadModel() {
        embedder = ScriptRoutedEmbedder.defaults();
    }

    @AfterAll
    static void closeModel() throws Exception {
        embedder.close();
    }

    private static String at(final int seconds) {
        return T0.plusSeconds(seconds).toString();
    }

    private static ContextBlock.Result context(final PipelineHarness pipeline, final String userKey, final String message,
                                               final int budget) {
        return PipelineContext.of(embedder, pipeline, userKey, message, budget);
    }

    @Test
    void shouldSayTheUsersTurnOnceAndLeaveOutSmallTalkWhenTheTurnIsBothAnEpisodeAndPartOfAnExchange() {
        try (PipelineHarness pipeline = PipelineHarness.builder().build()) {
            pipeline.publish(conversation(T, "u-pot", "c-1",
                user("Hey there! I signed up for a pottery class at the community center last Tuesday.", at(0)),
                assistant("Wow, that's great! Pottery is a calm hobby and clay work builds patience and focus. "
                    + "What are you making first?", at(30))));
            pipeline.advanceTo(T0.plus(Duration.ofDays(1)));
            final List<Memory> memories = pipeline.retriever().memories(T + "/u-pot");
            final Memory exchange = memories.stream().filter(m -> ExtractedMemory.isExchange(m.getDisplayName()))
                .findFirst().orElseThrow(() -> new AssertionError("no exchange among " + memories));
            final Memory turn = memories.stream().filter(m -> m.getContent().startsWith("Hey there!"))
                .findFirst().orElseThrow(() -> new AssertionError("no episode of the turn among " + memories));

            final ContextBlock.Result block = context(pipeline, T + "/u-pot", "What class did I sign up for?", 512);

            assertThat(block.text()).as("who said what, the user's words once, no greeting, no reaction, no question")
                .contains("User: I signed up for a pottery class at the community center last Tuesday",
                    "— Assistant: Pottery is a calm hobby and clay work builds patience and focus.")
                .doesNotContain("Hey there", "Wow", "What are you making first?");
            assertThat(block.text().split("I signed up for a pottery class", -1)).hasSize(2);
            assertThat(block.included()).as("the episode of the turn is told by the exchange that quotes it")
                .contains(exchange.getMemoryId(), turn.getMemoryId());
            assertThat(block.estimatedTokens()).isEqualTo(ContextBlock.estimateTokens(block.text()));
        }
    }

    @Test
    void shouldKeepAShortAnswersYesAndTheQuestionItAnswersWhenLeavingOutSmallTalk() {
        try (PipelineHarness pipeline = PipelineHarness.builder().build()) {
            pipeline.publish(conversation(T, "u-yes", "c-1",
                assistant("Have you ever been to Lisbon?", at(0)),
                user("Yes! Twice, for work in 2019.", at(30))));
            pipeline.advanceTo(T0.plus(Duration.ofDays(1)));

            final ContextBlock.Result block = context(pipeline, T + "/u-yes", "Has the user been to Lisbon?", 512);

            assertThat(block.text()).contains("Yes! Twice, for work in 2019. (re: \"Have you ever been to Lisbon?\")");
        }
    }
}
