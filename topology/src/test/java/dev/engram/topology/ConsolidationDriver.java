package dev.engram.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import dev.engram.avro.ContradictionDetected;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryAccessed;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.embedded.EmbeddedVectorIndexFactory;
import dev.engram.embedded.KeyValueContradictionJudge;
import dev.engram.serde.AvroSerdes;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;

/**
 * A TopologyTestDriver over {@link ConsolidationTopology} with the embedded judge and index, a
 * private state directory, and readers for its stores and output topics. Output records are kept
 * in order of arrival: each {@code updated()} / {@code contradictions()} / {@code archived()} call
 * returns everything emitted so far.
 */
final class ConsolidationDriver implements AutoCloseable {

    final MeterRegistry registry = new SimpleMeterRegistry();
    private final Path stateDir;
    private final TopologyTestDriver driver;
    private final TestInputTopic<String, MemoryCandidate> candidates;
    private final TestInputTopic<String, byte[]> rawCandidates;
    private final TestInputTopic<String, MemoryAccessed> access;
    private final TestOutputTopic<String, MemoryUpdated> updatedTopic;
    private final TestOutputTopic<String, ContradictionDetected> contradictionsTopic;
    private final TestOutputTopic<String, MemoryArchived> archivedTopic;
    private final TestOutputTopic<String, byte[]> deadLetterTopic;
    private final List<TestRecord<String, MemoryUpdated>> updated = new ArrayList<>();
    private final List<TestRecord<String, ContradictionDetected>> contradictions = new ArrayList<>();
    private final List<TestRecord<String, MemoryArchived>> archived = new ArrayList<>();
    private final List<TestRecord<String, byte[]>> deadLetters = new ArrayList<>();

    ConsolidationDriver() {
        this(Map.of());
    }

    ConsolidationDriver(final Map<String, ?> overrides) {
        try {
            stateDir = Files.createTempDirectory("engram-consolidation-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        final EngramConfig config = EngramConfig.defaults().with(overrides)
            .with(Map.of(EngramConfig.STATE_DIR, stateDir.toString()));
        final Properties props = ConsolidationTopology.config(config);
        driver = new TopologyTestDriver(ConsolidationTopology.build(config, new KeyValueContradictionJudge(),
            new EmbeddedVectorIndexFactory(), registry), props);
        final StringSerializer keys = new StringSerializer();
        candidates = driver.createInputTopic(Topics.MEMORY_CANDIDATES, keys,
            AvroSerdes.serde(MemoryCandidate.class).serializer());
        rawCandidates = driver.createInputTopic(Topics.MEMORY_CANDIDATES, keys, new ByteArraySerializer());
        access = driver.createInputTopic(Topics.MEMORY_ACCESS, keys, AvroSerdes.serde(MemoryAccessed.class).serializer());
        final StringDeserializer keyReader = new StringDeserializer();
        updatedTopic = driver.createOutputTopic(Topics.MEMORY_UPDATED, keyReader,
            AvroSerdes.serde(MemoryUpdated.class).deserializer());
        contradictionsTopic = driver.createOutputTopic(Topics.MEMORY_CONTRADICTIONS, keyReader,
            AvroSerdes.serde(ContradictionDetected.class).deserializer());
        archivedTopic = driver.createOutputTopic(Topics.MEMORY_ARCHIVED, keyReader,
            AvroSerdes.serde(MemoryArchived.class).deserializer());
        deadLetterTopic = driver.createOutputTopic(Topics.deadLetter(Topics.CONSOLIDATOR_APP), keyReader,
            new org.apache.kafka.common.serialization.ByteArrayDeserializer());
    }

    TopologyTestDriver testDriver() {
        return driver;
    }

    /** Pipes candidates keyed by their user key, each with its event time as record timestamp. */
    ConsolidationDriver pipe(final MemoryCandidate... values) {
        for (final MemoryCandidate value : values) {
            candidates.pipeInput(new TestRecord<>(value.getTenantId() + "/" + value.getUserId(), value,
                value.getEventTime()));
        }
        return this;
    }

    /** Pipes a record as given (key, value and timestamp explicit). */
    ConsolidationDriver pipe(final String key, final MemoryCandidate value, final Instant timestamp) {
        candidates.pipeInput(new TestRecord<>(key, value, timestamp));
        return this;
    }

    /**
     * Pipes one retrieval hit report, as the retriever publishes it.
     *
     * @param user {@code tenant/user}
     * @param at when the memories were returned
     * @param memoryIds the memories returned (may be empty: then only stream time advances)
     * @return this driver
     */
    ConsolidationDriver access(final String user, final Instant at, final String... memoryIds) {
        final UserKey key = UserKey.parse(user);
        access.pipeInput(new TestRecord<>(user, MemoryAccessed.newBuilder().setTenantId(key.tenantId())
            .setUserId(key.userId()).setMemoryIds(List.of(memoryIds)).setAccessedAt(at).build(), at));
        return this;
    }

    /**
     * Advances the task's stream time (and so fires due lifecycle punctuations) without changing
     * any memory: an empty access report of an unrelated user at that time.
     *
     * @param at the new stream time
     * @return this driver
     */
    ConsolidationDriver advanceTo(final Instant at) {
        return access("t1/u-clock", at);
    }

    /** Pipes raw bytes, e.g. a byte-for-byte redelivery. */
    ConsolidationDriver pipeBytes(final String key, final byte[] value, final Instant timestamp) {
        rawCandidates.pipeInput(new TestRecord<>(key, value, timestamp));
        return this;
    }

    /** @return the whole memories store, store key → Memory, sorted */
    Map<String, Memory> memoriesStore() {
        final KeyValueStore<String, Memory> store = driver.getKeyValueStore(Stores.MEMORIES);
        final Map<String, Memory> out = new TreeMap<>();
        try (KeyValueIterator<String, Memory> it = store.all()) {
            it.forEachRemaining(kv -> out.put(kv.key, kv.value));
        }
        return out;
    }

    /** @return the whole profiles store, sorted */
    Map<String, UserProfile> profilesStore() {
        final KeyValueStore<String, UserProfile> store = driver.getKeyValueStore(Stores.PROFILES);
        final Map<String, UserProfile> out = new TreeMap<>();
        try (KeyValueIterator<String, UserProfile> it = store.all()) {
            it.forEachRemaining(kv -> out.put(kv.key, kv.value));
        }
        return out;
    }

    /** @return every memory of the user, every status, by memory id */
    List<Memory> memories(final String user) {
        final KeyValueStore<String, Memory> store = driver.getKeyValueStore(Stores.MEMORIES);
        final List<Memory> out = new ArrayList<>();
        try (KeyValueIterator<String, Memory> it = store.prefixScan(UserKey.parse(user).storePrefix(),
            new StringSerializer())) {
            it.forEachRemaining(kv -> out.add(kv.value));
        }
        return out;
    }

    /** @return the user's ACTIVE memories */
    List<Memory> active(final String user) {
        return memories(user).stream().filter(m -> m.getStatus() == MemoryStatus.ACTIVE).toList();
    }

    /** @return the memory with this id */
    Memory memory(final String user, final String memoryId) {
        final KeyValueStore<String, Memory> store = driver.getKeyValueStore(Stores.MEMORIES);
        return store.get(UserKey.parse(user).storeKey(memoryId));
    }

    /** @return the user's profile, or null */
    UserProfile profile(final String user) {
        final KeyValueStore<String, UserProfile> store = driver.getKeyValueStore(Stores.PROFILES);
        return store.get(user);
    }

    /** @return every memory-updated record so far */
    List<TestRecord<String, MemoryUpdated>> updated() {
        updated.addAll(updatedTopic.readRecordsToList());
        return List.copyOf(updated);
    }

    /** @return every memory-contradictions record so far */
    List<TestRecord<String, ContradictionDetected>> contradictions() {
        contradictions.addAll(contradictionsTopic.readRecordsToList());
        return List.copyOf(contradictions);
    }

    /** @return every memory-archived record so far */
    List<TestRecord<String, MemoryArchived>> archived() {
        archived.addAll(archivedTopic.readRecordsToList());
        return List.copyOf(archived);
    }

    /** @return every dead-letter record so far */
    List<TestRecord<String, byte[]>> deadLetters() {
        deadLetters.addAll(deadLetterTopic.readRecordsToList());
        return List.copyOf(deadLetters);
    }

    /** @return the values of every memory-updated record so far, as (memory id, operation) */
    List<KeyValue<String, String>> operations() {
        return updated().stream()
            .map(r -> KeyValue.pair(r.value().getMemoryId(), r.value().getOperation().name())).toList();
    }

    @Override
    public void close() {
        driver.close();
        try (var paths = Files.walk(stateDir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a leftover temp directory is harmless
        }
    }
}
