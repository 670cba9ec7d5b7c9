package dev.engram.topology;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import dev.engram.avro.Memory;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.consolidation.Consolidator;
import dev.engram.consolidation.ConsolidatorSettings;
import dev.engram.consolidation.MemoryLifecycle;
import dev.engram.consolidation.Observations;
import dev.engram.crypto.PersonalSerdes;
import dev.engram.domain.DomainConfig;
import dev.engram.port.ContradictionJudge;
import dev.engram.port.Embedder;
import dev.engram.port.MemoryMerger;
import dev.engram.port.VectorIndexFactory;
import dev.engram.scoring.AccessCounts;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import dev.engram.profile.ProfileProjection;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * The consolidation topology: candidates, commands and access events → memory state,
 * {@code memory-updated}, {@code memory-contradictions}, {@code memory-archived}, {@code user-profiles},
 * {@code memory-audit} and the dead-letter topic.
 *
 * <pre>
 * memory-candidates (String user key, MemoryCandidate) ─ read-memory-candidates ─┐
 * memory-commands   (String user key, MemoryCommand)   ─ read-memory-commands  ─┤
 *        ┌─────────────────────────────────────────────────────────────────────┘
 *        └─ consolidate-memories  [memories-by-user-store, profiles-store, erasures-store, memory-access-store,
 *                                  observation-pending-store]
 *             ├─ write-memory-updated         → memory-updated        (user key, MemoryUpdated)
 *             ├─ write-memory-contradictions  → memory-contradictions (user key, ContradictionDetected)
 *             ├─ write-memory-archived        → memory-archived       (user key, MemoryArchived)
 *             ├─ write-memory-audit           → memory-audit          (user key, AuditRecord: erasures applied)
 *             └─ write-dead-letters           → engram-consolidator-dlq (user key, MemoryCandidate; reason in headers)
 * memory-access (String user key, MemoryAccessed)
 *   └─ read-memory-access
 *        └─ maintain-memory-lifecycle  [memories-by-user-store, profiles-store, erasures-store, memory-access-store,
 *                                       observation-pending-store; the pass every lifecycle.interval.ms of
 *                                       lifecycle time (stream time without records dated beyond
 *                                       input.max.future.ms), run by the record crossing it (either processor:
 *                                       LifecyclePassClock);
 *                                       WALL_CLOCK every lifecycle.observe.interval.ms, or once the input is
 *                                       quiet for lifecycle.observe.quiet.ms (pending observations)]
 *             └─ write-memory-updated, write-memory-archived, write-user-profiles
 * </pre>
 *
 * <p>{@code maintain-memory-lifecycle} ({@link MemoryLifecycleProcessor}) applies retrieval hits and
 * runs the lifecycle rules of {@link MemoryLifecycle} (TTL, staleness, merge, hard delete) on lifecycle
 * time (the stream time without records dated more than {@code input.max.future.ms} after the wall clock); both
 * processors share the stores, so one task owns all of a user's state.
 *
 * <p>Stores (persistent RocksDB, changelogged as {@code engram-consolidator-<store>-changelog}):
 * {@link StoreNames#MEMORIES} ({@code <user key>\0<memory id>} → Memory, every status) and
 * {@link StoreNames#PROFILES} (user key → UserProfile, folded with {@link ProfileProjection}) and
 * {@link StoreNames#ERASURES} (user key → erasure time in ms, the erasure ledger) and
 * {@link StoreNames#ACCESS} (the retrieval hits of each memory, kept apart from it: {@link AccessStore}); and, in memory,
 * {@link StoreNames#OBSERVATION_PENDING} (the users whose observations are to be regrouped, see
 * {@link ObservationRegroups}; shared by both processors).
 *
 * <p>Commands ({@code memory-commands}: CORRECT, DELETE, ERASE, SET_MEMORY_ENABLED) are a second source
 * of the same processor: both topics are keyed by the user key and co-partitioned, so one task applies a
 * user's commands and candidates in order against the same stores. The erasure ledger makes a user's
 * candidates and commands whose event time is at or before the erasure be dropped, so events in flight
 * and full replays of old topics never bring an erased user back (see {@link ConsolidateMemoriesProcessor}).
 *
 * <p>Guarantees: candidates are keyed by user, so one task processes all of a user's candidates in
 * order on one thread, and the store written for one candidate is the index searched for the next
 * (read-your-own-writes). The decision ({@link Consolidator}) uses event time only, so replaying
 * {@code memory-candidates} yields identical stores and identical {@code memory-updated} records;
 * output records carry the candidate's event time as their timestamp. Records that fail to
 * deserialize go to {@code engram-consolidator-dlq} through Streams' own dead-letter handler
 * (KIP-1034, see {@link StreamsSettings}); records that deserialize but fail validation go there
 * from this topology, with the same {@code __streams.errors.*} headers.
 */
public final class ConsolidationTopology {

    /** Source node reading {@code MEMORY_CANDIDATES}. */
    public static final String SOURCE = "read-memory-candidates";
    /** The processor owning the stores. */
    public static final String PROCESSOR = "consolidate-memories";
    /** Source node reading {@code MEMORY_ACCESS}. */
    public static final String ACCESS_SOURCE = "read-memory-access";
    /** The processor applying access events and running the lifecycle punctuator. */
    public static final String LIFECYCLE_PROCESSOR = "maintain-memory-lifecycle";
    /** Sink to {@code MEMORY_UPDATED}. */
    public static final String UPDATED_SINK = "write-memory-updated";
    /** Sink to {@code MEMORY_CONTRADICTIONS}. */
    public static final String CONTRADICTIONS_SINK = "write-memory-contradictions";
    /** Sink to {@code MEMORY_ARCHIVED}. */
    public static final String ARCHIVED_SINK = "write-memory-archived";
    /** Source node reading {@code MEMORY_COMMANDS}. */
    public static final String COMMANDS_SOURCE = "read-memory-commands";
    /** Sink to {@code MEMORY_AUDIT}. */
    public static final String AUDIT_SINK = "write-memory-audit";
    /** Sink node writing the user's profile after each change to {@code USER_PROFILES}. */
    public static final String PROFILES_SINK = "write-user-profiles";
    /** Sink of the data-key tombstones to {@code DATA_KEYS} (only with {@code crypto.enabled}). */
    public static final String DATA_KEYS_SINK = "write-data-key-tombstones";

    private ConsolidationTopology() {
    }

    /**
     * @param config Engram config
     * @return the Streams properties of the consolidator ({@link StreamsSettings#forApp})
     */
    public static Properties config(final EngramConfig config) {
        return StreamsSettings.forApp(config, AppIds.CONSOLIDATOR);
    }

    /**
     * Builds the topology, counting into {@link Metrics#globalRegistry}.
     *
     * @param config thresholds ({@code memory.min.*}, {@code dedup.*}, {@code embedding.dimensions})
     * @param judge asked about pairs in the judge band
     * @param indexFactory opens each task's vector index
     * @return the topology
     */
    public static Topology build(final EngramConfig config, final ContradictionJudge judge,
                                 final VectorIndexFactory indexFactory) {
        return build(config, judge, indexFactory, Metrics.globalRegistry);
    }

    /**
     * Builds the topology.
     *
     * @param config thresholds ({@code memory.min.*}, {@code dedup.*}, {@code embedding.dimensions})
     * @param judge asked about pairs in the judge band
     * @param indexFactory opens each task's vector index
     * @param registry where the counters {@code engram.memories.added|reinforced|superseded} (added = created: a counter named *.created loses that suffix in Prometheus),
     *     {@code engram.contradictions} and {@code engram.candidates.skipped|invalid} go (tag
     *     {@code application=engram-consolidator})
     * @return the topology
     */
    public static Topology build(final EngramConfig config, final ContradictionJudge judge,
                                 final VectorIndexFactory indexFactory, final MeterRegistry registry) {
        return build(config, judge, MemoryMerger.CONCATENATE, indexFactory, registry);
    }

    /**
     * Builds the topology with a merger of its own for the consolidation pass (e.g. one that asks an LLM).
     *
     * @param config as {@link #build(EngramConfig, ContradictionJudge, VectorIndexFactory, MeterRegistry)}
     * @param judge asked about pairs in the judge band
     * @param merger writes the content of merged memories
     * @param indexFactory opens each task's vector index
     * @param registry where the counters go
     * @return the topology
     */
    public static Topology build(final EngramConfig config, final ContradictionJudge judge, final MemoryMerger merger,
                                 final VectorIndexFactory indexFactory, final MeterRegistry registry) {
        return build(config, judge, merger, null, indexFactory, registry);
    }

    /**
     * Builds the topology with a merger of its own and an embedder for the observations of the consolidation
     * pass ({@link Observations}: without one, {@code lifecycle.observe.threshold} has no effect).
     *
     * @param config as {@link #build(EngramConfig, ContradictionJudge, VectorIndexFactory, MeterRegistry)}
     * @param judge asked about pairs in the judge band
     * @param merger writes the content of merged memories
     * @param embedder embeds observations, or null for none
     * @param indexFactory opens each task's vector index
     * @param registry where the counters go
     * @return the topology
     */
    public static Topology build(final EngramConfig config, final ContradictionJudge judge, final MemoryMerger merger,
                                 final Embedder embedder, final VectorIndexFactory indexFactory,
                                 final MeterRegistry registry) {
        final Consolidator consolidator = new Consolidator(ConsolidatorSettings.from(config), judge);
        final ConsolidateMemoriesProcessor.Counters counters =
            new ConsolidateMemoriesProcessor.Counters(registry, AppIds.CONSOLIDATOR);
        final MemoryLifecycle lifecycle = new MemoryLifecycle(MemoryLifecycle.Settings.from(config), merger, embedder);
        final MemoryLifecycleProcessor.Counters lifecycleCounters =
            new MemoryLifecycleProcessor.Counters(registry, AppIds.CONSOLIDATOR);
        final StoreBuilder<KeyValueStore<String, Memory>> memories = org.apache.kafka.streams.state.Stores
            .keyValueStoreBuilder(org.apache.kafka.streams.state.Stores.persistentKeyValueStore(StoreNames.MEMORIES),
                Serdes.String(), PersonalSerdes.store(Memory.class, config, Topic.DATA_KEYS.name()))
            .withLoggingEnabled(Map.of()).withCachingEnabled();
        final StoreBuilder<KeyValueStore<String, UserProfile>> profiles = org.apache.kafka.streams.state.Stores
            .keyValueStoreBuilder(org.apache.kafka.streams.state.Stores.persistentKeyValueStore(StoreNames.PROFILES),
                Serdes.String(), PersonalSerdes.store(UserProfile.class, config, Topic.DATA_KEYS.name()))
            .withLoggingEnabled(Map.of()).withCachingEnabled();
        final StoreBuilder<KeyValueStore<String, Long>> erasures = org.apache.kafka.streams.state.Stores
            .keyValueStoreBuilder(org.apache.kafka.streams.state.Stores.persistentKeyValueStore(StoreNames.ERASURES),
                Serdes.String(), Serdes.Long())
            .withLoggingEnabled(Map.of()).withCachingEnabled();
        // small (ids and counts), rewritten on every hit: changelogged, cached so a commit interval's puts to one key
        // reach the changelog once; persistent, as it holds an entry per memory ever hit
        final StoreBuilder<KeyValueStore<String, AccessCounts>> access = org.apache.kafka.streams.state.Stores
            .keyValueStoreBuilder(org.apache.kafka.streams.state.Stores.persistentKeyValueStore(StoreNames.ACCESS),
                Serdes.String(), AccessCountsSerde.serde())
            .withLoggingEnabled(Map.of()).withCachingEnabled();
        // the users whose observations are to be regrouped (ObservationRegroups): small, in memory, changelogged so a
        // restart regroups them; there with observations off too, so the topology's stores do not depend on a setting
        final StoreBuilder<KeyValueStore<String, Long>> observationPending = org.apache.kafka.streams.state.Stores
            .keyValueStoreBuilder(org.apache.kafka.streams.state.Stores.inMemoryKeyValueStore(StoreNames.OBSERVATION_PENDING),
                Serdes.String(), Serdes.Long())
            .withLoggingEnabled(Map.of()).withCachingEnabled();
        final StringSerializer keys = new StringSerializer();
        // Every processor's index retries an unavailable index and never lets its task move past a record.
        final VectorIndexFactory guarded = RetryingVectorIndex.guard(indexFactory, RetryingVectorIndex.Policy.from(config),
            registry, AppIds.CONSOLIDATOR);
        final boolean shred = PersonalSerdes.keys(config, Topic.DATA_KEYS.name()).isPresent();
        final UserMemoryCache.Registry caches = new UserMemoryCache.Registry(UserMemoryCache.MAX_MEMORIES);
        // the lifecycle pass runs at the record that crosses its interval, from either processor of the task; its
        // changes go to UPDATED_SINK, ARCHIVED_SINK and PROFILES_SINK, children of both processors (below)
        final io.micrometer.core.instrument.Counter ahead = io.micrometer.core.instrument.Counter
            .builder("engram.records.ahead").description("Records dated more than input.max.future.ms after the"
                + " consolidator's clock: consolidated, but moving no lifecycle time").tag("application", AppIds.CONSOLIDATOR)
            .register(registry);
        final LifecyclePassClock.Registry clocks = new LifecyclePassClock.Registry(ahead::increment);
        final Topology topology = new Topology()
            .addSource(SOURCE, Topic.MEMORY_CANDIDATES.keyDeserializer(),
                Topic.MEMORY_CANDIDATES.valueDeserializer(config), Topic.MEMORY_CANDIDATES.name())
            .addSource(COMMANDS_SOURCE, Topic.MEMORY_COMMANDS.keyDeserializer(),
                Topic.MEMORY_COMMANDS.valueDeserializer(config), Topic.MEMORY_COMMANDS.name())
            .addProcessor(PROCESSOR, () -> new ConsolidateMemoriesProcessor(consolidator, guarded, counters, shred, caches,
                lifecycle.observations(), clocks), SOURCE, COMMANDS_SOURCE)
            .addSource(ACCESS_SOURCE, Topic.MEMORY_ACCESS.keyDeserializer(), Topic.MEMORY_ACCESS.valueDeserializer(config),
                Topic.MEMORY_ACCESS.name())
            .addProcessor(LIFECYCLE_PROCESSOR, () -> new MemoryLifecycleProcessor(lifecycle,
                Duration.ofMillis(config.getLong(DomainConfig.LIFECYCLE_INTERVAL_MS)), guarded, lifecycleCounters, caches,
                Duration.ofMillis(config.getLong(DomainConfig.OBSERVE_INTERVAL_MS)),
                Duration.ofMillis(config.getLong(DomainConfig.OBSERVE_QUIET_MS)), clocks,
                config.getLong(DomainConfig.MAX_FUTURE_MS)), ACCESS_SOURCE)
            .addStateStore(memories, PROCESSOR, LIFECYCLE_PROCESSOR)
            .addStateStore(profiles, PROCESSOR, LIFECYCLE_PROCESSOR)
            .addStateStore(erasures, PROCESSOR, LIFECYCLE_PROCESSOR)
            .addStateStore(access, PROCESSOR, LIFECYCLE_PROCESSOR)
            .addStateStore(observationPending, PROCESSOR, LIFECYCLE_PROCESSOR)
            .addSink(UPDATED_SINK, Topic.MEMORY_UPDATED.name(), keys, Topic.MEMORY_UPDATED.valueSerializer(config),
                PROCESSOR, LIFECYCLE_PROCESSOR)
            .addSink(CONTRADICTIONS_SINK, Topic.MEMORY_CONTRADICTIONS.name(), keys,
                Topic.MEMORY_CONTRADICTIONS.valueSerializer(config), PROCESSOR)
            .addSink(ARCHIVED_SINK, Topic.MEMORY_ARCHIVED.name(), keys, Topic.MEMORY_ARCHIVED.valueSerializer(config),
                PROCESSOR, LIFECYCLE_PROCESSOR)
            .addSink(AUDIT_SINK, Topic.MEMORY_AUDIT.name(), keys, Topic.MEMORY_AUDIT.valueSerializer(config), PROCESSOR)
            .addSink(PROFILES_SINK, Topic.USER_PROFILES.name(), keys, Topic.USER_PROFILES.valueSerializer(config),
                PROCESSOR, LIFECYCLE_PROCESSOR)
            .addSink(DeadLetters.SINK, Topic.deadLetters(AppIds.CONSOLIDATOR).name(), keys,
                Topic.MEMORY_CANDIDATES.valueSerializer(config), PROCESSOR);
        if (shred) {
            topology.addSink(DATA_KEYS_SINK, Topic.DATA_KEYS.name(), keys, Topic.DATA_KEYS.valueSerializer(config), PROCESSOR);
        }
        return topology;
    }
}
