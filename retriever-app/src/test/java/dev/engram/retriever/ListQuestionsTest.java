package dev.engram.retriever;

import static dev.engram.testing.Conversations.assistant;
import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.SourceRef;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * List questions on the real pipeline (rule-based extractor, default embedding model, consolidator with observations,
 * the retriever's read model, the context block as {@code GET .../context} packs it): a user's pets said in several
 * conversations become one topic list that cites exactly the conversations naming a pet, is in the context block for
 * "What pets do I have?" within 512 tokens, loses a pet the user says has died, never lists what only the assistant
 * said, and is the same on a replay of the same history.
 */
class ListQuestionsTest {

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

    private static String day(final int day) {
        return T0.plus(Duration.ofDays(day)).toString();
    }

    private static String day(final int day, final int seconds) {
        return T0.plus(Duration.ofDays(day)).plusSeconds(seconds).toString();
    }

    private static PipelineHarness pipeline() {
        return PipelineHarness.builder().observations(ScriptRoutedEmbedder.defaults()).build();
    }

    /** Pets in three conversations, an unrelated one, and an assistant naming a pet the user never had. */
    private static void history(final PipelineHarness pipeline, final String userId) {
        pipeline.publish(conversation(T, userId, "c-1", user("I have a dog named Max and I live in Denver.", day(0))));
        pipeline.publish(conversation(T, userId, "c-2", user("I have a turtle named Shelly.", day(2)),
            assistant("Your parrot Kiwi must love the turtle, and Max too.", day(2, 30))));
        pipeline.publish(conversation(T, userId, "c-3", user("My cat Luna is asleep again on the sofa.", day(4))));
        pipeline.publish(conversation(T, userId, "c-4", user("The project deadline at work moved again.", day(6))));
        pipeline.advanceTo(T0.plus(Duration.ofDays(9)));
    }

    private static Memory pets(final PipelineHarness pipeline, final String userKey) {
        return pipeline.consolidator().active(userKey).stream()
            .filter(m -> ExtractedMemory.isTopicList(m.getType(), m.getDisplayName()) && m.getContent().startsWith("Pets:"))
            .findFirst().orElseThrow(() -> new AssertionError("no pet list among " + pipeline.consolidator().active(userKey)));
    }

    /** The context block for a message within 512 tokens, as {@code GET .../context} packs the retriever's ranking. */
    private static String context(final PipelineHarness pipeline, final String userKey, final String message) {
        return PipelineContext.of(embedder, pipeline, userKey, message, 512).text();
    }

    @Test
    void shouldListThePetsOfSeveralConversationsCitingOnlyTheConversationsThatNameOne() {
        try (PipelineHarness pipeline = pipeline()) {
            history(pipeline, "u-nate");
            final Memory pets = pets(pipeline, T + "/u-nate");

            assertThat(pets.getContent()).contains("dog Max", "turtle Shelly", "cat Luna").doesNotContain("Kiwi", "parrot");
            assertThat(pets.getSources()).extracting(SourceRef::getConversationId).containsOnly("c-1", "c-2", "c-3");
            assertThat(pets.getSources()).allSatisfy(s -> assertThat(s.getMessageIndexes()).containsExactly(0));
            assertThat(pets.getEventDates()).isEmpty();
            assertThat(pipeline.retriever().memories(T + "/u-nate")).extracting(Memory::getMemoryId)
                .contains(pets.getMemoryId());

            final String block = context(pipeline, T + "/u-nate", "What pets do I have?");
            assertThat(block).contains(pets.getContent());
            assertThat(ContextBlock.estimateTokens(block)).isLessThanOrEqualTo(512);
        }
    }

    @Test
    void shouldDropAPetFromTheListWhenTheUserSaysItDied() {
        try (PipelineHarness pipeline = pipeline()) {
            history(pipeline, "u-loss");
            final String u = T + "/u-loss";
            assertThat(pets(pipeline, u).getContent()).contains("turtle Shelly");

            pipeline.publish(conversation(T, "u-loss", "c-5", user("Shelly died last week, it was a hard month.", day(20))));

            final Memory after = pets(pipeline, u);
            assertThat(after.getContent()).doesNotContain("Shelly").contains("dog Max", "cat Luna");
            assertThat(after.getSources()).extracting(SourceRef::getConversationId).containsOnly("c-1", "c-3");
            assertThat(context(pipeline, u, "What pets do I have?")).doesNotContain("turtle Shelly,");
        }
    }

    private static List<MemoryUpdated> replayOnce() {
        try (PipelineHarness pipeline = pipeline()) {
            history(pipeline, "u-replay");
            pipeline.publish(conversation(T, "u-replay", "c-5", user("Shelly died last week, it was a hard month.", day(20))));
            pipeline.advanceTo(T0.plus(Duration.ofDays(30)));
            return pipeline.updates().stream().filter(e -> e.getUserId().equals("u-replay")).toList();
        }
    }

    @Test
    void shouldWriteTheSameListsWhenTheSameHistoryIsReplayed() {
        final List<MemoryUpdated> first = replayOnce();
        assertThat(first).as("lists are there to compare").anyMatch(e -> e.getMemory() != null
            && ExtractedMemory.isTopicList(e.getMemory().getType(), e.getMemory().getDisplayName()));
        assertThat(replayOnce()).isEqualTo(first);
    }
}
