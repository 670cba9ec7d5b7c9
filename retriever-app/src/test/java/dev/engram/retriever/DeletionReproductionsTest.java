package dev.engram.retriever;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import dev.engram.avro.CommandKind;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * User trial, session 14: a user deletes a memory ({@code DELETE .../memories/{id}}, MCP {@code delete_memory}), then a
 * conversation dated before the deletion is uploaded late and says the same again ("I love steak" after "Likes steak"
 * was deleted). It came back as a new ACTIVE memory, because the deletion kept nothing a candidate with another id could
 * be compared with. On the real pipeline ({@link PipelineHarness}: rule-based extractor, default embedding model,
 * consolidation topology, the retriever's read model): older data of a deleted statement is not stored again (a counted
 * skip, {@code reason="deleted_before"}, no {@code memory-updated} event), the same statement said after the deletion
 * is, an episode is recognised by its content, ERASE leaves no marker, and a replay (candidates and commands in time
 * order) ends with the same memories as the live order.
 */
class DeletionReproductionsTest {

    private static final String T = "t1";
    private static final Instant T0 = Instant.parse("2024-03-04T09:00:00Z");
    private static final Instant DELETED_AT = T0.plus(Duration.ofDays(6));

    private static String day(final int day) {
        return T0.plus(Duration.ofDays(day)).toString();
    }

    private static String day(final int day, final int seconds) {
        return T0.plus(Duration.ofDays(day)).plusSeconds(seconds).toString();
    }

    /** A command as {@code DELETE .../memories/{id}} ({@code kind} DELETE) or {@code DELETE .../users/{user}} (ERASE) issues it. */
    private static MemoryCommand command(final String userId, final CommandKind kind, final String memoryId, final Instant at) {
        return MemoryCommand.newBuilder().setCommandId(UUID.randomUUID().toString()).setTenantId(T).setUserId(userId)
            .setKind(kind).setMemoryId(memoryId).setContent(null).setValue(null).setMemoryEnabled(null).setActor("test")
            .setIssuedAt(at).build();
    }

    private static Memory fact(final PipelineHarness pipeline, final String userKey, final String key) {
        return pipeline.consolidator().active(userKey).stream().filter(m -> key.equals(m.getKey())).findFirst()
            .orElseThrow(() -> new AssertionError("no ACTIVE " + key + " among " + pipeline.consolidator().active(userKey)));
    }

    private static double skipped(final PipelineHarness pipeline, final String reason) {
        final var counter = pipeline.consolidatorMeters().find("engram.candidates.skipped").tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    /** What the user is served: the retriever's memories that are ACTIVE and current. */
    private static List<String> served(final PipelineHarness pipeline, final String userKey) {
        return pipeline.retriever().memories(userKey).stream()
            .filter(m -> m.getStatus() == MemoryStatus.ACTIVE && m.getValidTo() == null).map(Memory::getContent).toList();
    }

    /**
     * "I love steak." on day 0, the fact deleted on day 6, and a conversation of day 3 saying it again, which arrives after
     * the deletion ({@code late}: live) or before it (time order, as a replay applies them).
     *
     * @return the fact as the first conversation made it
     */
    private static Memory steak(final PipelineHarness pipeline, final String userId, final boolean late) {
        if (late) {
            final Memory steak = steakDeleted(pipeline, userId);
            pipeline.publish(conversation(T, userId, "c-late", user("I love steak.", day(3))));
            return steak;
        }
        pipeline.publish(conversation(T, userId, "c-1", user("I love steak.", day(0))));
        final Memory steak = fact(pipeline, T + "/" + userId, "preference:steak");
        pipeline.publish(conversation(T, userId, "c-late", user("I love steak.", day(3))));
        pipeline.command(command(userId, CommandKind.DELETE, steak.getMemoryId(), DELETED_AT));
        return steak;
    }

    /** @return the fact "I love steak." made on day 0, deleted on day 6 */
    private static Memory steakDeleted(final PipelineHarness pipeline, final String userId) {
        pipeline.publish(conversation(T, userId, "c-1", user("I love steak.", day(0))));
        final Memory steak = fact(pipeline, T + "/" + userId, "preference:steak");
        pipeline.command(command(userId, CommandKind.DELETE, steak.getMemoryId(), DELETED_AT));
        return steak;
    }

    @Test
    void shouldNotBringBackADeletedFactWhenAConversationDatedBeforeTheDeletionArrivesAfterIt() {
        final String u = T + "/u-steak";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            final Memory steak = steakDeleted(pipeline, "u-steak");
            final int updates = pipeline.updates().size();

            pipeline.publish(conversation(T, "u-steak", "c-late", user("I love steak.", day(3))));

            assertThat(pipeline.consolidator().active(u)).as("nothing about steak is back").isEmpty();
            assertThat(served(pipeline, u)).noneMatch(c -> c.toLowerCase().contains("steak"));
            assertThat(pipeline.retriever().profile(u).getFacts()).doesNotContainKey("preference:steak");
            assertThat(pipeline.updates()).as("no memory-updated event for older data").hasSize(updates);
            assertThat(skipped(pipeline, "deleted_before")).isGreaterThanOrEqualTo(1.0);
            final Memory marker = pipeline.consolidator().memory(u, steak.getMemoryId());
            assertThat(marker.getStatus()).isEqualTo(MemoryStatus.DELETED);
            assertThat(marker.getContent()).isEmpty();
            assertThat(marker.getKey()).isNull();
            assertThat(marker.getValue()).isNull();
            assertThat(marker.getSources()).isEmpty();
            assertThat(marker.getValidTo()).as("the deletion time").isEqualTo(DELETED_AT);
            assertThat(marker.getDeletedDigests()).as("the statement's and the key's").hasSize(2)
                .allSatisfy(d -> assertThat(d).hasSize(32).doesNotContainIgnoringCase("steak").doesNotContainIgnoringCase("preference"));
        }
    }

    @Test
    void shouldRememberTheFactAgainWhenTheUserSaysItAfterTheDeletion() {
        final String u = T + "/u-again";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            final Memory steak = steakDeleted(pipeline, "u-again");

            pipeline.publish(conversation(T, "u-again", "c-2", user("I love steak.", day(8))));

            final Memory again = fact(pipeline, u, "preference:steak");
            assertThat(again.getMemoryId()).as("a new memory, the marker stays").isNotEqualTo(steak.getMemoryId());
            assertThat(again.getValidFrom()).isEqualTo(Instant.parse(day(8)));
            assertThat(pipeline.retriever().profile(u).getFacts()).containsKey("preference:steak");
            assertThat(skipped(pipeline, "deleted_before")).isZero();
        }
    }

    @Test
    void shouldNotBringBackADeletedEpisodeWhenTheSameConversationIsUploadedAgainUnderAnotherId() {
        final String u = T + "/u-zion";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-zion", "c-1", user("We went hiking in Zion with my sister last weekend.", day(0))));
            final Memory episode = pipeline.consolidator().active(u).stream().filter(m -> m.getContent().contains("Zion"))
                .findFirst().orElseThrow(() -> new AssertionError("the episode: " + pipeline.consolidator().active(u)));
            assertThat(episode.getKey()).isNull();
            pipeline.command(command("u-zion", CommandKind.DELETE, episode.getMemoryId(), DELETED_AT));

            // the platform's backfill: the same conversation again, under another id
            pipeline.publish(conversation(T, "u-zion", "c-1-backfill",
                user("We went hiking in Zion with my sister last weekend!", day(0))));

            assertThat(served(pipeline, u)).noneMatch(c -> c.contains("Zion"));
            assertThat(skipped(pipeline, "deleted_before")).isGreaterThanOrEqualTo(1.0);

            pipeline.publish(conversation(T, "u-zion", "c-2", user("We went hiking in Zion with my sister last weekend.", day(9))));
            assertThat(served(pipeline, u)).as("said again after the deletion").anyMatch(c -> c.contains("Zion"));
        }
    }

    /**
     * Session 15 trial (F11): "Likes hurling" deleted, and the context block still told the turn it was read from,
     * "Dublin is where I live. Hurling is what I love.", under "Earlier, no longer current". A deleted fact takes the
     * memories saying it with it: no read (list, search, context block, history) holds the words, the other facts of
     * the turn stay, and the turn uploaded again late is not stored.
     */
    @Test
    void shouldServeNoWordOfADeletedFactFromTheTurnItWasReadFrom() throws Exception {
        final String u = T + "/u-hurling";
        try (PipelineHarness pipeline = new PipelineHarness();
             Embedder embedder = ScriptRoutedEmbedder.fromConfig(EngramConfig.defaults())) {
            pipeline.publish(conversation(T, "u-hurling", "c-0", user("I live in Dublin.", day(0))));
            pipeline.publish(conversation(T, "u-hurling", "c-1", user("Dublin is where I live. Hurling is what I love.", day(0))));
            pipeline.publish(conversation(T, "u-hurling", "c-3", user("I love hurling and my brother coaches a team in Cork.", day(0))));
            pipeline.publish(conversation(T, "u-hurling", "c-2", user("Hurling on Sunday with my cousins again.", day(1))));
            final Memory hurling = fact(pipeline, u, "preference:hurling");
            final List<Memory> held = pipeline.retriever().memories(u);
            final List<String> saying = held.stream()
                .filter(m -> m.getContent().toLowerCase().contains("hurling")).map(Memory::getMemoryId).toList();
            assertThat(held).as("the fact and the turns").extracting(Memory::getContent)
                .contains("Likes hurling", "Dublin is where I live. Hurling is what I love.");
            assertThat(saying).hasSizeGreaterThanOrEqualTo(3);

            pipeline.command(command("u-hurling", CommandKind.DELETE, hurling.getMemoryId(), DELETED_AT));

            assertThat(pipeline.retriever().memories(u)).as("every status").extracting(Memory::getContent)
                .noneMatch(c -> c.toLowerCase().contains("hurling"));
            assertThat(fact(pipeline, u, "city").getValue()).as("a fact of its own").isEqualTo("Dublin");
            for (final String message : List.of("What sports do I like?", "Did I ever mention hurling?")) {
                assertThat(PipelineContext.of(embedder, pipeline, u, message, 512).text()).as(message)
                    .doesNotContainIgnoringCase("hurling");
            }
            assertThat(pipeline.retrieve(u, "hurling", 10)).extracting(h -> h.memory().getContent())
                .noneMatch(c -> c.toLowerCase().contains("hurling"));
            saying.forEach(id -> assertThat(pipeline.history(u, id)).as("history of " + id).isEmpty());
            assertThat(pipeline.consolidator().memories(u)).filteredOn(m -> saying.contains(m.getMemoryId()))
                .allMatch(m -> m.getStatus() == MemoryStatus.DELETED && m.getContent().isEmpty());

            pipeline.publish(conversation(T, "u-hurling", "c-1-backfill",
                user("Dublin is where I live. Hurling is what I love.", day(0))));
            assertThat(served(pipeline, u)).as("the late upload of the turn").noneMatch(c -> c.toLowerCase().contains("hurling"));
        }
    }

    @Test
    void shouldLeaveNoMarkerWhenTheUserIsErased() {
        final String u = T + "/u-erase";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            steakDeleted(pipeline, "u-erase");
            assertThat(pipeline.consolidator().memoriesStore().keySet()).as("the marker").isNotEmpty();

            pipeline.command(command("u-erase", CommandKind.ERASE, null, T0.plus(Duration.ofDays(7))));

            assertThat(pipeline.consolidator().memoriesStore()).as("no marker, no digest").isEmpty();
            assertThat(pipeline.consolidator().memories(u)).isEmpty();
        }
    }

    /**
     * A replay (bin/engram rebuild) orders candidates and commands by time: the late conversation before the deletion,
     * where it reinforces the fact the deletion then removes. The memories must come out the same as live, where it
     * arrived after the deletion and was skipped.
     */
    @Test
    void shouldEndWithTheSameMemoriesWhenTheLateConversationIsAppliedBeforeTheDeletionAsAReplayDoes() {
        final String u = T + "/u-order";
        final List<Memory> live;
        final List<Memory> replayed;
        final List<MemoryUpdated> liveUpdates;
        try (PipelineHarness pipeline = new PipelineHarness()) {
            steak(pipeline, "u-order", true);
            live = pipeline.consolidator().memories(u);
            assertThat(served(pipeline, u)).noneMatch(c -> c.toLowerCase().contains("steak"));
            liveUpdates = pipeline.updates();
        }
        try (PipelineHarness pipeline = new PipelineHarness()) {
            steak(pipeline, "u-order", false);
            replayed = pipeline.consolidator().memories(u);
            assertThat(served(pipeline, u)).noneMatch(c -> c.toLowerCase().contains("steak"));
        }
        assertThat(live).as("the marker").isNotEmpty().allMatch(m -> m.getStatus() == MemoryStatus.DELETED);
        assertThat(replayed).containsExactlyInAnyOrderElementsOf(live);
        assertThat(liveUpdates).isNotEmpty();
    }

    /**
     * User trial, session 15: "I live in Paris" (day 0) uploaded after "I live in Lyon" (day 2) was deleted (day 6).
     * In time order Lyon supersedes Paris, then the deletion removes Lyon: Paris is history, not the current city.
     * {@code late}: live, the Paris conversation arrives after the deletion; otherwise in time order, as a replay.
     */
    private static void lyonDeletedThenParis(final PipelineHarness pipeline, final String userId, final boolean late,
                                             final int parisDay) {
        final String u = T + "/" + userId;
        if (!late && parisDay < 2) {
            pipeline.publish(conversation(T, userId, "c-paris", user("I live in Paris.", day(parisDay))));
        }
        pipeline.publish(conversation(T, userId, "c-lyon", user("I live in Lyon.", day(2))));
        final String lyon = fact(pipeline, u, "city").getMemoryId();
        if (!late && parisDay > 2) {
            pipeline.publish(conversation(T, userId, "c-paris", user("I live in Paris.", day(parisDay))));
        }
        pipeline.command(command(userId, CommandKind.DELETE, lyon, DELETED_AT));
        if (late) {
            pipeline.publish(conversation(T, userId, "c-paris", user("I live in Paris.", day(parisDay))));
        }
    }

    @Test
    void shouldKeepAnOlderValueArchivedWhenItArrivesAfterTheDeletionOfTheValueThatSupersededIt() {
        final String u = T + "/u-paris";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            lyonDeletedThenParis(pipeline, "u-paris", true, 0);

            assertThat(pipeline.consolidator().active(u)).as("Paris is not the current city")
                .noneMatch(m -> "city".equals(m.getKey()));
            assertThat(served(pipeline, u)).noneMatch(c -> c.contains("Paris"));
            assertThat(pipeline.retriever().profile(u).getFacts()).doesNotContainKey("city");
            final Memory paris = pipeline.consolidator().memories(u).stream().filter(m -> "city".equals(m.getKey()))
                .findFirst().orElseThrow(() -> new AssertionError("Paris, as history: " + pipeline.consolidator().memories(u)));
            assertThat(paris.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(paris.getValidTo()).as("until Lyon began").isEqualTo(Instant.parse(day(2)));
        }
    }

    /** The trial's order against a replay's (time order): the same memories, byte for byte, for a value dated before the deleted one. */
    @Test
    void shouldEndWithTheSameMemoriesWhenAnOlderValueOfADeletedFactIsAppliedInTimeOrder() {
        assertLiveEqualsReplay("u-paris-order", 0);
    }

    /**
     * A value dated after the deleted value began and before the deletion: in time order it supersedes the deleted value
     * and stays current (the deletion then removes a value that had ended), so live it is stored ACTIVE too.
     */
    @Test
    void shouldEndWithTheSameMemoriesWhenALaterValueOfADeletedFactArrivesAfterTheDeletion() {
        final List<Memory> live = assertLiveEqualsReplay("u-paris-later", 4);
        assertThat(live).anyMatch(m -> "city".equals(m.getKey()) && m.getStatus() == MemoryStatus.ACTIVE
            && m.getValidTo() == null && "Paris".equals(m.getValue()));
    }

    private static List<Memory> assertLiveEqualsReplay(final String userId, final int parisDay) {
        final String u = T + "/" + userId;
        final List<Memory> live;
        final List<Memory> replayed;
        try (PipelineHarness pipeline = new PipelineHarness()) {
            lyonDeletedThenParis(pipeline, userId, true, parisDay);
            live = pipeline.consolidator().memories(u);
        }
        try (PipelineHarness pipeline = new PipelineHarness()) {
            lyonDeletedThenParis(pipeline, userId, false, parisDay);
            replayed = pipeline.consolidator().memories(u);
        }
        assertThat(live).as("the live order").hasSizeGreaterThan(1);
        assertThat(replayed.stream().map(DeletionReproductionsTest::brief).sorted())
            .containsExactlyElementsOf(live.stream().map(DeletionReproductionsTest::brief).sorted().toList());
        assertThat(replayed).containsExactlyInAnyOrderElementsOf(live);
        return live;
    }

    /** @return a memory without its vector, for a readable difference */
    private static String brief(final Memory m) {
        return Memory.newBuilder(m).setEmbedding(List.of()).build().toString();
    }
}
