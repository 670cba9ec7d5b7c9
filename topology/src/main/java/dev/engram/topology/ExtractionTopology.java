package dev.engram.topology;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.core.MemoryIds;
import dev.engram.core.UserKey;
import dev.engram.port.Embedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.MemoryExtractor;
import dev.engram.privacy.PiiFilter;
import dev.engram.scoring.Vectors;
import dev.engram.serde.AvroSerdes;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * embedding each go to the dead-letter topic with {@link #HEADER_REASON}, {@link #HEADER_CLASS},
 * {@link #HEADER_STAGE} and the source coordinates ({@link #HEADER_SOURCE_TOPIC},
 * {@link #HEADER_SOURCE_PARTITION}, {@link #HEADER_SOURCE_OFFSET}), repeated under Kafka Streams'
 * KIP-1034 names ({@link #KIP_1034_HEADERS}); processing goes on with the next record. The value is consumed as bytes so the dead letter carries exactly what was received.
 *
 * <p>No state stores. Candidate ids are {@link MemoryIds#candidateId} of tenant, user, conversation and
 * content, so a replay gives the same candidates; with {@code exactly_once_v2} each conversation's
 * candidates are written once. Every candidate of one user is written under that user's key, so the
 * consolidator sees them in order on one partition.
 *
 * <p>Meters (tag {@code application=engram-extractor}): {@value #METER_CONVERSATIONS} (valid
 * conversations extracted), {@value #METER_CANDIDATES} (candidates written), {@value #METER_DEAD_LETTERS}
 * (records sent to the dead-letter topic).
 */
public final class ExtractionTopology {

    /** Source node reading {@link Topics#CONVERSATIONS_COMPLETED}. */
    public static final String SOURCE = "read-conversations-completed";
    /** The processor that decodes, validates, extracts and embeds. */
    public static final String PROCESSOR = "extract-memories";
    /** Source node reading {@link Topics#USER_PROFILES}, the consolidator's profiles. */
    public static final String PROFILES_SOURCE = "read-user-profiles";
    /** Processor keeping {@link Stores#EXTRACTOR_PROFILES} up to date. */
    public static final String PROFILES_PROCESSOR = "materialize-user-profiles";
    /** Sink node writing {@link Topics#MEMORY_CANDIDATES}. */
    public static final String CANDIDATES_SINK = "write-memory-candidates";
    /** Sink node writing the extractor's dead-letter topic. */
    public static final String DEAD_LETTER_SINK = "write-dead-letters";
    /** The extractor's dead-letter topic, {@code engram-extractor-dlq}. */
    public static final String DEAD_LETTER_TOPIC = Topics.deadLetter(Topics.EXTRACTOR_APP);

    /** Dead-letter header: why the record was rejected (field and limit, never content). */
    public static final String HEADER_REASON = "engram.error.reason";
    /** Dead-letter header: the exception class, or {@code validation}. */
    public static final String HEADER_CLASS = "engram.error.class";
    /** Dead-letter header: {@code deserialization}, {@code validation} or {@code extraction}. */
    public static final String HEADER_STAGE = "engram.error.stage";
    /** Dead-letter header: the topic the record was read from. */
    public static final String HEADER_SOURCE_TOPIC = "engram.source.topic";
    /** Dead-letter header: the partition it was read from (decimal). */
    public static final String HEADER_SOURCE_PARTITION = "engram.source.partition";
    /** Dead-letter header: its offset (decimal). */
    public static final String HEADER_SOURCE_OFFSET = "engram.source.offset";

    /**
     * The same facts under the header names Kafka Streams' own dead-letter queue (KIP-1034) writes, so
     * one operator tool reads the dead letters of every Engram app (the consolidator writes these too).
     */
    public static final List<String> KIP_1034_HEADERS = List.of("__streams.errors.exception",
        "__streams.errors.message", "__streams.errors.topic", "__streams.errors.partition",
        "__streams.errors.offset");

    /** Counter of valid conversations extracted. */
    public static final String METER_CONVERSATIONS = "engram.extraction.conversations";
    /** Counter of candidates written. */
    public static final String METER_CANDIDATES = "engram.extraction.candidates";
    /** Counter of records sent to a dead-letter topic (shared name; tag {@code application}). */
    public static final String METER_DEAD_LETTERS = "engram.dead.letters";
    /** Timer of extraction and embedding per valid conversation. */
    public static final String METER_LATENCY = "engram.extraction.latency";

    private static final Logger LOG = LoggerFactory.getLogger(ExtractionTopology.class);

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
     * @param extractor the extractor, e.g. {@link dev.engram.embedded.RuleBasedExtractor}
     * @param embedder the embedder, e.g. {@link dev.engram.embedded.MiniLmEmbedder#shared()}
     * @return the topology
     */
    public static Topology build(final EngramConfig config, final MemoryExtractor extractor, final Embedder embedder) {
        return build(config, extractor, embedder, Metrics.globalRegistry);
    }

    /**
     * Builds the topology.
     *
     * @param config limits ({@code input.max.messages}, {@code input.max.message.chars})
     * @param extractor the extractor
     * @param embedder the embedder
     * @param registry where the counters are registered
     * @return the topology
     */
    public static Topology build(final EngramConfig config, final MemoryExtractor extractor, final Embedder embedder,
                                 final MeterRegistry registry) {
        final ConversationValidator validator = ConversationValidator.from(config);
        final Counters counters = new Counters(registry);
        final PiiFilter pii = new PiiFilter(PiiFilter.action(config.getString(EngramConfig.PII_ACTION)), registry);
        final Topology topology = new Topology();
        topology.addSource(SOURCE, Serdes.String().deserializer(), Serdes.ByteArray().deserializer(),
            Topics.CONVERSATIONS_COMPLETED);
        topology.addProcessor(PROCESSOR, () -> new ExtractMemories(validator, extractor, embedder, counters, pii), SOURCE);
        // The profiles table: co-partitioned with conversations-completed (same key, same partition
        // count), so the task extracting a user's conversation holds that user's profile.
        topology.addSource(PROFILES_SOURCE, Serdes.String().deserializer(),
            AvroSerdes.serde(UserProfile.class).deserializer(), Topics.USER_PROFILES);
        topology.addProcessor(PROFILES_PROCESSOR, MaterializeProfiles::new, PROFILES_SOURCE);
        topology.addStateStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
            org.apache.kafka.streams.state.Stores.persistentKeyValueStore(Stores.EXTRACTOR_PROFILES),
            Serdes.String(), AvroSerdes.serde(UserProfile.class)), PROCESSOR, PROFILES_PROCESSOR);
        topology.addSink(CANDIDATES_SINK, Topics.MEMORY_CANDIDATES, Serdes.String().serializer(),
            AvroSerdes.serde(MemoryCandidate.class).serializer(), PROCESSOR);
        topology.addSink(DEAD_LETTER_SINK, DEAD_LETTER_TOPIC, Serdes.String().serializer(),
            Serdes.ByteArray().serializer(), PROCESSOR);
        return topology;
    }

    /** The three counters, shared by every task of the topology. */
    private record Counters(Counter conversations, Counter candidates, Counter deadLetters,
                            io.micrometer.core.instrument.Timer latency) {
        Counters(final MeterRegistry registry) {
            this(counter(registry, METER_CONVERSATIONS, "Valid conversations extracted"),
                counter(registry, METER_CANDIDATES, "Memory candidates written"),
                counter(registry, METER_DEAD_LETTERS, "Records sent to the dead-letter topic"),
                io.micrometer.core.instrument.Timer.builder(METER_LATENCY)
                    .description("Extraction and embedding of one conversation").tag("application", Topics.EXTRACTOR_APP)
                    .register(registry));
        }

        private static Counter counter(final MeterRegistry registry, final String name, final String description) {
            return Counter.builder(name).description(description).tag("application", Topics.EXTRACTOR_APP)
                .register(registry);
        }
    }

    /** Thrown inside the processor when a conversation is rejected before extraction. */
    private static final class Rejected extends Exception {
        private static final long serialVersionUID = 1L;
        private final String stage;
        private final String errorClass;

        Rejected(final String stage, final String errorClass, final String reason) {
            super(reason, null, false, false);
            this.stage = stage;
            this.errorClass = errorClass;
        }
    }

    /**
     * Decodes, validates, extracts and embeds one conversation; forwards its candidates, or the
     * original record to the dead letters.
     */
    /** Keeps the latest profile of each user; a tombstone (erasure) removes it. */
    private static final class MaterializeProfiles implements Processor<String, UserProfile, Void, Void> {
        private KeyValueStore<String, UserProfile> profiles;

        @Override
        public void init(final ProcessorContext<Void, Void> context) {
            this.profiles = context.getStateStore(Stores.EXTRACTOR_PROFILES);
        }

        @Override
        public void process(final Record<String, UserProfile> record) {
            if (record.key() == null) {
                return;
            }
            if (record.value() == null) {
                profiles.delete(record.key());
            } else {
                profiles.put(record.key(), record.value());
            }
        }
    }

    private static final class ExtractMemories implements Processor<String, byte[], String, Object> {
        private final ConversationValidator validator;
        private final MemoryExtractor extractor;
        private final Embedder embedder;
        private final Counters counters;
        private final PiiFilter pii;
        private final Deserializer<ConversationCompleted> deserializer =
            AvroSerdes.serde(ConversationCompleted.class).deserializer();
        private ProcessorContext<String, Object> context;
        private KeyValueStore<String, UserProfile> profiles;

        ExtractMemories(final ConversationValidator validator, final MemoryExtractor extractor,
                        final Embedder embedder, final Counters counters, final PiiFilter pii) {
            this.pii = pii;
            this.validator = validator;
            this.extractor = extractor;
            this.embedder = embedder;
            this.counters = counters;
        }

        @Override
        public void init(final ProcessorContext<String, Object> context) {
            this.context = context;
            this.profiles = context.getStateStore(Stores.EXTRACTOR_PROFILES);
        }

        @Override
        public void process(final Record<String, byte[]> record) {
            final List<MemoryCandidate> candidates;
            final ConversationCompleted conversation;
            try {
                conversation = decode(record.value());
                final long extractStarted = System.nanoTime();
                candidates = candidates(conversation);
                counters.latency().record(System.nanoTime() - extractStarted, java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (Rejected e) {
                deadLetter(record, e.stage, e.errorClass, e.getMessage());
                return;
            }
            final String key = new UserKey(conversation.getTenantId(), conversation.getUserId()).wire();
            final long timestamp = conversation.getCompletedAt().toEpochMilli();
            for (final MemoryCandidate candidate : candidates) {
                context.forward(new Record<String, Object>(key, candidate, timestamp), CANDIDATES_SINK);
            }
            counters.conversations().increment();
            counters.candidates().increment(candidates.size());
        }

        private ConversationCompleted decode(final byte[] bytes) throws Rejected {
            if (bytes == null) {
                throw new Rejected("deserialization", "null", "null value (tombstone) on "
                    + Topics.CONVERSATIONS_COMPLETED);
            }
            final ConversationCompleted conversation;
            try {
                conversation = deserializer.deserialize(Topics.CONVERSATIONS_COMPLETED, bytes);
            } catch (RuntimeException e) {
                throw new Rejected("deserialization", e.getClass().getName(), e.getMessage());
            }
            final Optional<String> problem = validator.problem(conversation);
            if (problem.isPresent()) {
                throw new Rejected("validation", "validation", problem.get());
            }
            return conversation;
        }

        private List<MemoryCandidate> candidates(final ConversationCompleted conversation) throws Rejected {
            try {
                final UserProfile profile =
                    profiles.get(new UserKey(conversation.getTenantId(), conversation.getUserId()).wire());
                if (profile != null && !profile.getMemoryEnabled()) {
                    // Memory is off for this user: no extraction call at all (and so no LLM call).
                    return List.of();
                }
                final List<ExtractedMemory> extracted = pii.apply(extractor.extract(conversation, profile));
                if (extracted.isEmpty()) {
                    return List.of();
                }
                final List<String> texts = new ArrayList<>(extracted.size());
                for (final ExtractedMemory memory : extracted) {
                    texts.add(memory.content());
                }
                final List<float[]> vectors = embedder.embedAll(texts);
                if (vectors.size() != texts.size()) {
                    throw new IllegalStateException("embedder returned " + vectors.size() + " vectors for "
                        + texts.size() + " texts");
                }
                final List<MemoryCandidate> out = new ArrayList<>(extracted.size());
                for (int i = 0; i < extracted.size(); i++) {
                    out.add(candidate(conversation, extracted.get(i), vectors.get(i)));
                }
                return out;
            } catch (RuntimeException e) {
                // An extractor failure (MemoryExtractor.ExtractionException) or an embedding failure on this
                // input: the conversation is kept on the dead-letter topic and the stream goes on.
                throw new Rejected("extraction", e.getClass().getName(), String.valueOf(e.getMessage()));
            }
        }

        private MemoryCandidate candidate(final ConversationCompleted conversation, final ExtractedMemory memory,
                                          final float[] vector) {
            return MemoryCandidate.newBuilder()
                .setCandidateId(MemoryIds.candidateId(conversation.getTenantId(), conversation.getUserId(),
                    conversation.getConversationId(), memory.content()))
                .setTenantId(conversation.getTenantId())
                .setUserId(conversation.getUserId())
                .setConversationId(conversation.getConversationId())
                .setType(memory.type())
                .setCategory(memory.category())
                .setKey(memory.key())
                .setValue(memory.value())
                .setDisplayName(memory.displayName())
                .setContent(memory.content())
                .setNegated(memory.negated())
                .setImportance(memory.importance())
                .setConfidence(memory.confidence())
                .setSource(memory.source())
                .setSourceMessageIndexes(new ArrayList<>(memory.sourceMessageIndexes()))
                .setEventTime(memory.eventTime())
                .setEmbedding(Vectors.toList(vector))
                .setEmbeddingModel(embedder.modelName())
                .setExtractor(extractor.name())
                .build();
        }

        private void deadLetter(final Record<String, byte[]> record, final String stage, final String errorClass,
                                final String reason) {
            final Headers headers = new RecordHeaders(record.headers().toArray());
            final Optional<RecordMetadata> source = context.recordMetadata();
            header(headers, HEADER_REASON, reason);
            header(headers, HEADER_CLASS, errorClass);
            header(headers, HEADER_STAGE, stage);
            header(headers, HEADER_SOURCE_TOPIC, source.map(RecordMetadata::topic).orElse(""));
            header(headers, HEADER_SOURCE_PARTITION, source.map(m -> Integer.toString(m.partition())).orElse(""));
            header(headers, HEADER_SOURCE_OFFSET, source.map(m -> Long.toString(m.offset())).orElse(""));
            header(headers, KIP_1034_HEADERS.get(0), errorClass);
            header(headers, KIP_1034_HEADERS.get(1), reason);
            header(headers, KIP_1034_HEADERS.get(2), source.map(RecordMetadata::topic).orElse(""));
            header(headers, KIP_1034_HEADERS.get(3), source.map(m -> Integer.toString(m.partition())).orElse(""));
            header(headers, KIP_1034_HEADERS.get(4), source.map(m -> Long.toString(m.offset())).orElse(""));
            LOG.warn("Dead letter to {} ({} at {}-{}@{}): {}", DEAD_LETTER_TOPIC, stage,
                source.map(RecordMetadata::topic).orElse("?"), source.map(RecordMetadata::partition).orElse(-1),
                source.map(RecordMetadata::offset).orElse(-1L), reason);
            context.forward(new Record<String, Object>(record.key(), record.value(), record.timestamp(), headers),
                DEAD_LETTER_SINK);
            counters.deadLetters().increment();
        }

        private static void header(final Headers headers, final String name, final String value) {
            headers.remove(name);
            headers.add(name, (value == null ? "" : value).getBytes(StandardCharsets.UTF_8));
        }
    }
}
