package dev.engram.topology;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;

import dev.engram.avro.TenantSettings;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.core.MemoryIds;
import dev.engram.core.UserKey;
import dev.engram.domain.DomainConfig;
import dev.engram.port.Embedder;
import dev.engram.port.MemoryExtractor;
import dev.engram.privacy.PiiFilter;
import dev.engram.crypto.PersonalSerdes;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import dev.engram.validation.ConversationValidator;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * The extraction topology: {@code conversations-completed} → {@code memory-candidates}.
 *
 * <pre>
 * read-conversations-completed   source: conversations-completed, key String (ignored), value raw bytes
 *   └─ route-by-user-key         on the user key's partition (UserPartitions: Java's murmur2)? in place : misplaced
 *        └─ split-by-partition
 *             ├─ split-by-partition-in-place ─ unwrap-in-place ─────────────────────────┐
 *             └─ split-by-partition-misplaced ─ unwrap-misplaced ─ conversations-by-user │
 *                  (repartition,
 *                  key = the user key: engram-extractor-conversations-by-user-repartition) ┤
 *   merge-conversations ◀────────────────────────────────────────────────────────────────┘
 *   └─ extract-memories          decode (AvroSerdes), validate (ConversationValidator), extract
 *        │                       (MemoryExtractor), redact or drop personal identifiers (PiiFilter,
 *        │                       privacy.pii.action) before anything is embedded or written, embed every candidate of the conversation in one
 *        │                       Embedder#embedGroup call (replay-stable groups), build MemoryCandidates
 *        ├─ write-memory-candidates  sink: memory-candidates, key = UserKey#wire() of the conversation
 *        │                           (tenant/user, never the incoming key), value MemoryCandidate, record
 *        │                           timestamp = the conversation's completedAt (event time)
 *        ├─ write-llm-usage          sink: llm-usage, key = the tenant, value LlmUsage (the cost ledger: the LLM
 *        │                           calls and tokens of one conversation, UsageRecorder), record timestamp = when
 *        │                           it was extracted (wall clock: the day a token budget counts)
 *        └─ write-dead-letters       sink: engram-extractor-dlq, the original key and bytes, the original
 *                                    headers plus the error headers below
 * </pre>
 *
 * <p>Bad input never stops the stream and is never silently lost: a value that does not decode, a
 * tombstone, a conversation {@link ConversationValidator} rejects, and a failed extraction or
 * embedding each go to the dead-letter topic with the headers of {@link DeadLetters} (reason, class,
 * stage, source coordinates, under our names and Kafka Streams' KIP-1034 names); processing goes on with
 * the next record. The value is consumed as bytes so the dead letter carries exactly what was received.
 *
 * <p><b>Profile join.</b> {@code extractor-profiles-store} holds the latest record of the compacted
 * {@code user-profiles} topic per user ({@code read-user-profiles} → {@code materialize-user-profiles}),
 * co-partitioned with {@code conversations-completed} by the user key. Engram does not depend on the chat platform's
 * partitioner for that: a conversation read from another partition than its user key's (librdkafka's clients, Python,
 * Go, .NET, kcat, default to CRC32, not Java's murmur2; or a key that is not {@code tenant/user}) is re-routed through
 * the internal topic {@value #REPARTITION_TOPIC}, keyed by its user key, to the task holding the user's profile, and
 * counted ({@value #METER_REROUTED}). A producer that partitions like Java costs nothing more; a re-routed
 * conversation is written once more (and purged by Kafka Streams once consumed) and may pass a later one of the same
 * user that arrived on the right partition (only when one user's conversations come from both kinds of producer). A
 * user whose
 * profile says memory is off costs no extraction call and gets no candidates; otherwise the profile's
 * known facts go to the extractor.
 *
 * <p><b>Tenant settings.</b> The global store {@code tenant-settings-store} ({@code read-tenant-settings} →
 * {@code materialize-tenant-settings}) holds every version of every tenant's settings from the compacted
 * {@code tenant-settings}. Each conversation is extracted under the version in force at its {@code completedAt}
 * ({@link TenantSettingsTable#inForce}): the tenant's own categories and instructions go to the extractor, facts of a
 * built-in category the tenant turned off are dropped, and each candidate records its custom category, its TTL (the
 * category's, else the tenant's retention) and the settings version, so consolidating it again never needs the
 * settings. A replay or a re-submission after a crash looks up the same version: event time, never the latest.
 *
 * <p><b>Concurrency, order and exactly-once</b> (implemented by {@link ExtractMemoriesProcessor}). The extractor call (an LLM: ~0.5 s) and the embedding run
 * on an executor, so one task has up to {@code maxPending} conversations in flight and the stream thread
 * keeps pulling; results are forwarded strictly in input order per task (so per partition, so per user):
 * a finished conversation waits until every earlier one of its task is forwarded. Before a record's work
 * leaves the stream thread, the record is written to {@value StoreNames#EXTRACTION_PENDING} (changelogged) under a
 * per-task sequence number, and deleted when its output is forwarded. Under {@code exactly_once_v2} the
 * input offsets, the pending store's changelog and the output commit in one transaction, so at every
 * commit each consumed conversation is either forwarded or in the pending store; after a crash or a
 * rebalance the store is restored and its records are re-submitted, in sequence order, before newer
 * input is forwarded. Nothing is lost, skipped, reordered or emitted twice. When {@code maxPending}
 * conversations are in flight, {@code process} waits for the oldest (back-pressure: no new records are
 * pulled; while an LLM is down this wait lasts until its circuit breaker lets calls through again, so the
 * app allows a long transaction timeout, and a fenced or timed-out task restarts from its last commit with
 * the pending store restored); a wall-clock punctuator forwards finished work when no new input arrives. With the default
 * direct executor (the rule-based extractor) the work is done inside {@code process}, forwarded at once,
 * and the pending store is never written: the offline path behaves exactly as before.
 *
 * <p>Candidate ids are {@link MemoryIds#candidateId} of tenant, user, conversation and
 * content, so a replay gives the same candidates; with {@code exactly_once_v2} each conversation's
 * candidates are written once. Every candidate of one user is written under that user's key, so the
 * consolidator sees them in order on one partition.
 *
 * <p>Meters (tag {@code application=engram-extractor}): {@value #METER_CONVERSATIONS} (valid
 * conversations extracted), {@value #METER_CANDIDATES} (candidates written), {@value DeadLetters#METER}
 * (records sent to the dead-letter topic), and {@value #METER_OUTCOMES}: every consumed conversation counted once by
 * what it ended as, tag {@code outcome} = {@value #OUTCOME_REMEMBERED} (candidates written),
 * {@value #OUTCOME_NOTHING} (nothing to remember, tag {@code reason}: {@value #REASON_MEMORY_OFF},
 * {@value #REASON_NO_WORDS} for messages without a letter or digit such as a message of emoji only,
 * {@value #REASON_NOTHING_EXTRACTED}, {@value #REASON_ALL_REDACTED}, {@value #REASON_CATEGORY_OFF}) or {@value #OUTCOME_DEAD_LETTERED} (tag
 * {@code reason} = the dead-letter stage): conversations in = the sum of the three.
 */
public final class ExtractionTopology {

    /** Source node reading {@code CONVERSATIONS_COMPLETED}. */
    public static final String SOURCE = "read-conversations-completed";
    /** The processor that decodes, validates, extracts and embeds. */
    public static final String PROCESSOR = "extract-memories";
    /** Sink node writing {@code MEMORY_CANDIDATES}. */
    public static final String CANDIDATES_SINK = "write-memory-candidates";
    /** Sink node writing {@code LLM_USAGE}, the cost ledger. */
    public static final String USAGE_SINK = "write-llm-usage";
    /** The extractor's dead-letter topic, {@code engram-extractor-dlq}. */
    public static final String DEAD_LETTER_TOPIC = Topic.deadLetters(AppIds.EXTRACTOR).name();

    /** The processor that checks each conversation's partition against its user key's ({@link UserPartitions}). */
    public static final String ROUTE_PROCESSOR = "route-by-user-key";
    /** The node splitting {@link #ROUTE_PROCESSOR}'s output in two branches, {@code <this>-in-place} and {@code <this>-misplaced}. */
    public static final String ROUTE_BRANCHES = "split-by-partition";
    /** The branch of conversations on their user's partition. */
    public static final String IN_PLACE = "in-place";
    /** The branch of conversations on another partition, re-routed through {@link #REPARTITION_TOPIC}. */
    public static final String MISPLACED = "misplaced";
    /** The name of the repartition step (Kafka Streams names the internal topic after it). */
    public static final String REPARTITION = "conversations-by-user";
    /** The internal topic re-routed conversations cross: {@code engram-extractor-conversations-by-user-repartition}. */
    public static final String REPARTITION_TOPIC = AppIds.EXTRACTOR + "-" + REPARTITION + "-repartition";
    /** The node joining both branches in front of {@link #PROCESSOR}. */
    public static final String MERGE = "merge-conversations";
    /** Counter of conversations re-routed to their user's partition (tag {@code application}). */
    public static final String METER_REROUTED = "engram.extraction.rerouted";

    /** Source node reading {@code USER_PROFILES}. */
    public static final String PROFILES_SOURCE = "read-user-profiles";
    /** Processor writing user-profiles into {@link StoreNames#EXTRACTOR_PROFILES}. */
    public static final String PROFILES_PROCESSOR = "materialize-user-profiles";
    /** Source node reading {@code TENANT_SETTINGS} into the global {@link StoreNames#TENANT_SETTINGS}. */
    public static final String SETTINGS_SOURCE = "read-tenant-settings";
    /** Processor writing tenant-settings into {@link StoreNames#TENANT_SETTINGS}. */
    public static final String SETTINGS_PROCESSOR = "materialize-tenant-settings";
    /** Counter of conversations skipped because the user turned memory off. */
    public static final String METER_MEMORY_OFF = "engram.extraction.memory.off";
    /** Counter of U+FFFD characters in the text of accepted conversations (tag {@code path=extractor}). */
    public static final String METER_REPLACED = "engram.input.replaced.characters";

    /** Counter of consumed conversations by outcome and reason: in = remembered + nothing to remember + dead-lettered. */
    public static final String METER_OUTCOMES = "engram.extraction.outcomes";
    /** {@value #METER_OUTCOMES} outcome: at least one candidate written. */
    public static final String OUTCOME_REMEMBERED = "remembered";
    /** {@value #METER_OUTCOMES} outcome: valid, but nothing to remember (the reason says why). */
    public static final String OUTCOME_NOTHING = "nothing_to_remember";
    /** {@value #METER_OUTCOMES} outcome: sent to the dead-letter topic (the reason is the stage). */
    public static final String OUTCOME_DEAD_LETTERED = "dead_lettered";
    /** Nothing to remember: the user turned memory off. */
    public static final String REASON_MEMORY_OFF = "memory_off";
    /** Nothing to remember: no user message has a letter or digit (e.g. only emoji or punctuation). */
    public static final String REASON_NO_WORDS = "no_words";
    /** Nothing to remember: the extractor found no statement or episode worth keeping (small talk). */
    public static final String REASON_NOTHING_EXTRACTED = "nothing_extracted";
    /** Nothing to remember: every memory found held a personal identifier the PII filter drops. */
    public static final String REASON_ALL_REDACTED = "all_redacted";
    /** Nothing to remember: every memory found is of a category the tenant turned off (tenant settings). */
    public static final String REASON_CATEGORY_OFF = "category_off";

    /** Counter of valid conversations extracted. */
    public static final String METER_CONVERSATIONS = "engram.extraction.conversations";
    /** Counter of candidates written. */
    public static final String METER_CANDIDATES = "engram.extraction.candidates";
    /** Timer of extraction and embedding per valid conversation. */
    public static final String METER_LATENCY = "engram.extraction.latency";
    /**
     * Gauge of conversations consumed but not forwarded yet (in flight on the executor): their input offsets
     * are committed with the pending store, so consumer lag alone does not say the extractor is done.
     */
    public static final String METER_PENDING = "engram.extraction.pending";

    private ExtractionTopology() {
    }

    /**
     * @param config the Engram config
     * @return the Streams properties of the extractor ({@link StreamsSettings#forApp} with
     *     {@code EXTRACTOR_APP})
     */
    public static Properties config(final EngramConfig config) {
        return StreamsSettings.forApp(config, AppIds.EXTRACTOR);
    }

    /**
     * Builds the topology with meters in {@link Metrics#globalRegistry}.
     *
     * @param config limits ({@code input.max.messages}, {@code input.max.message.chars})
     * @param extractor the extractor, e.g. {@code RuleBasedExtractor}
     * @param embedder the embedder, e.g. {@code ScriptRoutedEmbedder.fromConfig(config)} (embedder module)
     * @return the topology
     */
    public static Topology build(final EngramConfig config, final MemoryExtractor extractor, final Embedder embedder) {
        return build(config, extractor, embedder, Metrics.globalRegistry);
    }

    /**
     * Builds the topology with a direct executor: extraction runs inside {@code process} (the offline
     * rule-based default).
     *
     * @param config limits ({@code input.max.messages}, {@code input.max.message.chars})
     * @param extractor the extractor
     * @param embedder the embedder
     * @param registry where the counters are registered
     * @return the topology
     */
    public static Topology build(final EngramConfig config, final MemoryExtractor extractor, final Embedder embedder,
                                 final MeterRegistry registry) {
        return build(config, extractor, embedder, registry, Runnable::run, 1);
    }

    /**
     * Builds the topology.
     *
     * @param config limits ({@code input.max.messages}, {@code input.max.message.chars})
     * @param extractor the extractor (thread-safe when the executor is a pool)
     * @param embedder the embedder
     * @param registry where the counters are registered
     * @param executor runs extraction and embedding; {@code Runnable::run} runs them inside {@code process}
     * @param maxPending conversations one task may have in flight before {@code process} waits, ≥ 1
     * @return the topology
     */
    public static Topology build(final EngramConfig config, final MemoryExtractor extractor, final Embedder embedder,
                                 final MeterRegistry registry, final Executor executor, final int maxPending) {
        return build(config, extractor, embedder, registry, executor, maxPending, UserPartitions.ofCluster());
    }

    /**
     * Builds the topology.
     *
     * @param config limits ({@code input.max.messages}, {@code input.max.message.chars})
     * @param extractor the extractor (thread-safe when the executor is a pool)
     * @param embedder the embedder
     * @param registry where the counters are registered
     * @param executor runs extraction and embedding; {@code Runnable::run} runs them inside {@code process}
     * @param maxPending conversations one task may have in flight before {@code process} waits, ≥ 1
     * @param partitions the partition count of {@code conversations-completed}: {@link UserPartitions#ofCluster()}, or
     *     {@link UserPartitions#fixed} where there is no cluster (a {@code TopologyTestDriver}: 1)
     * @return the topology
     */
    public static Topology build(final EngramConfig config, final MemoryExtractor extractor, final Embedder embedder,
                                 final MeterRegistry registry, final Executor executor, final int maxPending,
                                 final UserPartitions partitions) {
        final ConversationValidator validator = ConversationValidator.from(config);
        final ExtractionMeters counters = new ExtractionMeters(registry);
        final DeadLetters deadLetters = new DeadLetters(AppIds.EXTRACTOR, registry);
        final PiiFilter pii = new PiiFilter(PiiFilter.action(config.getString(DomainConfig.PII_ACTION)), registry);
        final UsageRecorder usage = new UsageRecorder(config, registry, java.time.Clock.systemUTC());
        final Counter rerouted = Counter.builder(METER_REROUTED).description("Conversations read from another partition "
                + "than their user key's (a producer partitioning otherwise than Java's murmur2), re-routed through "
                + REPARTITION_TOPIC).tag("application", AppIds.EXTRACTOR).register(registry);
        final StreamsBuilder builder = new StreamsBuilder();
        // bytes here: the processors decode (Topic.CONVERSATIONS_COMPLETED's Serde) so a bad record is a dead letter
        final Map<String, KStream<String, RouteConversationsProcessor.Routed>> routes = builder.stream(
                Topic.CONVERSATIONS_COMPLETED.name(), org.apache.kafka.streams.kstream.Consumed.with(
                    Topic.CONVERSATIONS_COMPLETED.keySerde(), Serdes.ByteArray()).withName(SOURCE))
            .process(() -> new RouteConversationsProcessor(partitions, Topic.CONVERSATIONS_COMPLETED.valueDeserializer(config),
                rerouted), Named.as(ROUTE_PROCESSOR))
            .split(Named.as(ROUTE_BRANCHES))
            .branch((key, routed) -> routed.misplaced(), Branched.as("-" + MISPLACED))
            .defaultBranch(Branched.as("-" + IN_PLACE));
        final KStream<String, byte[]> moved = routes.get(ROUTE_BRANCHES + "-" + MISPLACED)
            .mapValues(RouteConversationsProcessor.Routed::value, Named.as("unwrap-" + MISPLACED))
            .repartition(Repartitioned.<String, byte[]>as(REPARTITION).withKeySerde(Serdes.String())
                .withValueSerde(Serdes.ByteArray()));
        routes.get(ROUTE_BRANCHES + "-" + IN_PLACE).mapValues(RouteConversationsProcessor.Routed::value, Named.as("unwrap-" + IN_PLACE))
            .merge(moved, Named.as(MERGE));
        final Topology topology = builder.build();
        topology.addProcessor(PROCESSOR, () -> new ExtractMemoriesProcessor(validator, extractor, embedder, counters, deadLetters, pii,
            usage, executor, Math.max(1, maxPending),
            Topic.CONVERSATIONS_COMPLETED.valueDeserializer(config), Topic.CONVERSATIONS_COMPLETED.valueSerializer(config)),
            MERGE);
        topology.addStateStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
                org.apache.kafka.streams.state.Stores.persistentKeyValueStore(StoreNames.EXTRACTION_PENDING), Serdes.Long(),
                pendingSerde(config)).withLoggingEnabled(Map.of())
            // A conversation forwarded within one commit interval leaves only a tombstone in the changelog.
            .withCachingEnabled(), PROCESSOR);
        // The profiles table: co-partitioned with conversations-completed (same key, same partition
        // count), so the task extracting a user's conversation holds that user's profile.
        topology.addSource(PROFILES_SOURCE, Topic.USER_PROFILES.keyDeserializer(), Topic.USER_PROFILES.valueDeserializer(config),
            Topic.USER_PROFILES.name());
        topology.addProcessor(PROFILES_PROCESSOR, () -> new MaterializeLatest<UserProfile>(StoreNames.EXTRACTOR_PROFILES),
            PROFILES_SOURCE);
        // The consolidator writes a user's whole profile (every active fact, the counts) after each candidate it applies,
        // so a burst of one user's candidates arrives here as a burst of profiles of that user: cached, as the
        // consolidator's and the retriever's stores are, a commit interval's versions of one user reach RocksDB and the
        // changelog once instead of once per candidate. The extractor's reads go through the cache: it sees the same
        // latest profile.
        topology.addStateStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
            org.apache.kafka.streams.state.Stores.persistentKeyValueStore(StoreNames.EXTRACTOR_PROFILES),
            Serdes.String(), PersonalSerdes.store(UserProfile.class, config, Topic.DATA_KEYS.name())).withCachingEnabled(),
            PROCESSOR, PROFILES_PROCESSOR);
        // The tenant settings: a global store (every instance holds every tenant's versions; tenant-settings is keyed
        // by tenant, not by user), restored before processing starts and kept current by the global thread.
        topology.addGlobalStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
                org.apache.kafka.streams.state.Stores.persistentKeyValueStore(StoreNames.TENANT_SETTINGS), Serdes.String(),
                Topic.TENANT_SETTINGS.valueSerde(config)).withLoggingDisabled(),
            SETTINGS_SOURCE, Topic.TENANT_SETTINGS.keyDeserializer(), Topic.TENANT_SETTINGS.valueDeserializer(config),
            Topic.TENANT_SETTINGS.name(), SETTINGS_PROCESSOR,
            () -> new MaterializeLatest<TenantSettings>(StoreNames.TENANT_SETTINGS));
        topology.addSink(CANDIDATES_SINK, Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_CANDIDATES.keySerializer(),
            Topic.MEMORY_CANDIDATES.valueSerializer(config), PROCESSOR);
        topology.addSink(USAGE_SINK, Topic.LLM_USAGE.name(), Topic.LLM_USAGE.keySerializer(),
            Topic.LLM_USAGE.valueSerializer(config), PROCESSOR);
        topology.addSink(DeadLetters.SINK, DEAD_LETTER_TOPIC, Serdes.String().serializer(),
            Serdes.ByteArray().serializer(), PROCESSOR);
        return topology;
    }

    /**
     * Keeps a store equal to a topic, the latest record per key (tombstone = delete): {@link StoreNames#EXTRACTOR_PROFILES}
     * from user-profiles, and the global {@link StoreNames#TENANT_SETTINGS} from tenant-settings (every version: one key each).
     */
    private static final class MaterializeLatest<V> implements Processor<String, V, Void, Void> {
        private final String storeName;
        private KeyValueStore<String, V> store;

        MaterializeLatest(final String storeName) {
            this.storeName = storeName;
        }

        @Override
        public void init(final ProcessorContext<Void, Void> context) {
            store = context.getStateStore(storeName);
        }

        @Override
        public void process(final Record<String, V> record) {
            if (record.key() == null) {
                return;
            }
            if (record.value() == null) {
                store.delete(record.key());
            } else {
                store.put(record.key(), record.value());
            }
        }
    }

    /**
     * The pending store's values hold whole conversations: sealed with their user's key like every other
     * personal record, so its changelog keeps nothing readable of an erased user.
     */
    private static org.apache.kafka.common.serialization.Serde<byte[]> pendingSerde(final EngramConfig config) {
        return PersonalSerdes.keys(config, Topic.DATA_KEYS.name()).map(keys -> PersonalSerdes.sealing(Serdes.ByteArray(),
            (byte[] encoded) -> PendingConversation.decode(encoded).key(), encoded -> true, keys, true)).orElse(Serdes.ByteArray());
    }
}
