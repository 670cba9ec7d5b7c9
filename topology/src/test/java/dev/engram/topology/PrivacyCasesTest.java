package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.engram.avro.AuditRecord;
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
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.embedded.KeyValueContradictionJudge;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.MemoryExtractor;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.ScoredMemory;
import dev.engram.scoring.Vectors;
import dev.engram.serde.AvroSerdes;
import dev.engram.testing.RecordingVectorIndexFactory;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Cases 07, 08 and 09 (delete and erase everywhere, erase scoped to one user, erase with events in
 * flight), memory off, and correction, through extraction (a stub extractor), consolidation with a
 * recording vector-index stub, and the retriever's read model and scorer, on TopologyTestDriver.
 */
class PrivacyCasesTest {

    private static final UserKey CARA = new UserKey("t1", "u-cara");
    private static final UserKey FAY = new UserKey("t1", "u-fay");

    private final Driver driver = new Driver();

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
        driver.candidates(band, city, hike);
        assertThat(driver.readModel(CARA)).hasSize(3);
        assertThat(driver.index.points(CARA)).hasSize(3);

        driver.command(command(CARA, CommandKind.DELETE, city.getCandidateId(), "2025-06-01T00:00:00Z"));

        assertThat(driver.readModel(CARA)).extracting(Memory::getKey).doesNotContain("city");
        assertThat(driver.profile(CARA).getFacts()).doesNotContainKey("city").containsKey("favourite_band");
        assertThat(driver.retrieve(CARA, "where does she live?")).noneSatisfy(
            hit -> assertThat(hit.memory().getContent()).containsIgnoringCase("Porto"));
        assertThat(driver.index.has(CARA, city.getCandidateId())).isFalse();
        assertThat(driver.consolidatorStore(CARA)).noneSatisfy(m -> assertThat(m.getContent()).contains("Porto"));

        driver.command(command(CARA, CommandKind.ERASE, null, "2025-06-01T00:01:00Z"));

        assertThat(driver.readModel(CARA)).isEmpty();
        assertThat(driver.profile(CARA)).isNull();
        for (final String query : List.of("favourite band", "where does she live?", "hiking in Gerês")) {
            assertThat(driver.retrieve(CARA, query)).as(query).isEmpty();
        }
        assertThat(driver.index.points(CARA)).isEmpty();
        assertThat(driver.consolidatorStore(CARA)).isEmpty();
        assertThat(driver.consolidatorProfile(CARA)).isNull();
        assertThat(driver.profileLog.get(driver.profileLog.size() - 1).value()).as("tombstone on user-profiles").isNull();
        assertThat(driver.profileLog.get(driver.profileLog.size() - 1).key()).isEqualTo(CARA.wire());
        assertThat(driver.audits).singleElement().satisfies(a -> {
            assertThat(a.getAction()).isEqualTo("user.erase.applied");
            assertThat(a.getOutcome()).isEqualTo("APPLIED");
            assertThat(a.toString()).doesNotContain("Porto", "Lanterns", "Gerês");
        });

        // A full replay of the candidates (and of the delete) brings nothing back.
        driver.candidates(band, city, hike);
        driver.command(command(CARA, CommandKind.DELETE, city.getCandidateId(), "2025-06-01T00:00:00Z"));
        assertThat(driver.readModel(CARA)).isEmpty();
        assertThat(driver.consolidatorStore(CARA)).isEmpty();
        assertThat(driver.index.points(CARA)).isEmpty();
    }

    @Test
    void shouldNotRecreateADeletedMemoryWhenItsCandidateIsRedelivered() {
        final MemoryCandidate city = FedCandidates.fact("t1/u-cara", "c-1", "2025-05-02T10:00:01Z",
            "city", "Porto", "Lives in Porto");
        driver.candidates(city);
        driver.command(command(CARA, CommandKind.DELETE, city.getCandidateId(), "2025-06-01T00:00:00Z"));
        driver.candidates(city);
        assertThat(driver.readModel(CARA)).isEmpty();
        assertThat(driver.index.points(CARA)).isEmpty();
        assertThat(driver.consolidatorStore(CARA)).singleElement().satisfies(marker -> {
            assertThat(marker.getStatus()).isEqualTo(MemoryStatus.DELETED);
            assertThat(marker.getContent()).isEmpty();
            assertThat(marker.getValue()).isNull();
            assertThat(marker.getEmbedding()).isEmpty();
        });
    }

    @Test
    void shouldEraseExactlyOneTenantUserWhenTheSameUserIdExistsElsewhere_case08() {
        for (final String user : List.of("t1/u-dan", "t1/u-eve", "t2/u-dan")) {
            driver.candidates(FedCandidates.fact(user, "c-1", "2025-05-01T09:00:00Z", "preferred_language", "Kotlin",
                    "Prefers Kotlin for backend work"),
                FedCandidates.episodic(user, "c-1", "2025-05-01T09:00:01Z", "Ran a half marathon in Lisbon"));
        }
        final UserKey dan = new UserKey("t1", "u-dan");
        driver.command(command(dan, CommandKind.ERASE, null, "2025-06-01T00:00:00Z"));

        assertThat(driver.readModel(dan)).isEmpty();
        assertThat(driver.consolidatorStore(dan)).isEmpty();
        assertThat(driver.index.points(dan)).isEmpty();
        for (final UserKey other : List.of(new UserKey("t1", "u-eve"), new UserKey("t2", "u-dan"))) {
            assertThat(driver.readModel(other)).as(other.wire()).hasSize(2);
            assertThat(driver.index.points(other)).as(other.wire()).hasSize(2);
            assertThat(driver.retrieve(other, "Kotlin for backend work")).extracting(h -> h.memory().getKey())
                .contains("preferred_language");
            assertThat(driver.retrieve(other, "half marathon")).isNotEmpty();
        }
        assertThat(driver.index.deletedUsers()).containsExactly(dan);
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

        assertThat(driver.readModel(FAY)).singleElement().satisfies(m -> assertThat(m.getContent()).contains("cello"));
        assertThat(driver.consolidatorStore(FAY)).singleElement().satisfies(m -> assertThat(m.getContent()).contains("cello"));
        assertThat(driver.index.points(FAY)).singleElement().satisfies(m -> assertThat(m.getContent()).contains("cello"));
        for (final String word : List.of("triathlon", "Joel", "Vale")) {
            assertThat(driver.retrieve(FAY, word)).as(word).noneSatisfy(
                h -> assertThat(h.memory().getContent()).containsIgnoringCase(word));
        }
        assertThat(driver.retrieve(FAY, "cello")).isNotEmpty();
        assertThat(driver.profile(FAY).getFacts()).isEmpty();
    }

    @Test
    void shouldStoreNothingWhileMemoryIsOffAndStartFreshWhenItIsTurnedBackOn() {
        driver.consolidate(driver.extract(conversation(FAY, "c-1", "I play the piano", "2025-11-01T09:00:00Z")));
        driver.command(settings(FAY, false, "2025-11-01T10:00:00Z"));
        assertThat(driver.profile(FAY).getMemoryEnabled()).isFalse();

        final int callsBefore = driver.extractor.calls;
        assertThat(driver.extract(conversation(FAY, "c-2", "I keep bees on my roof", "2025-11-01T10:30:00Z"))).isEmpty();
        assertThat(driver.extractor.calls).as("no extractor (LLM) call while memory is off").isEqualTo(callsBefore);
        // a candidate extracted before the switch reached the extractor is still dropped by the consolidator
        driver.candidates(FedCandidates.episodic("t1/u-fay", "c-2b", "2025-11-01T10:31:00Z", "I keep bees on my roof"));
        driver.command(settings(FAY, true, "2025-11-01T11:00:00Z"));
        // said while memory was off, delivered late: still not remembered
        driver.consolidate(driver.extract(conversation(FAY, "c-3", "I collect vinyl records", "2025-11-01T10:45:00Z")));
        driver.consolidate(driver.extract(conversation(FAY, "c-4", "I started learning cello", "2025-11-01T11:05:00Z")));

        assertThat(driver.profile(FAY).getMemoryEnabled()).isTrue();
        assertThat(driver.readModel(FAY)).extracting(Memory::getContent).allSatisfy(
            c -> assertThat(c).doesNotContain("bees", "vinyl")).anySatisfy(c -> assertThat(c).contains("cello"));
    }

    @Test
    void shouldMarkACorrectedMemoryCorrectedWithFullConfidence() {
        final MemoryCandidate city = FedCandidates.fact("t1/u-cara", "c-1", "2025-05-02T10:00:01Z",
            "city", "Porto", "Lives in Porto");
        driver.candidates(city);
        final float[] vector = ScriptRoutedEmbedder.defaults().embed("Lives in Braga");
        driver.command(MemoryCommand.newBuilder(command(CARA, CommandKind.CORRECT, city.getCandidateId(),
            "2025-06-01T00:00:00Z")).setContent("Lives in Braga").setValue("Braga")
            .setEmbedding(Vectors.toList(vector)).build());

        assertThat(driver.readModel(CARA)).singleElement().satisfies(m -> {
            assertThat(m.getSource()).isEqualTo(MemorySource.CORRECTED);
            assertThat(m.getConfidence()).isEqualTo(1.0);
            assertThat(m.getValue()).isEqualTo("Braga");
            assertThat(m.getContent()).isEqualTo("Lives in Braga");
        });
        assertThat(driver.profile(CARA).getFacts().get("city").getValue()).isEqualTo("Braga");
        assertThat(driver.index.points(CARA)).singleElement().satisfies(m -> assertThat(m.getValue()).isEqualTo("Braga"));
        assertThat(driver.updates).extracting(MemoryUpdated::getOperation).contains(UpdateOperation.CORRECTED);
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

    /** Extraction → consolidation (recording index) → read model, record by record. */
    private static final class Driver implements AutoCloseable {
        private final Path stateDir;
        private final RecordingVectorIndexFactory index = new RecordingVectorIndexFactory();
        private final TopologyTestDriver extraction;
        private final TopologyTestDriver consolidation;
        private final TopologyTestDriver retrieval;
        private final TestInputTopic<String, ConversationCompleted> conversations;
        private final TestOutputTopic<String, MemoryCandidate> extracted;
        private final TestInputTopic<String, MemoryCandidate> candidatesIn;
        private final TestInputTopic<String, MemoryCommand> commandsIn;
        private final TestOutputTopic<String, MemoryUpdated> updatedOut;
        private final TestOutputTopic<String, AuditRecord> auditOut;
        private final TestInputTopic<String, MemoryUpdated> updatedIn;
        private final TestOutputTopic<String, UserProfile> profilesOut;
        private final TestInputTopic<String, UserProfile> profilesIn;
        private final EveryTurnExtractor extractor = new EveryTurnExtractor();
        private final HybridScorer scorer;
        private final List<MemoryUpdated> updates = new ArrayList<>();
        private final List<AuditRecord> audits = new ArrayList<>();
        private final List<TestRecord<String, UserProfile>> profileLog = new ArrayList<>();

        Driver() {
            try {
                stateDir = Files.createTempDirectory("engram-privacy-test");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            final EngramConfig config = EngramConfig.defaults().with(Map.of(EngramConfig.STATE_DIR, stateDir.toString()));
            final SimpleMeterRegistry registry = new SimpleMeterRegistry();
            extraction = new TopologyTestDriver(ExtractionTopology.build(config, extractor,
                ScriptRoutedEmbedder.defaults(), registry), ExtractionTopology.config(config));
            consolidation = new TopologyTestDriver(ConsolidationTopology.build(config, new KeyValueContradictionJudge(),
                index, registry), ConsolidationTopology.config(config));
            retrieval = new TopologyTestDriver(RetrievalTopology.build(config), RetrievalTopology.config(config));
            final StringSerializer keys = new StringSerializer();
            final StringDeserializer keyReader = new StringDeserializer();
            conversations = extraction.createInputTopic(Topics.CONVERSATIONS_COMPLETED, keys,
                AvroSerdes.serde(ConversationCompleted.class).serializer());
            extracted = extraction.createOutputTopic(Topics.MEMORY_CANDIDATES, keyReader,
                AvroSerdes.serde(MemoryCandidate.class).deserializer());
            candidatesIn = consolidation.createInputTopic(Topics.MEMORY_CANDIDATES, keys,
                AvroSerdes.serde(MemoryCandidate.class).serializer());
            commandsIn = consolidation.createInputTopic(Topics.MEMORY_COMMANDS, keys,
                AvroSerdes.serde(MemoryCommand.class).serializer());
            updatedOut = consolidation.createOutputTopic(Topics.MEMORY_UPDATED, keyReader,
                AvroSerdes.serde(MemoryUpdated.class).deserializer());
            auditOut = consolidation.createOutputTopic(Topics.MEMORY_AUDIT, keyReader,
                AvroSerdes.serde(AuditRecord.class).deserializer());
            updatedIn = retrieval.createInputTopic(Topics.MEMORY_UPDATED, keys,
                AvroSerdes.serde(MemoryUpdated.class).serializer());
            profilesOut = consolidation.createOutputTopic(Topics.USER_PROFILES, keyReader,
                AvroSerdes.serde(UserProfile.class).deserializer());
            profilesIn = extraction.createInputTopic(Topics.USER_PROFILES, keys,
                AvroSerdes.serde(UserProfile.class).serializer());
            scorer = new HybridScorer(ScriptRoutedEmbedder.defaults(), config);
        }

        List<TestRecord<String, MemoryCandidate>> extract(final ConversationCompleted c) {
            conversations.pipeInput(new UserKey(c.getTenantId(), c.getUserId()).wire(), c, c.getCompletedAt());
            return extracted.readRecordsToList();
        }

        void candidates(final MemoryCandidate... candidates) {
            final List<TestRecord<String, MemoryCandidate>> records = new ArrayList<>();
            for (final MemoryCandidate c : candidates) {
                records.add(new TestRecord<>(c.getTenantId() + "/" + c.getUserId(), c, c.getEventTime()));
            }
            consolidate(records);
        }

        void consolidate(final List<TestRecord<String, MemoryCandidate>> records) {
            for (final TestRecord<String, MemoryCandidate> r : records) {
                candidatesIn.pipeInput(r);
                flow();
            }
        }

        void command(final MemoryCommand command) {
            commandsIn.pipeInput(command.getTenantId() + "/" + command.getUserId(), command, command.getIssuedAt());
            flow();
        }

        private void flow() {
            for (final TestRecord<String, MemoryUpdated> u : updatedOut.readRecordsToList()) {
                updates.add(u.value());
                updatedIn.pipeInput(u);
            }
            audits.addAll(auditOut.readValuesToList());
            for (final TestRecord<String, UserProfile> p : profilesOut.readRecordsToList()) {
                profileLog.add(p);
                profilesIn.pipeInput(p);
            }
        }

        List<Memory> readModel(final UserKey user) {
            return scan(retrieval.getKeyValueStore(Stores.RETRIEVER_MEMORIES), user);
        }

        List<Memory> consolidatorStore(final UserKey user) {
            return scan(consolidation.getKeyValueStore(Stores.MEMORIES), user);
        }

        UserProfile profile(final UserKey user) {
            return retrieval.<String, UserProfile>getKeyValueStore(Stores.RETRIEVER_PROFILES).get(user.wire());
        }

        UserProfile consolidatorProfile(final UserKey user) {
            return consolidation.<String, UserProfile>getKeyValueStore(Stores.PROFILES).get(user.wire());
        }

        List<ScoredMemory> retrieve(final UserKey user, final String query) {
            return scorer.rank(query, readModel(user), 5);
        }

        private static List<Memory> scan(final KeyValueStore<String, Memory> store, final UserKey user) {
            final List<Memory> out = new ArrayList<>();
            try (KeyValueIterator<String, Memory> it = store.prefixScan(user.storePrefix(), new StringSerializer())) {
                it.forEachRemaining(kv -> out.add(kv.value));
            }
            return out;
        }

        @Override
        public void close() {
            extraction.close();
            consolidation.close();
            retrieval.close();
            try (var files = Files.walk(stateDir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // best effort
            }
        }
    }

    static {
        Locale.setDefault(Locale.ROOT);
    }
}
