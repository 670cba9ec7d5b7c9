package dev.engram.topology;

import static dev.engram.topology.ExtractionTopology.CANDIDATES_SINK;
import static dev.engram.topology.ExtractionTopology.METER_CANDIDATES;
import static dev.engram.topology.ExtractionTopology.METER_CONVERSATIONS;
import static dev.engram.topology.ExtractionTopology.METER_LATENCY;
import static dev.engram.topology.ExtractionTopology.METER_MEMORY_OFF;
import static dev.engram.topology.ExtractionTopology.METER_PENDING;
import static dev.engram.topology.ExtractionTopology.METER_REPLACED;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.TenantSettings;
import dev.engram.avro.UserProfile;
import dev.engram.consolidation.Echoes;
import dev.engram.core.MemoryIds;
import dev.engram.core.UserKey;
import dev.engram.port.Embedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.Extraction;
import dev.engram.port.MemoryExtractor;
import dev.engram.port.TenantPolicy;
import dev.engram.privacy.PiiFilter;
import dev.engram.scoring.Vectors;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.engram.validation.ConversationValidator;

/**
 * Decodes, validates, joins the profile, extracts and embeds conversations (concurrently on the
 * executor), and forwards their candidates, or the original record (its secrets redacted) to the dead letters, in
 * input order.
 */
final class ExtractMemoriesProcessor implements Processor<String, byte[], String, Object> {
    // the extractor's log category stays ExtractionTopology, as before the split
    private static final Logger LOG = LoggerFactory.getLogger(ExtractionTopology.class);

    private final ConversationValidator validator;
    private final MemoryExtractor extractor;
    private final Embedder embedder;
    private final Meters counters;
    private final DeadLetters deadLetters;
    private final Executor executor;
    private final int maxPending;
    private final PiiFilter pii;
    private final Deserializer<ConversationCompleted> deserializer;
    private final Serializer<ConversationCompleted> serializer;
    private final Deque<Pending> inFlight = new ArrayDeque<>();
    private ProcessorContext<String, Object> context;
    private IdleCommit idleCommit;
    private KeyValueStore<Long, byte[]> pending;
    private KeyValueStore<String, UserProfile> profiles;
    private ReadOnlyKeyValueStore<String, TenantSettings> tenantSettings;
    private long nextSequence;

    ExtractMemoriesProcessor(final ConversationValidator validator, final MemoryExtractor extractor,
                             final Embedder embedder, final Meters counters, final DeadLetters deadLetters,
                             final PiiFilter pii,
                             final Executor executor, final int maxPending,
                             final Deserializer<ConversationCompleted> deserializer,
                             final Serializer<ConversationCompleted> serializer) {
        this.deserializer = deserializer;
        this.serializer = serializer;
        this.pii = pii;
        this.validator = validator;
        this.extractor = extractor;
        this.embedder = embedder;
        this.counters = counters;
        this.deadLetters = deadLetters;
        this.executor = executor;
        this.maxPending = maxPending;
    }

    @Override
    public void init(final ProcessorContext<String, Object> context) {
        this.context = context;
        this.pending = context.getStateStore(Stores.EXTRACTION_PENDING);
        this.profiles = context.getStateStore(Stores.EXTRACTOR_PROFILES);
        this.tenantSettings = context.getStateStore(Stores.TENANT_SETTINGS);
        // Restored after a crash or a rebalance: consumed, committed, not yet forwarded. Re-run in order.
        final List<Long> erased = new ArrayList<>();
        try (KeyValueIterator<Long, byte[]> it = pending.all()) {
            while (it.hasNext()) {
                final KeyValue<Long, byte[]> entry = it.next();
                if (entry.value == null) {
                    erased.add(entry.key); // sealed with a data key erased meanwhile: nothing to extract
                    continue;
                }
                final Consumed consumed = Consumed.decode(entry.value);
                inFlight.addLast(new Pending(entry.key, consumed, submit(consumed)));
                counters.pending().incrementAndGet();
                nextSequence = Math.max(nextSequence, entry.key + 1);
            }
        }
        erased.forEach(pending::delete);
        if (!inFlight.isEmpty()) {
            LOG.info("Re-submitting {} pending conversations of task {}", inFlight.size(), context.taskId());
        }
        // Finished work is forwarded at the next record or this punctuation; it waits for the commit after that
        // (commit.interval.ms), so keep it short: draining an empty queue costs nothing.
        context.schedule(Duration.ofMillis(5), PunctuationType.WALL_CLOCK_TIME, now -> drain());
        // and once the input is quiet, the commit is asked for at once instead of waiting for the interval
        idleCommit = new IdleCommit(context);
    }

    @Override
    public void process(final Record<String, byte[]> record) {
        idleCommit.input();
        final Optional<RecordMetadata> source = context.recordMetadata();
        final Consumed consumed = new Consumed(record.key(), withoutSecrets(record.value()), record.timestamp(),
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
        counters.pending().incrementAndGet();
        drain();
        while (inFlight.size() >= maxPending) {
            // Back-pressure: wait for the oldest, so the stream thread pulls no more than maxPending ahead.
            inFlight.peekFirst().outcome().exceptionally(e -> null).join();
            drain();
        }
    }

    @Override
    public void close() {
        counters.pending().addAndGet(-inFlight.size());
        inFlight.clear();
    }

    /** Forwards every finished conversation at the head of the queue, in input order. */
    private void drain() {
        while (!inFlight.isEmpty() && inFlight.peekFirst().outcome().isDone()) {
            final Pending head = inFlight.pollFirst();
            counters.pending().decrementAndGet();
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
        // the settings in force at the conversation's time, looked up here on the stream thread: a replay (or a
        // re-submission after a crash) finds the same version whatever was written to tenant-settings since
        final TenantPolicy policy = TenantSettingsTable.inForce(tenantSettings, conversation.getTenantId(),
            conversation.getCompletedAt());
        try {
            return CompletableFuture.supplyAsync(() -> {
                final long extractStarted = System.nanoTime();
                try {
                    final List<MemoryCandidate> extracted = candidates(conversation, profile, policy);
                    counters.latency().record(System.nanoTime() - extractStarted,
                        java.util.concurrent.TimeUnit.NANOSECONDS);
                    return new Outcome(key, timestamp, extracted, null, false);
                } catch (Rejected e) {
                    return Outcome.rejected(e);
                }
            }, executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(Outcome.rejected(
                new Rejected(DeadLetters.STAGE_EXTRACTION, e.getClass().getName(), "extraction executor rejected the task")));
        }
    }

    private void emit(final Consumed consumed, final Outcome outcome) {
        idleCommit.output();
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

    /**
     * The record's value with the secrets of its messages redacted ({@link PiiFilter#withoutSecrets}, re-encoded in
     * the topic's format), so that neither the pending store's changelog nor a dead letter keeps a secret: Engram's
     * own topics never hold one, sealed or not. The value as read when it holds none or does not decode (a dead
     * letter then, as it came).
     */
    private byte[] withoutSecrets(final byte[] bytes) {
        if (bytes == null || validator.sizeProblem(bytes.length).isPresent()) {
            return bytes;
        }
        try {
            final ConversationCompleted conversation = deserializer.deserialize(Topics.CONVERSATIONS_COMPLETED, bytes);
            final ConversationCompleted clean = pii.withoutSecrets(conversation);
            return clean == conversation ? bytes : serializer.serialize(Topics.CONVERSATIONS_COMPLETED, clean);
        } catch (RuntimeException e) {
            return bytes; // decode() rejects it with the reason
        }
    }

    private ConversationCompleted decode(final byte[] bytes) throws Rejected {
        if (bytes == null) {
            throw new Rejected(DeadLetters.STAGE_DESERIALIZATION, "null", "null value (tombstone) on "
                + Topics.CONVERSATIONS_COMPLETED);
        }
        final Optional<String> tooLarge = validator.sizeProblem(bytes.length);
        if (tooLarge.isPresent()) {
            throw new Rejected(DeadLetters.STAGE_VALIDATION, "validation", tooLarge.get());
        }
        final ConversationCompleted conversation;
        try {
            conversation = deserializer.deserialize(Topics.CONVERSATIONS_COMPLETED, bytes);
        } catch (RuntimeException e) {
            throw new Rejected(DeadLetters.STAGE_DESERIALIZATION, e.getClass().getName(), e.getMessage());
        }
        final Optional<String> problem = validator.problem(conversation);
        if (problem.isPresent()) {
            throw new Rejected(DeadLetters.STAGE_VALIDATION, "validation", problem.get());
        }
        // invalid UTF-8 in text was replaced by U+FFFD when decoding (as ingest and the HTTP API do): count it
        counters.replaced().increment(ConversationValidator.replacements(conversation));
        return conversation;
    }

    private List<MemoryCandidate> candidates(final ConversationCompleted conversation, final UserProfile profile,
                                             final TenantPolicy policy) throws Rejected {
        try {
            // Secrets leave the input before the extractor sees it; personal identifiers are redacted or
            // dropped from its output before anything is embedded or written. Facts of a built-in category the
            // tenant turned off are dropped whatever the extractor made of the tenant's settings. Echoes are not
            // evidence: what only the assistant said about the user is never the user's (Echoes).
            final Extraction extraction = extractor.extract(pii.withoutSecrets(conversation), profile, policy);
            final List<ExtractedMemory> extracted = Echoes.withoutEchoes(conversation,
                pii.apply(extraction.memories()).stream().filter(policy::keeps).toList());
            if (extracted.isEmpty()) {
                return List.of();
            }
            // Each distinct text is embedded once: the LLM's memories often repeat a turn word for word, and with
            // llm.extraction.episodes the turn is also an offline episode (a text's vector does not depend on its
            // batch-mates: one inference per text).
            final Map<String, Integer> slots = new LinkedHashMap<>();
            for (final ExtractedMemory memory : extracted) {
                slots.putIfAbsent(memory.content(), slots.size());
            }
            final List<String> texts = new ArrayList<>(slots.keySet());
            final Embedder batch = embedder.current(); // vectors and recorded model from one model across a switch
            final List<float[]> vectors = batch.embedAll(texts);
            if (vectors.size() != texts.size()) {
                throw new IllegalStateException("embedder returned " + vectors.size() + " vectors for "
                    + texts.size() + " texts");
            }
            final List<MemoryCandidate> out = new ArrayList<>(extracted.size());
            for (final ExtractedMemory memory : extracted) {
                out.add(candidate(conversation, memory, vectors.get(slots.get(memory.content())),
                    batch.modelFor(memory.content()), extraction.extractor(), policy));
            }
            return out;
        } catch (RuntimeException e) {
            // An extractor failure (MemoryExtractor.ExtractionException) or an embedding failure on this
            // input: the conversation is kept on the dead-letter topic and the stream goes on.
            throw new Rejected(DeadLetters.STAGE_EXTRACTION, e.getClass().getName(), String.valueOf(e.getMessage()));
        }
    }

    private MemoryCandidate candidate(final ConversationCompleted conversation, final ExtractedMemory memory,
                                      final float[] vector, final String model, final String extractorName,
                                      final TenantPolicy policy) {
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
            .setEmbeddingModel(model)
            .setExtractor(extractorName)
            .setLanguage(memory.language())
            .setEventDates(new ArrayList<>(memory.eventDates()))
            .setCustomCategory(memory.customCategory())
            .setTtlDays(policy.ttlDays(memory))
            .setSettingsVersion(policy.version())
            .build();
    }

    private void deadLetter(final Consumed consumed, final String stage, final String errorClass,
                            final String reason) {
        deadLetters.write(context, new Record<String, Object>(consumed.key(), consumed.value(), consumed.timestamp(),
            consumed.headers()), new DeadLetters.Source(consumed.topic(), consumed.partition(), consumed.offset()),
            stage, errorClass, reason);
    }

    /** The meters, shared by every task of the topology. */
    record Meters(Counter conversations, Counter candidates, Counter memoryOff, Counter replaced,
                  io.micrometer.core.instrument.Timer latency, AtomicInteger pending) {
        Meters(final MeterRegistry registry) {
            this(registry, new AtomicInteger());
        }

        private Meters(final MeterRegistry registry, final AtomicInteger pending) {
            this(counter(registry, METER_CONVERSATIONS, "Valid conversations extracted"),
                counter(registry, METER_CANDIDATES, "Memory candidates written"),
                counter(registry, METER_MEMORY_OFF, "Conversations of users with memory off (no extraction call)"),
                Counter.builder(METER_REPLACED).description("U+FFFD characters (invalid UTF-8 replaced on the way) in "
                    + "the text of accepted conversations").tag("application", Topics.EXTRACTOR_APP)
                    .tag("path", "extractor").register(registry),
                io.micrometer.core.instrument.Timer.builder(METER_LATENCY)
                    .description("Extraction and embedding of one conversation").tag("application", Topics.EXTRACTOR_APP)
                    .register(registry),
                pending);
            io.micrometer.core.instrument.Gauge.builder(METER_PENDING, pending, AtomicInteger::get)
                .description("Conversations consumed (offsets committed with the pending store) whose candidates are "
                    + "not forwarded yet").tag("application", Topics.EXTRACTOR_APP).register(registry);
        }

        private static Counter counter(final MeterRegistry registry, final String name, final String description) {
            return Counter.builder(name).description(description).tag("application", Topics.EXTRACTOR_APP)
                .register(registry);
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

    /** One conversation in flight. */
    private record Pending(long sequence, Consumed consumed, CompletableFuture<Outcome> outcome) {
    }
}
