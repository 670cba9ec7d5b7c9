package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.engram.avro.CommandKind;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.Message;
import dev.engram.avro.UpdateOperation;
import dev.engram.avro.UserProfile;
import dev.engram.core.UserKey;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.MemoryExtractor;
import dev.engram.scoring.Vectors;
import dev.engram.testing.PipelineHarness;
import dev.engram.testing.RecordingVectorIndexFactory;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Cases 07, 08 and 09 (delete and erase everywhere, erase scoped to one user, erase with events in
 * flight), memory off, and correction, through extraction (a stub extractor), consolidation with a
 * recording vector-index stub, and the retriever's read model and scorer, on the {@link PipelineHarness}.
 */
class PrivacyCasesTest {

    private static final UserKey CARA = new UserKey("t1", "u-cara");
    private static final UserKey FAY = new UserKey("t1", "u-fay");

    private final RecordingVectorIndexFactory index = new RecordingVectorIndexFactory();
    private final EveryTurnExtractor extractor = new EveryTurnExtractor();
    private final PipelineHarness driver = PipelineHarness.builder().extractor(extractor).vectorIndex(index).build();

    @AfterEach
    void close() {
        driver.close();
    }

    @Test
    void shouldRemoveEveryCopyImmediatelyWhenAMemoryIsDeletedAndThenTheUserErased_case07() {
        final MemoryCandidate band = FedCandidates.fact("t1/u-cara", "c-1", "2025-05-02T10:00:00Z",
            "favourite_band", "The Lanterns", "Favourite band is The Lanterns");
        final MemoryCandidate city = FedCandidates.fact("t1/u-cara", "c-1", "2025-05-02T10:00:01Z",
            "city", "Porto", "Lives in Porto");
        final MemoryCandidate hike = FedCandidates.episodic("t1/u-cara", "c-2", "2025-05-02T10:05:00Z",
            "Hiked in Gerês on 2025-05-01");
        driver.pipe(band, city, hike);
        assertThat(driver.retriever().memories(CARA.wire())).hasSize(3);
        assertThat(index.points(CARA)).hasSize(3);

        driver.command(command(CARA, CommandKind.DELETE, city.getCandidateId(), "2025-06-01T00:00:00Z"));

        assertThat(driver.retriever().memories(CARA.wire())).extracting(Memory::getKey).doesNotContain("city");
        assertThat(driver.retriever().profile(CARA.wire()).getFacts()).doesNotContainKey("city").containsKey("favourite_band");
        assertThat(driver.retrieve(CARA.wire(), "where does she live?", 5)).noneSatisfy(
            hit -> assertThat(hit.memory().getContent()).containsIgnoringCase("Porto"));
        assertThat(index.has(CARA, city.getCandidateId())).isFalse();
        assertThat(driver.consolidator().memories(CARA.wire())).noneSatisfy(m -> assertThat(m.getContent()).contains("Porto"));

        driver.command(command(CARA, CommandKind.ERASE, null, "2025-06-01T00:01:00Z"));

        assertThat(driver.retriever().memories(CARA.wire())).isEmpty();
        assertThat(driver.retriever().profile(CARA.wire())).isNull();
        for (final String query : List.of("favourite band", "where does she live?", "hiking in Gerês")) {
            assertThat(driver.retrieve(CARA.wire(), query, 5)).as(query).isEmpty();
        }
        assertThat(index.points(CARA)).isEmpty();
        assertThat(driver.consolidator().memories(CARA.wire())).isEmpty();
        assertThat(driver.consolidator().profile(CARA.wire())).isNull();
        final List<TestRecord<String, UserProfile>> profileLog = driver.profileLog();
        assertThat(profileLog.get(profileLog.size() - 1).value()).as("tombstone on user-profiles").isNull();
        assertThat(profileLog.get(profileLog.size() - 1).key()).isEqualTo(CARA.wire());
        assertThat(driver.audits()).singleElement().satisfies(a -> {
            assertThat(a.getAction()).isEqualTo("user.erase.applied");
            assertThat(a.getOutcome()).isEqualTo("APPLIED");
            assertThat(a.toString()).doesNotContain("Porto", "Lanterns", "Gerês");
        });

        // A full replay of the candidates (and of the delete) brings nothing back.
        driver.pipe(band, city, hike);
        driver.command(command(CARA, CommandKind.DELETE, city.getCandidateId(), "2025-06-01T00:00:00Z"));
        assertThat(driver.retriever().memories(CARA.wire())).isEmpty();
        assertThat(driver.consolidator().memories(CARA.wire())).isEmpty();
        assertThat(index.points(CARA)).isEmpty();
    }

    @Test
    void shouldNotRecreateADeletedMemoryWhenItsCandidateIsRedelivered() {
        final MemoryCandidate city = FedCandidates.fact("t1/u-cara", "c-1", "2025-05-02T10:00:01Z",
            "city", "Porto", "Lives in Porto");
        driver.pipe(city);
        driver.command(command(CARA, CommandKind.DELETE, city.getCandidateId(), "2025-06-01T00:00:00Z"));
        driver.pipe(city);
        assertThat(driver.retriever().memories(CARA.wire())).isEmpty();
        assertThat(index.points(CARA)).isEmpty();
        assertThat(driver.consolidator().memories(CARA.wire())).singleElement().satisfies(marker -> {
            assertThat(marker.getStatus()).isEqualTo(MemoryStatus.DELETED);
            assertThat(marker.getContent()).isEmpty();
            assertThat(marker.getValue()).isNull();
            assertThat(marker.getEmbedding()).isEmpty();
        });
    }

    @Test
    void shouldEraseExactlyOneTenantUserWhenTheSameUserIdExistsElsewhere_case08() {
        for (final String user : List.of("t1/u-dan", "t1/u-eve", "t2/u-dan")) {
            driver.pipe(FedCandidates.fact(user, "c-1", "2025-05-01T09:00:00Z", "preferred_language", "Kotlin",
                    "Prefers Kotlin for backend work"),
                FedCandidates.episodic(user, "c-1", "2025-05-01T09:00:01Z", "Ran a half marathon in Lisbon"));
        }
        final UserKey dan = new UserKey("t1", "u-dan");
        driver.command(command(dan, CommandKind.ERASE, null, "2025-06-01T00:00:00Z"));

        assertThat(driver.retriever().memories(dan.wire())).isEmpty();
        assertThat(driver.consolidator().memories(dan.wire())).isEmpty();
        assertThat(index.points(dan)).isEmpty();
        for (final UserKey other : List.of(new UserKey("t1", "u-eve"), new UserKey("t2", "u-dan"))) {
            assertThat(driver.retriever().memories(other.wire())).as(other.wire()).hasSize(2);
            assertThat(index.points(other)).as(other.wire()).hasSize(2);
            assertThat(driver.retrieve(other.wire(), "Kotlin for backend work", 5)).extracting(h -> h.memory().getKey())
                .contains("preferred_language");
            assertThat(driver.retrieve(other.wire(), "half marathon", 5)).isNotEmpty();
        }
        assertThat(index.deletedUsers()).containsExactly(dan);
    }

    @Test
    void shouldKeepNothingFromEventsInFlightAtTheErasureButRememberLaterOnes_case09() {
        final List<TestRecord<String, MemoryCandidate>> inFlight = new ArrayList<>();
        // The three conversations are extracted, but their candidates wait (the latch) before consolidation.
        inFlight.addAll(driver.extract(conversation(FAY, "c-1", "I'm training for a triathlon", "2025-11-01T10:00:00Z")));
        inFlight.addAll(driver.extract(conversation(FAY, "c-2", "my partner is Joel", "2025-11-01T10:00:00Z")));
        inFlight.addAll(driver.extract(conversation(FAY, "c-3", "my dentist is Dr. Vale", "2025-11-01T10:00:00Z")));
        assertThat(inFlight).hasSize(3);

        driver.command(command(FAY, CommandKind.ERASE, null, "2025-11-01T10:01:00Z"));
        driver.consolidate(inFlight); // the latch is released; the pipeline drains
        driver.consolidate(driver.extract(conversation(FAY, "c-4", "I started learning cello", "2025-11-01T10:05:00Z")));

        assertThat(driver.retriever().memories(FAY.wire())).singleElement().satisfies(m -> assertThat(m.getContent()).contains("cello"));
        assertThat(driver.consolidator().memories(FAY.wire())).singleElement().satisfies(m -> assertThat(m.getContent()).contains("cello"));
        assertThat(index.points(FAY)).singleElement().satisfies(m -> assertThat(m.getContent()).contains("cello"));
        for (final String word : List.of("triathlon", "Joel", "Vale")) {
            assertThat(driver.retrieve(FAY.wire(), word, 5)).as(word).noneSatisfy(
                h -> assertThat(h.memory().getContent()).containsIgnoringCase(word));
        }
        assertThat(driver.retrieve(FAY.wire(), "cello", 5)).isNotEmpty();
        assertThat(driver.retriever().profile(FAY.wire()).getFacts()).isEmpty();
    }

    @Test
    void shouldStoreNothingWhileMemoryIsOffAndStartFreshWhenItIsTurnedBackOn() {
        driver.consolidate(driver.extract(conversation(FAY, "c-1", "I play the piano", "2025-11-01T09:00:00Z")));
        driver.command(settings(FAY, false, "2025-11-01T10:00:00Z"));
        assertThat(driver.retriever().profile(FAY.wire()).getMemoryEnabled()).isFalse();

        final int callsBefore = extractor.calls;
        assertThat(driver.extract(conversation(FAY, "c-2", "I keep bees on my roof", "2025-11-01T10:30:00Z"))).isEmpty();
        assertThat(extractor.calls).as("no extractor (LLM) call while memory is off").isEqualTo(callsBefore);
        // a candidate extracted before the switch reached the extractor is still dropped by the consolidator
        driver.pipe(FedCandidates.episodic("t1/u-fay", "c-2b", "2025-11-01T10:31:00Z", "I keep bees on my roof"));
        driver.command(settings(FAY, true, "2025-11-01T11:00:00Z"));
        // said while memory was off, delivered late: still not remembered
        driver.consolidate(driver.extract(conversation(FAY, "c-3", "I collect vinyl records", "2025-11-01T10:45:00Z")));
        driver.consolidate(driver.extract(conversation(FAY, "c-4", "I started learning cello", "2025-11-01T11:05:00Z")));

        assertThat(driver.retriever().profile(FAY.wire()).getMemoryEnabled()).isTrue();
        assertThat(driver.retriever().memories(FAY.wire())).extracting(Memory::getContent).allSatisfy(
            c -> assertThat(c).doesNotContain("bees", "vinyl")).anySatisfy(c -> assertThat(c).contains("cello"));
    }

    @Test
    void shouldMarkACorrectedMemoryCorrectedWithFullConfidence() {
        final MemoryCandidate city = FedCandidates.fact("t1/u-cara", "c-1", "2025-05-02T10:00:01Z",
            "city", "Porto", "Lives in Porto");
        driver.pipe(city);
        final float[] vector = ScriptRoutedEmbedder.defaults().embed("Lives in Braga");
        driver.command(MemoryCommand.newBuilder(command(CARA, CommandKind.CORRECT, city.getCandidateId(),
            "2025-06-01T00:00:00Z")).setContent("Lives in Braga").setValue("Braga")
            .setEmbedding(Vectors.toList(vector)).build());

        assertThat(driver.retriever().memories(CARA.wire())).singleElement().satisfies(m -> {
            assertThat(m.getSource()).isEqualTo(MemorySource.CORRECTED);
            assertThat(m.getConfidence()).isEqualTo(1.0);
            assertThat(m.getValue()).isEqualTo("Braga");
            assertThat(m.getContent()).isEqualTo("Lives in Braga");
        });
        assertThat(driver.retriever().profile(CARA.wire()).getFacts().get("city").getValue()).isEqualTo("Braga");
        assertThat(index.points(CARA)).singleElement().satisfies(m -> assertThat(m.getValue()).isEqualTo("Braga"));
        assertThat(driver.updates()).extracting(MemoryUpdated::getOperation).contains(UpdateOperation.CORRECTED);
    }

    private static MemoryCommand command(final UserKey user, final CommandKind kind, final String memoryId,
                                         final String issuedAt) {
        return MemoryCommand.newBuilder().setCommandId(kind + "-" + issuedAt).setTenantId(user.tenantId())
            .setUserId(user.userId()).setKind(kind).setMemoryId(memoryId).setContent(null).setValue(null)
            .setMemoryEnabled(null).setActor("test").setIssuedAt(Instant.parse(issuedAt)).build();
    }

    private static MemoryCommand settings(final UserKey user, final boolean enabled, final String issuedAt) {
        return MemoryCommand.newBuilder(command(user, CommandKind.SET_MEMORY_ENABLED, null, issuedAt))
            .setMemoryEnabled(enabled).build();
    }

    private static ConversationCompleted conversation(final UserKey user, final String id, final String text,
                                                      final String at) {
        final Instant time = Instant.parse(at);
        return ConversationCompleted.newBuilder().setTenantId(user.tenantId()).setUserId(user.userId())
            .setConversationId(id).setMessages(List.of(new Message(0, "user", text, time)))
            .setCompletedAt(time).build();
    }

    /** The extractor stub of case-09: every user turn becomes an episodic memory. */
    private static final class EveryTurnExtractor implements MemoryExtractor {
        private int calls;

        @Override
        public String name() {
            return "every-turn-stub";
        }

        @Override
        public List<ExtractedMemory> extract(final ConversationCompleted conversation, final UserProfile profile) {
            calls++;
            final List<ExtractedMemory> out = new ArrayList<>();
            for (final Message m : conversation.getMessages()) {
                if ("user".equals(m.getRole())) {
                    out.add(new ExtractedMemory(MemoryType.EPISODIC, null, null, null, null, m.getContent(), false,
                        0.6, 0.9, MemorySource.EXPLICIT, List.of(m.getIndex()), m.getTimestamp()));
                }
            }
            return out;
        }
    }

    static {
        Locale.setDefault(Locale.ROOT);
    }
}
