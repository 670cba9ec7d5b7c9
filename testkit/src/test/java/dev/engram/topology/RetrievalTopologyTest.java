package dev.engram.topology;

import static dev.engram.testing.MemoryFixtures.erased;
import static dev.engram.testing.MemoryFixtures.fact;
import static dev.engram.testing.MemoryFixtures.memory;
import static dev.engram.testing.MemoryFixtures.updated;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.scoring.SearchIndexes;
import dev.engram.core.UserKey;
import dev.engram.serde.AvroSerdes;
import dev.engram.streams.PipelineConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

class RetrievalTopologyTest {

    private static final Instant T0 = Instant.parse("2025-04-01T07:00:00Z");
    private static final UserKey ANA = new UserKey("t1", "u-ana");
    private static final UserKey BEN = new UserKey("t1", "u-ben");

    private TopologyTestDriver driver;
    private TestInputTopic<String, MemoryUpdated> input;
    private KeyValueStore<String, Memory> memories;
    private KeyValueStore<String, UserProfile> profiles;

    @BeforeEach
    void setUp() throws Exception {
        final EngramConfig config = EngramConfig.plain().with(Map.of(PipelineConfig.STATE_DIR,
            Files.createTempDirectory("retrieval-ttd").toString()));
        final Properties props = RetrievalTopology.config(config);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "dummy:9092");
        driver = new TopologyTestDriver(RetrievalTopology.build(config), props);
        input = driver.createInputTopic(Topic.MEMORY_UPDATED.name(), Serdes.String().serializer(),
            AvroSerdes.serde(MemoryUpdated.class).serializer());
        memories = driver.getKeyValueStore(StoreNames.RETRIEVER_MEMORIES);
        profiles = driver.getKeyValueStore(StoreNames.RETRIEVER_PROFILES);
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    private void send(final MemoryUpdated event) {
        input.pipeInput(event.getTenantId() + "/" + event.getUserId(), event, event.getEventTime());
    }

    private List<Memory> scan(final UserKey user) {
        final List<Memory> out = new ArrayList<>();
        try (KeyValueIterator<String, Memory> it = memories.prefixScan(user.storePrefix(),
            Serdes.String().serializer())) {
            it.forEachRemaining(kv -> out.add(kv.value));
        }
        return out;
    }

    @Test
    void shouldKeepTheLatestStateOfEachMemoryWhenUpdated() {
        final Memory created = fact("t1", "u-ana", "m1", FactCategory.TECHNICAL, "ide", "IntelliJ",
            "Uses IntelliJ", T0);
        send(updated(created, UpdateOperation.CREATED, T0));
        final Instant t1 = T0.plusSeconds(3600);
        // reinforcing adds the source that restated it (MemoryWrites#reinforce)
        final Memory reinforced = Memory.newBuilder(created).setReinforcementCount(2).setUpdatedAt(t1)
            .setSources(List.of(created.getSources().get(0), SourceRef.newBuilder().setConversationId("c-m1-again")
                .setMessageIndexes(List.of(0)).setObservedAt(t1).build())).build();
        send(updated(reinforced, UpdateOperation.REINFORCED, t1));

        assertThat(scan(ANA)).singleElement().satisfies(m -> {
            assertThat(m.getReinforcementCount()).isEqualTo(2);
            assertThat(m.getUpdatedAt()).isEqualTo(t1);
        });
        final UserProfile profile = profiles.get(ANA.wire());
        assertThat(profile.getActiveMemories()).isEqualTo(1);
        assertThat(profile.getFacts()).containsKey("ide");
        assertThat(profile.getFacts().get("ide").getValue()).isEqualTo("IntelliJ");
        assertThat(profile.getFirstInteractionAt()).isEqualTo(T0);
        assertThat(profile.getLastInteractionAt()).isEqualTo(t1);
    }

    @Test
    void shouldKeepTheLastInteractionAtTheUsersOwnMessageWhenARegroupingStampsItsWriteLater() {
        final Memory created = fact("t1", "u-ana", "m1", FactCategory.PERSONAL, "pet:rex", "Rex",
            "Has a dog named Rex", T0);
        send(updated(created, UpdateOperation.CREATED, T0));
        // the consolidator task's clock follows the latest record of any of its users: a regrouping a month later
        // (another user's conversation) writes an observation citing only Ana's message of T0
        final Instant later = T0.plusSeconds(30L * 86_400);
        final Memory observation = memory("t1", "u-ana", "obs-1", "Has a dog named Rex.", T0)
            .setDisplayName("Observation").setUpdatedAt(later).build();
        send(updated(observation, UpdateOperation.CREATED, later));

        final UserProfile profile = profiles.get(ANA.wire());
        assertThat(profile.getActiveMemories()).isEqualTo(2);
        assertThat(profile.getFirstInteractionAt()).isEqualTo(T0);
        assertThat(profile.getLastInteractionAt()).isEqualTo(T0);
    }

    @Test
    void shouldScopeThePrefixScanToOneUserWhenTwoUsersShareAConversationId() {
        send(updated(memory("t1", "u-ana", "m-ana", "My gym locker code is 4417.", T0).build(),
            UpdateOperation.CREATED, T0));
        send(updated(memory("t1", "u-ben", "m-ben", "Ben asked about his locker code.", T0).build(),
            UpdateOperation.CREATED, T0.plusSeconds(300)));
        // a user whose id starts with another's must not leak into the prefix scan either
        send(updated(memory("t1", "u-ana2", "m-ana2", "Other user", T0).build(), UpdateOperation.CREATED, T0));

        assertThat(scan(ANA)).extracting(Memory::getMemoryId).containsExactly("m-ana");
        assertThat(scan(BEN)).extracting(Memory::getMemoryId).containsExactly("m-ben");
    }

    @Test
    void shouldArchiveInPlaceAndMoveTheFactWhenSuperseded() {
        final Memory aws = fact("t1", "u-ana", "m-aws", FactCategory.TECHNICAL, "cloud_provider", "AWS",
            "Uses AWS", T0);
        send(updated(aws, UpdateOperation.CREATED, T0));
        final Instant t1 = T0.plusSeconds(86_400);
        final Memory gcp = fact("t1", "u-ana", "m-gcp", FactCategory.TECHNICAL, "cloud_provider", "GCP",
            "Moved to GCP", t1);
        send(updated(Memory.newBuilder(aws).setStatus(MemoryStatus.ARCHIVED).setSupersededBy("m-gcp")
            .setValidTo(t1).setUpdatedAt(t1).build(), UpdateOperation.SUPERSEDED, t1));
        send(updated(gcp, UpdateOperation.CREATED, t1));

        assertThat(scan(ANA)).extracting(Memory::getMemoryId, Memory::getStatus)
            .containsExactlyInAnyOrder(tuple("m-aws", MemoryStatus.ARCHIVED), tuple("m-gcp", MemoryStatus.ACTIVE));
        final UserProfile profile = profiles.get(ANA.wire());
        assertThat(profile.getFacts().get("cloud_provider").getValue()).isEqualTo("GCP");
        assertThat(profile.getActiveMemories()).isEqualTo(1);
        assertThat(profile.getArchivedMemories()).isEqualTo(1);
    }

    @Test
    void shouldRemoveTheEntryWhenDeleted() {
        final Memory m = memory("t1", "u-ana", "m1", "Likes hiking", T0).build();
        send(updated(m, UpdateOperation.CREATED, T0));
        send(updated(Memory.newBuilder(m).setStatus(MemoryStatus.DELETED).build(), UpdateOperation.DELETED,
            T0.plusSeconds(1)));

        assertThat(scan(ANA)).isEmpty();
        assertThat(profiles.get(ANA.wire()).getActiveMemories()).isZero();
    }

    @Test
    void shouldRemoveEverythingOfTheUserOnlyWhenErased() {
        send(updated(memory("t1", "u-ana", "m1", "Likes hiking", T0).build(), UpdateOperation.CREATED, T0));
        send(updated(memory("t1", "u-ana", "m2", "Lives in Lisbon", T0).build(), UpdateOperation.CREATED, T0));
        send(updated(memory("t1", "u-ben", "m3", "Likes chess", T0).build(), UpdateOperation.CREATED, T0));
        send(erased("t1", "u-ana", T0.plusSeconds(10)));

        assertThat(scan(ANA)).isEmpty();
        assertThat(profiles.get(ANA.wire())).isNull();
        assertThat(scan(BEN)).hasSize(1);
        assertThat(profiles.get(BEN.wire())).isNotNull();
    }

    @Test
    void shouldFoldTheSameStoresWhenItKeepsNoSearchStructures() throws Exception {
        // bin/engram rebuild's read model (SearchIndexes.none()): a memory's previous state comes from the store, not the
        // index; what the stores end with must not depend on it (the profile fold reads the previous status and key)
        final Memory aws = fact("t1", "u-ana", "m-aws", FactCategory.TECHNICAL, "cloud_provider", "AWS", "Uses AWS", T0);
        final Instant t1 = T0.plusSeconds(86_400);
        final Memory gcp = fact("t1", "u-ana", "m-gcp", FactCategory.TECHNICAL, "cloud_provider", "GCP", "Moved to GCP", t1);
        final Memory hiking = memory("t1", "u-ben", "m-hike", "Likes hiking", T0).build();
        final List<MemoryUpdated> events = List.of(updated(aws, UpdateOperation.CREATED, T0),
            updated(hiking, UpdateOperation.CREATED, T0),
            updated(Memory.newBuilder(aws).setReinforcementCount(2).setUpdatedAt(T0.plusSeconds(60)).build(),
                UpdateOperation.REINFORCED, T0.plusSeconds(60)),
            updated(Memory.newBuilder(aws).setStatus(MemoryStatus.ARCHIVED).setSupersededBy("m-gcp").setValidTo(t1)
                .setUpdatedAt(t1).build(), UpdateOperation.SUPERSEDED, t1),
            updated(gcp, UpdateOperation.CREATED, t1),
            updated(Memory.newBuilder(hiking).setStatus(MemoryStatus.DELETED).build(), UpdateOperation.DELETED,
                t1.plusSeconds(1)),
            updated(memory("t1", "u-cy", "m-cy", "Lives in Lisbon", T0).build(), UpdateOperation.CREATED, T0),
            erased("t1", "u-cy", t1));

        assertThat(folded(SearchIndexes.none(), events)).isEqualTo(folded(new SearchIndexes(), events))
            .satisfies(stores -> assertThat(stores).containsKey(StoreNames.RETRIEVER_PROFILES + ":" + ANA.wire()));
    }

    /** Every entry of the memories and profiles stores after the events, as store:key → value. */
    private static Map<String, Object> folded(final SearchIndexes indexes, final List<MemoryUpdated> events)
        throws Exception {
        final EngramConfig config = EngramConfig.plain().with(Map.of(PipelineConfig.STATE_DIR,
            Files.createTempDirectory("retrieval-ttd").toString()));
        final Properties props = RetrievalTopology.config(config);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "dummy:9092");
        final Map<String, Object> out = new TreeMap<>();
        try (TopologyTestDriver ttd = new TopologyTestDriver(RetrievalTopology.build(config, indexes), props)) {
            final TestInputTopic<String, MemoryUpdated> in = ttd.createInputTopic(Topic.MEMORY_UPDATED.name(),
                Serdes.String().serializer(), AvroSerdes.serde(MemoryUpdated.class).serializer());
            events.forEach(e -> in.pipeInput(e.getTenantId() + "/" + e.getUserId(), e, e.getEventTime()));
            for (final String store : List.of(StoreNames.RETRIEVER_MEMORIES, StoreNames.RETRIEVER_PROFILES)) {
                try (KeyValueIterator<String, Object> it = ttd.<String, Object>getKeyValueStore(store).all()) {
                    it.forEachRemaining(kv -> out.put(store + ":" + kv.key, kv.value));
                }
            }
        }
        return out;
    }

    @Test
    void shouldNameEveryNodeAndStoreWhenDescribed() {
        final String description = RetrievalTopology.build(EngramConfig.plain()).describe().toString();
        assertThat(description).contains("Source: read-memory-updated (topics: [memory-updated])")
            .contains("Processor: materialize-memories (stores: [")
            .contains(StoreNames.RETRIEVER_MEMORIES).contains(StoreNames.RETRIEVER_PROFILES)
            .contains("Source: read-memory-access (topics: [memory-access])")
            .contains("Processor: count-memory-access (stores: [").contains(StoreNames.RETRIEVER_ACCESS);
    }

    @Test
    void shouldAdvertiseTheHttpEndpointWhenPropertiesAreBuilt() {
        final Properties props = RetrievalTopology.config(EngramConfig.plain().with(Map.of(
            PipelineConfig.RETRIEVER_HTTP_HOST, "retriever-0", PipelineConfig.RETRIEVER_HTTP_PORT, 9999)));
        assertThat(props.get(StreamsConfig.APPLICATION_SERVER_CONFIG)).isEqualTo("retriever-0:9999");
        assertThat(props.get(StreamsConfig.APPLICATION_ID_CONFIG)).isEqualTo(AppIds.RETRIEVER);
    }
}
