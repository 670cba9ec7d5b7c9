package dev.engram.topology;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;

import dev.engram.avro.TenantSettings;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.core.MemoryIds;
import dev.engram.core.UserKey;
import dev.engram.port.Embedder;
import dev.engram.port.MemoryExtractor;
import dev.engram.privacy.PiiFilter;
import dev.engram.crypto.PersonalSerdes;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import dev.engram.validation.ConversationValidator;

/**
 * The extraction topology: {@code conversations-completed} → {@code memory-candidates}.
 *
 * <pre>
 * read-conversations-completed   source: conversations-completed, key String (ignored), value raw bytes
 *   └─ extract-memories          decode (AvroSerdes), validate (ConversationValidator), extract
 *        │                       (MemoryExtractor), redact or drop personal identifiers (PiiFilter,
 *        │                       privacy.pii.action) before anything is embedded or written, embed every candidate of the conversation in one
 *        │                       Embedder#embedAll call, build MemoryCandidates
 *        ├─ write-memory-candidates  sink: memory-candidates, key = UserKey#wire() of the conversation
 *        │                           (tenant/user, never the incoming key), value MemoryCandidate, record
 *        │                           timestamp = the conversation's completedAt (event time)
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
 * co-partitioned with {@code conversations-completed} by the user key. A user whose
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
 * leaves the stream thread, the record is written to {@value Stores#EXTRACTION_PENDING} (changelogged) under a
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
 * (records sent to the dead-letter topic).
 */
public final class ExtractionTopology {

    /** Source node reading {@link Topics#CONVERSATIONS_COMPLETED}. */
    public static final String SOURCE = "read-conversations-completed";
    /** The processor that decodes, validates, extracts and embeds. */
    public static final String PROCESSOR = "extract-memories";
    /** Sink node writing {@link Topics#MEMORY_CANDIDATES}. */
    public static final String CANDIDATES_SINK = "write-memory-candidates";
    /** The extractor's dead-letter topic, {@code engram-extractor-dlq}. */
    public static final String DEAD_LETTER_TOPIC = Topics.deadLetter(Topics.EXTRACTOR_APP);

    /** Source node reading {@link Topics#USER_PROFILES}. */
    public static final String PROFILES_SOURCE = "read-user-profiles";
    /** Processor writing user-profiles into {@link Stores#EXTRACTOR_PROFILES}. */
    public static final String PROFILES_PROCESSOR = "materialize-user-profiles";
    /** Source node reading {@link Topics#TENANT_SETTINGS} into the global {@link Stores#TENANT_SETTINGS}. */
    public static final String SETTINGS_SOURCE = "read-tenant-settings";
    /** Processor writing tenant-settings into {@link Stores#TENANT_SETTINGS}. */
    public static final String SETTINGS_PROCESSOR = "materialize-tenant-settings";
    /** Counter of conversations skipped because the user turned memory off. */
    public static final String METER_MEMORY_OFF = "engram.extraction.memory.off";
    /** Counter of U+FFFD characters in the text of accepted conversations (tag {@code path=extractor}). */
    public static final String METER_REPLACED = "engram.input.replaced.characters";

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
     *     {@link Topics#EXTRACTOR_APP})
     */
    public static Properties config(final EngramConfig config) {
        return StreamsSettings.forApp(config, Topics.EXTRACTOR_APP);
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
        final ConversationValidator validator = ConversationValidator.from(config);
        final ExtractMemoriesProcessor.Meters counters = new ExtractMemoriesProcessor.Meters(registry);
        final DeadLetters deadLetters = new DeadLetters(Topics.EXTRACTOR_APP, registry);
        final PiiFilter pii = new PiiFilter(PiiFilter.action(config.getString(EngramConfig.PII_ACTION)), registry);
        final Topology topology = new Topology();
        // bytes here: the processor decodes (Topic.CONVERSATIONS_COMPLETED's Serde) so a bad record is a dead letter
        topology.addSource(SOURCE, Topic.CONVERSATIONS_COMPLETED.keyDeserializer(), Serdes.ByteArray().deserializer(),
            Topic.CONVERSATIONS_COMPLETED.name());
        topology.addProcessor(PROCESSOR, () -> new ExtractMemoriesProcessor(validator, extractor, embedder, counters, deadLetters, pii,
            executor, Math.max(1, maxPending),
            Topic.CONVERSATIONS_COMPLETED.valueDeserializer(config), Topic.CONVERSATIONS_COMPLETED.valueSerializer(config)),
            SOURCE);
        topology.addStateStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
                org.apache.kafka.streams.state.Stores.persistentKeyValueStore(Stores.EXTRACTION_PENDING), Serdes.Long(),
                pendingSerde(config)).withLoggingEnabled(Map.of())
            // A conversation forwarded within one commit interval leaves only a tombstone in the changelog.
            .withCachingEnabled(), PROCESSOR);
        // The profiles table: co-partitioned with conversations-completed (same key, same partition
        // count), so the task extracting a user's conversation holds that user's profile.
        topology.addSource(PROFILES_SOURCE, Topic.USER_PROFILES.keyDeserializer(), Topic.USER_PROFILES.valueDeserializer(config),
            Topic.USER_PROFILES.name());
        topology.addProcessor(PROFILES_PROCESSOR, () -> new MaterializeLatest<UserProfile>(Stores.EXTRACTOR_PROFILES),
            PROFILES_SOURCE);
        topology.addStateStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
            org.apache.kafka.streams.state.Stores.persistentKeyValueStore(Stores.EXTRACTOR_PROFILES),
            Serdes.String(), PersonalSerdes.store(UserProfile.class, config)), PROCESSOR, PROFILES_PROCESSOR);
        // The tenant settings: a global store (every instance holds every tenant's versions; tenant-settings is keyed
        // by tenant, not by user), restored before processing starts and kept current by the global thread.
        topology.addGlobalStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
                org.apache.kafka.streams.state.Stores.persistentKeyValueStore(Stores.TENANT_SETTINGS), Serdes.String(),
                Topic.TENANT_SETTINGS.valueSerde(config)).withLoggingDisabled(),
            SETTINGS_SOURCE, Topic.TENANT_SETTINGS.keyDeserializer(), Topic.TENANT_SETTINGS.valueDeserializer(config),
            Topic.TENANT_SETTINGS.name(), SETTINGS_PROCESSOR,
            () -> new MaterializeLatest<TenantSettings>(Stores.TENANT_SETTINGS));
        topology.addSink(CANDIDATES_SINK, Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_CANDIDATES.keySerializer(),
            Topic.MEMORY_CANDIDATES.valueSerializer(config), PROCESSOR);
        topology.addSink(DeadLetters.SINK, DEAD_LETTER_TOPIC, Serdes.String().serializer(),
            Serdes.ByteArray().serializer(), PROCESSOR);
        return topology;
    }

    /**
     * Keeps a store equal to a topic, the latest record per key (tombstone = delete): {@link Stores#EXTRACTOR_PROFILES}
     * from user-profiles, and the global {@link Stores#TENANT_SETTINGS} from tenant-settings (every version: one key each).
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
        return PersonalSerdes.keys(config).map(keys -> PersonalSerdes.sealing(Serdes.ByteArray(),
            (byte[] encoded) -> Consumed.decode(encoded).key(), encoded -> true, keys, true)).orElse(Serdes.ByteArray());
    }
}
