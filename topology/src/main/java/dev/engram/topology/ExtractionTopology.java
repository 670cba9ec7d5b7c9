package dev.engram.topology;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

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
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
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
 * <p><b>Profile join.</b> {@code extractor-profiles-store} holds the latest record of the compacted
 * {@code user-profiles} topic per user ({@code read-user-profiles} → {@code materialize-user-profiles}),
 * co-partitioned with {@code conversations-completed} by the user key. A user whose
 * profile says memory is off costs no extraction call and gets no candidates; otherwise the profile's
 * known facts go to the extractor.
 *
 * <p><b>Concurrency, order and exactly-once.</b> The extractor call (an LLM: ~0.5 s) and the embedding run
 * on an executor, so one task has up to {@code maxPending} conversations in flight and the stream thread
 * keeps pulling; results are forwarded strictly in input order per task (so per partition, so per user):
 * a finished conversation waits until every earlier one of its task is forwarded. Before a record's work
 * leaves the stream thread, the record is written to {@value #PENDING_STORE} (changelogged) under a
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
 * conversations extracted), {@value #METER_CANDIDATES} (candidates written), {@value #METER_DEAD_LETTERS}
 * (records sent to the dead-letter topic).
 */
public final class ExtractionTopology {

    /** Source node reading {@link Topics#CONVERSATIONS_COMPLETED}. */
    public static final String SOURCE = "read-conversations-completed";
    /** The processor that decodes, validates, extracts and embeds. */
    public static final String PROCESSOR = "extract-memories";
    /** Sink node writing {@link Topics#MEMORY_CANDIDATES}. */
    public static final String CANDIDATES_SINK = "write-memory-candidates";
    /** Sink node writing the extractor's dead-letter topic. */
    public static final String DEAD_LETTER_SINK = "write-dead-letters";
    /** The extractor's dead-letter topic, {@code engram-extractor-dlq}. */
    public static final String DEAD_LETTER_TOPIC = Topics.deadLetter(Topics.EXTRACTOR_APP);

    /** Source node reading {@link Topics#USER_PROFILES}. */
    public static final String PROFILES_SOURCE = "read-user-profiles";
    /** Processor writing user-profiles into {@link Stores#EXTRACTOR_PROFILES}. */
    public static final String PROFILES_PROCESSOR = "materialize-user-profiles";
    /** Changelogged store: per-task sequence → a consumed conversation whose output is not forwarded yet. */
    public static final String PENDING_STORE = "extraction-pending-store";
    /** Counter of conversations skipped because the user turned memory off. */
    public static final String METER_MEMORY_OFF = "engram.extraction.memory.off";

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
     * @param embedder the embedder, e.g. {@code MiniLmEmbedder.shared()} (embedder module)
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
        final Counters counters = new Counters(registry);
        final PiiFilter pii = new PiiFilter(PiiFilter.action(config.getString(EngramConfig.PII_ACTION)), registry);
        final Topology topology = new Topology();
        topology.addSource(SOURCE, Serdes.String().deserializer(), Serdes.ByteArray().deserializer(),
            Topics.CONVERSATIONS_COMPLETED);
        topology.addProcessor(PROCESSOR, () -> new ExtractMemories(validator, extractor, embedder, counters, pii,
            executor, Math.max(1, maxPending)), SOURCE);
        topology.addStateStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
                org.apache.kafka.streams.state.Stores.persistentKeyValueStore(PENDING_STORE), Serdes.Long(),
                Serdes.ByteArray()).withLoggingEnabled(Map.of())
            // A conversation forwarded within one commit interval leaves only a tombstone in the changelog.
            .withCachingEnabled(), PROCESSOR);
        // The profiles table: co-partitioned with conversations-completed (same key, same partition
        // count), so the task extracting a user's conversation holds that user's profile.
        topology.addSource(PROFILES_SOURCE, Serdes.String().deserializer(),
            AvroSerdes.serde(UserProfile.class).deserializer(), Topics.USER_PROFILES);
        topology.addProcessor(PROFILES_PROCESSOR, MaterializeProfile::new, PROFILES_SOURCE);
        topology.addStateStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
            org.apache.kafka.streams.state.Stores.persistentKeyValueStore(Stores.EXTRACTOR_PROFILES),
            Serdes.String(), AvroSerdes.serde(UserProfile.class)), PROCESSOR, PROFILES_PROCESSOR);
        topology.addSink(CANDIDATES_SINK, Topics.MEMORY_CANDIDATES, Serdes.String().serializer(),
            AvroSerdes.serde(MemoryCandidate.class).serializer(), PROCESSOR);
        topology.addSink(DEAD_LETTER_SINK, DEAD_LETTER_TOPIC, Serdes.String().serializer(),
            Serdes.ByteArray().serializer(), PROCESSOR);
        return topology;
    }

    /** The counters, shared by every task of the topology. */
    private record Counters(Counter conversations, Counter candidates, Counter deadLetters, Counter memoryOff,
                            io.micrometer.core.instrument.Timer latency) {
        Counters(final MeterRegistry registry) {
            this(counter(registry, METER_CONVERSATIONS, "Valid conversations extracted"),
                counter(registry, METER_CANDIDATES, "Memory candidates written"),
                counter(registry, METER_DEAD_LETTERS, "Records sent to the dead-letter topic"),
                counter(registry, METER_MEMORY_OFF, "Conversations of users with memory off (no extraction call)"),
                io.micrometer.core.instrument.Timer.builder(METER_LATENCY)
                    .description("Extraction and embedding of one conversation").tag("application", Topics.EXTRACTOR_APP)
                    .register(registry));
        }

        private static Counter counter(final MeterRegistry registry, final String name, final String description) {
            return Counter.builder(name).description(description).tag("application", Topics.EXTRACTOR_APP)
                .register(registry);
        }
    }

    /** Keeps {@link Stores#EXTRACTOR_PROFILES} equal to the latest user-profiles record per key (tombstone = delete). */
    private static final class MaterializeProfile implements Processor<String, UserProfile, Void, Void> {
        private KeyValueStore<String, UserProfile> store;

        @Override
        public void init(final ProcessorContext<Void, Void> context) {
            store = context.getStateStore(Stores.EXTRACTOR_PROFILES);
        }

        @Override
        public void process(final Record<String, UserProfile> record) {
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

    /** Thrown inside the processor when a conversation is rejected. */
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
     * What one conversation yields: candidates under a user key, a rejection, or nothing (memory off).
     *
     * @param key user key (candidates)
     * @param timestamp record timestamp of the candidates
     * @param candidates candidates, possibly empty
     * @param rejected the rejection, or null
     * @param memoryOff true when skipped because the user turned memory off
     */
    private record Outcome(String key, long timestamp, List<MemoryCandidate> candidates, Rejected rejected,
                           boolean memoryOff) {
        static Outcome rejected(final Rejected rejected) {
            return new Outcome(null, 0, List.of(), rejected, false);
        }
    }

    /**
     * A consumed record as kept in {@link #PENDING_STORE}: the original key, bytes, timestamp and headers,
     * and its source coordinates (for dead-letter headers after a restore).
     */
    record Consumed(String key, byte[] value, long timestamp, Headers headers, String topic, int partition,
                    long offset) {

        byte[] encode() {
            try (ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                 DataOutputStream out = new DataOutputStream(bytes)) {
                writeNullable(out, key == null ? null : key.getBytes(StandardCharsets.UTF_8));
                writeNullable(out, value);
                out.writeLong(timestamp);
                out.writeUTF(topic);
                out.writeInt(partition);
                out.writeLong(offset);
                final Header[] all = headers.toArray();
                out.writeInt(all.length);
                for (final Header header : all) {
                    out.writeUTF(header.key());
                    writeNullable(out, header.value());
                }
                out.flush();
                return bytes.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        static Consumed decode(final byte[] encoded) {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
                final byte[] key = readNullable(in);
                final byte[] value = readNullable(in);
                final long timestamp = in.readLong();
                final String topic = in.readUTF();
                final int partition = in.readInt();
                final long offset = in.readLong();
                final int count = in.readInt();
                final Headers headers = new RecordHeaders();
                for (int i = 0; i < count; i++) {
                    headers.add(in.readUTF(), readNullable(in));
                }
                return new Consumed(key == null ? null : new String(key, StandardCharsets.UTF_8), value, timestamp,
                    headers, topic, partition, offset);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static void writeNullable(final DataOutputStream out, final byte[] bytes) throws IOException {
            out.writeInt(bytes == null ? -1 : bytes.length);
            if (bytes != null) {
                out.write(bytes);
            }
        }

        private static byte[] readNullable(final DataInputStream in) throws IOException {
            final int length = in.readInt();
            if (length < 0) {
                return null;
            }
            final byte[] bytes = new byte[length];
            in.readFully(bytes);
            return bytes;
        }
    }

    /** One conversation in flight. */
    private record Pending(long sequence, Consumed consumed, CompletableFuture<Outcome> outcome) {
    }

    /**
     * Decodes, validates, joins the profile, extracts and embeds conversations (concurrently on the
     * executor), and forwards their candidates, or the original record to the dead letters, in input order.
     */
    private static final class ExtractMemories implements Processor<String, byte[], String, Object> {
        private final ConversationValidator validator;
        private final MemoryExtractor extractor;
        private final Embedder embedder;
        private final Counters counters;
        private final Executor executor;
        private final int maxPending;
        private final PiiFilter pii;
        private final Deserializer<ConversationCompleted> deserializer =
            AvroSerdes.serde(ConversationCompleted.class).deserializer();
        private final Deque<Pending> inFlight = new ArrayDeque<>();
        private ProcessorContext<String, Object> context;
        private KeyValueStore<Long, byte[]> pending;
        private KeyValueStore<String, UserProfile> profiles;
        private long nextSequence;

        ExtractMemories(final ConversationValidator validator, final MemoryExtractor extractor,
                        final Embedder embedder, final Counters counters, final PiiFilter pii,
                        final Executor executor, final int maxPending) {
            this.pii = pii;
            this.validator = validator;
            this.extractor = extractor;
            this.embedder = embedder;
            this.counters = counters;
            this.executor = executor;
            this.maxPending = maxPending;
        }

        @Override
        public void init(final ProcessorContext<String, Object> context) {
            this.context = context;
            this.pending = context.getStateStore(PENDING_STORE);
            this.profiles = context.getStateStore(Stores.EXTRACTOR_PROFILES);
            // Restored after a crash or a rebalance: consumed, committed, not yet forwarded. Re-run in order.
            try (KeyValueIterator<Long, byte[]> it = pending.all()) {
                while (it.hasNext()) {
                    final KeyValue<Long, byte[]> entry = it.next();
                    final Consumed consumed = Consumed.decode(entry.value);
                    inFlight.addLast(new Pending(entry.key, consumed, submit(consumed)));
                    nextSequence = Math.max(nextSequence, entry.key + 1);
                }
            }
            if (!inFlight.isEmpty()) {
                LOG.info("Re-submitting {} pending conversations of task {}", inFlight.size(), context.taskId());
            }
            context.schedule(Duration.ofMillis(20), PunctuationType.WALL_CLOCK_TIME, now -> drain());
        }

        @Override
        public void process(final Record<String, byte[]> record) {
            final Optional<RecordMetadata> source = context.recordMetadata();
            final Consumed consumed = new Consumed(record.key(), record.value(), record.timestamp(),
                new RecordHeaders(record.headers().toArray()), source.map(RecordMetadata::topic).orElse(""),
                source.map(RecordMetadata::partition).orElse(-1), source.map(RecordMetadata::offset).orElse(-1L));
            final CompletableFuture<Outcome> outcome = submit(consumed);
            if (inFlight.isEmpty() && outcome.isDone()) {
                emit(consumed, outcome.join());
                return;
            }
            final long sequence = nextSequence++;
            pending.put(sequence, consumed.encode());
            inFlight.addLast(new Pending(sequence, consumed, outcome));
            drain();
            while (inFlight.size() >= maxPending) {
                // Back-pressure: wait for the oldest, so the stream thread pulls no more than maxPending ahead.
                inFlight.peekFirst().outcome().exceptionally(e -> null).join();
                drain();
            }
        }

        @Override
        public void close() {
            inFlight.clear();
        }

        /** Forwards every finished conversation at the head of the queue, in input order. */
        private void drain() {
            while (!inFlight.isEmpty() && inFlight.peekFirst().outcome().isDone()) {
                final Pending head = inFlight.pollFirst();
                emit(head.consumed(), head.outcome().join());
                pending.delete(head.sequence());
            }
        }

        /** Decodes, validates and joins on the stream thread; extracts and embeds on the executor. */
        private CompletableFuture<Outcome> submit(final Consumed consumed) {
            final ConversationCompleted conversation;
            try {
                conversation = decode(consumed.value());
            } catch (Rejected e) {
                return CompletableFuture.completedFuture(Outcome.rejected(e));
            }
            final String key = new UserKey(conversation.getTenantId(), conversation.getUserId()).wire();
            final long timestamp = conversation.getCompletedAt().toEpochMilli();
            final UserProfile profile = profiles.get(key);
            if (profile != null && !profile.getMemoryEnabled()) {
                return CompletableFuture.completedFuture(new Outcome(key, timestamp, List.of(), null, true));
            }
            try {
                return CompletableFuture.supplyAsync(() -> {
                    final long extractStarted = System.nanoTime();
                    try {
                        final List<MemoryCandidate> extracted = candidates(conversation, profile);
                        counters.latency().record(System.nanoTime() - extractStarted,
                            java.util.concurrent.TimeUnit.NANOSECONDS);
                        return new Outcome(key, timestamp, extracted, null, false);
                    } catch (Rejected e) {
                        return Outcome.rejected(e);
                    }
                }, executor);
            } catch (RejectedExecutionException e) {
                return CompletableFuture.completedFuture(Outcome.rejected(
                    new Rejected("extraction", e.getClass().getName(), "extraction executor rejected the task")));
            }
        }

        private void emit(final Consumed consumed, final Outcome outcome) {
            if (outcome.rejected() != null) {
                final Rejected e = outcome.rejected();
                deadLetter(consumed, e.stage, e.errorClass, e.getMessage());
                return;
            }
            if (outcome.memoryOff()) {
                counters.memoryOff().increment();
                return;
            }
            for (final MemoryCandidate candidate : outcome.candidates()) {
                context.forward(new Record<String, Object>(outcome.key(), candidate, outcome.timestamp()),
                    CANDIDATES_SINK);
            }
            counters.conversations().increment();
            counters.candidates().increment(outcome.candidates().size());
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

        private List<MemoryCandidate> candidates(final ConversationCompleted conversation, final UserProfile profile)
            throws Rejected {
            try {
                // Personal identifiers are redacted or dropped before anything is embedded or written.
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

        private void deadLetter(final Consumed consumed, final String stage, final String errorClass,
                                final String reason) {
            final Headers headers = new RecordHeaders(consumed.headers().toArray());
            final String partition = Integer.toString(consumed.partition());
            final String offset = Long.toString(consumed.offset());
            header(headers, HEADER_REASON, reason);
            header(headers, HEADER_CLASS, errorClass);
            header(headers, HEADER_STAGE, stage);
            header(headers, HEADER_SOURCE_TOPIC, consumed.topic());
            header(headers, HEADER_SOURCE_PARTITION, partition);
            header(headers, HEADER_SOURCE_OFFSET, offset);
            header(headers, KIP_1034_HEADERS.get(0), errorClass);
            header(headers, KIP_1034_HEADERS.get(1), reason);
            header(headers, KIP_1034_HEADERS.get(2), consumed.topic());
            header(headers, KIP_1034_HEADERS.get(3), partition);
            header(headers, KIP_1034_HEADERS.get(4), offset);
            LOG.warn("Dead letter to {} ({} at {}-{}@{}): {}", DEAD_LETTER_TOPIC, stage, consumed.topic(), partition,
                offset, reason);
            context.forward(new Record<String, Object>(consumed.key(), consumed.value(), consumed.timestamp(), headers),
                DEAD_LETTER_SINK);
            counters.deadLetters().increment();
        }

        private static void header(final Headers headers, final String name, final String value) {
            headers.remove(name);
            headers.add(name, (value == null ? "" : value).getBytes(StandardCharsets.UTF_8));
        }
    }
}
