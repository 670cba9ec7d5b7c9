package dev.engram.topology;

import static dev.engram.topology.ExtractionTopology.CANDIDATES_SINK;
import static dev.engram.topology.ExtractionTopology.USAGE_SINK;

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

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.LlmUsage;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.TenantSettings;
import dev.engram.avro.UserProfile;
import dev.engram.consolidation.AgentFacts;
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
 * Decodes and validates ({@link ConversationDecoder}), joins the profile, extracts and embeds conversations
 * (concurrently on the executor), and forwards their candidates, or the original record (its secrets redacted) to the
 * dead letters, in input order.
 */
final class ExtractMemoriesProcessor implements Processor<String, byte[], String, Object> {
    // the extractor's log category stays ExtractionTopology, as before the split
    private static final Logger LOG = LoggerFactory.getLogger(ExtractionTopology.class);

    private final ConversationDecoder decoder;
    private final MemoryExtractor extractor;
    private final Embedder embedder;
    private final ExtractionMeters counters;
    private final DeadLetters deadLetters;
    private final Executor executor;
    private final int maxPending;
    private final PiiFilter pii;
    private final UsageRecorder usageRecorder;
    private final Deque<Pending> inFlight = new ArrayDeque<>();
    private ProcessorContext<String, Object> context;
    private IdleCommit idleCommit;
    private KeyValueStore<Long, byte[]> pending;
    private KeyValueStore<String, UserProfile> profiles;
    private ReadOnlyKeyValueStore<String, TenantSettings> tenantSettings;
    private long nextSequence;

    ExtractMemoriesProcessor(final ConversationValidator validator, final MemoryExtractor extractor,
                             final Embedder embedder, final ExtractionMeters counters, final DeadLetters deadLetters,
                             final PiiFilter pii, final UsageRecorder usageRecorder,
                             final Executor executor, final int maxPending,
                             final Deserializer<ConversationCompleted> deserializer,
                             final Serializer<ConversationCompleted> serializer) {
        this.decoder = new ConversationDecoder(validator, pii, counters, deserializer, serializer);
        this.pii = pii;
        this.usageRecorder = usageRecorder;
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
        this.pending = context.getStateStore(StoreNames.EXTRACTION_PENDING);
        this.profiles = context.getStateStore(StoreNames.EXTRACTOR_PROFILES);
        this.tenantSettings = context.getStateStore(StoreNames.TENANT_SETTINGS);
        // Restored after a crash or a rebalance: consumed, committed, not yet forwarded. Re-run in order.
        final List<Long> erased = new ArrayList<>();
        try (KeyValueIterator<Long, byte[]> it = pending.all()) {
            while (it.hasNext()) {
                final KeyValue<Long, byte[]> entry = it.next();
                if (entry.value == null) {
                    erased.add(entry.key); // sealed with a data key erased meanwhile: nothing to extract
                    continue;
                }
                final PendingConversation consumed = PendingConversation.decode(entry.value);
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
        try {
            extract(record);
        } finally {
            idleCommit.processed(); // the wait for a free slot is no quiet input: a backlog commits at the interval
        }
    }

    /** Submits one conversation, forwarding what finished; waits while {@code maxPending} are in flight. */
    private void extract(final Record<String, byte[]> record) {
        final Optional<RecordMetadata> source = context.recordMetadata();
        final PendingConversation consumed = new PendingConversation(record.key(),
            decoder.withoutSecrets(record.value()), record.timestamp(),
            new RecordHeaders(record.headers().toArray()), source.map(RecordMetadata::topic).orElse(""),
            source.map(RecordMetadata::partition).orElse(-1), source.map(RecordMetadata::offset).orElse(-1L));
        final CompletableFuture<ExtractionOutcome> outcome = submit(consumed);
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
    private CompletableFuture<ExtractionOutcome> submit(final PendingConversation consumed) {
        final ConversationCompleted conversation;
        try {
            conversation = decoder.decode(consumed.value(), context::currentSystemTimeMs);
        } catch (RejectedConversation e) {
            return CompletableFuture.completedFuture(ExtractionOutcome.rejected(e));
        }
        final String key = new UserKey(conversation.getTenantId(), conversation.getUserId()).wire();
        final long timestamp = conversation.getCompletedAt().toEpochMilli();
        final UserProfile profile = profiles.get(key);
        if (profile != null && !profile.getMemoryEnabled()) {
            return CompletableFuture.completedFuture(new ExtractionOutcome(key, timestamp, List.of(), null, null,
                ExtractionTopology.REASON_MEMORY_OFF));
        }
        // the settings in force at the conversation's time, looked up here on the stream thread: a replay (or a
        // re-submission after a crash) finds the same version whatever was written to tenant-settings since
        final TenantPolicy policy = TenantSettingsTable.inForce(tenantSettings, conversation.getTenantId(),
            conversation.getCompletedAt());
        try {
            return CompletableFuture.supplyAsync(() -> {
                final long extractStarted = System.nanoTime();
                try {
                    final Extracted extracted = candidates(conversation, profile, policy);
                    counters.latency().record(System.nanoTime() - extractStarted,
                        java.util.concurrent.TimeUnit.NANOSECONDS);
                    return new ExtractionOutcome(key, timestamp, extracted.candidates(), extracted.usage(), null,
                        extracted.nothingReason());
                } catch (RejectedConversation e) {
                    return ExtractionOutcome.rejected(e);
                }
            }, executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(ExtractionOutcome.rejected(
                new RejectedConversation(DeadLetters.STAGE_EXTRACTION, e.getClass().getName(), "extraction executor rejected the task")));
        }
    }

    private void emit(final PendingConversation consumed, final ExtractionOutcome outcome) {
        idleCommit.output();
        if (outcome.rejected() != null) {
            final RejectedConversation e = outcome.rejected();
            deadLetter(consumed, e.stage, e.errorClass, e.getMessage());
            counters.outcome(ExtractionTopology.OUTCOME_DEAD_LETTERED, e.stage);
            return;
        }
        if (ExtractionTopology.REASON_MEMORY_OFF.equals(outcome.nothingReason())) {
            counters.memoryOff().increment();
            counters.outcome(ExtractionTopology.OUTCOME_NOTHING, ExtractionTopology.REASON_MEMORY_OFF);
            return;
        }
        for (final MemoryCandidate candidate : outcome.candidates()) {
            context.forward(new Record<String, Object>(outcome.key(), candidate, outcome.timestamp()),
                CANDIDATES_SINK);
        }
        if (outcome.usage() != null) {
            // the cost ledger, in the transaction of the candidates: committed once with them
            context.forward(new Record<String, Object>(outcome.usage().getTenantId(), outcome.usage(),
                outcome.usage().getOccurredAt().toEpochMilli()), USAGE_SINK);
        }
        counters.conversations().increment();
        counters.candidates().increment(outcome.candidates().size());
        if (outcome.candidates().isEmpty()) {
            // nothing silent: the conversation was read and had nothing to keep, and the reason is counted
            LOG.debug("Nothing to remember in a conversation of {} ({})", outcome.key(), outcome.nothingReason());
            counters.outcome(ExtractionTopology.OUTCOME_NOTHING, outcome.nothingReason() == null
                ? ExtractionTopology.REASON_NOTHING_EXTRACTED : outcome.nothingReason());
        } else {
            counters.outcome(ExtractionTopology.OUTCOME_REMEMBERED, "");
        }
    }

    /**
     * @return the candidates, the ledger record of the LLM calls, and, when no candidate comes out, why
     *     ({@link ExtractionTopology#REASON_NO_WORDS}, {@link ExtractionTopology#REASON_NOTHING_EXTRACTED},
     *     {@link ExtractionTopology#REASON_ALL_REDACTED}, {@link ExtractionTopology#REASON_CATEGORY_OFF})
     */
    private Extracted candidates(final ConversationCompleted conversation, final UserProfile profile,
                                 final TenantPolicy policy) throws RejectedConversation {
        try {
            // Secrets leave the input before the extractor sees it; personal identifiers are redacted or
            // dropped from its output before anything is embedded or written. Facts of a built-in category the
            // tenant turned off are dropped whatever the extractor made of the tenant's settings. Echoes are not
            // evidence: what only the assistant said about the user is never the user's (Echoes).
            final Extraction extraction = extractor.extract(pii.withoutSecrets(conversation), profile, policy);
            final LlmUsage usage = extraction.usage().calls() == 0 ? null : usageRecorder.record(conversation, extraction);
            final List<ExtractedMemory> found = Echoes.withoutEchoes(conversation, extraction.memories());
            final List<ExtractedMemory> unredacted = found.isEmpty() ? found : pii.apply(found);
            // a fact told to one agent that would change the user's shared profile is that agent's (AgentFacts)
            final List<ExtractedMemory> extracted = unredacted.stream().filter(policy::keeps)
                .map(m -> AgentFacts.scoped(m, conversation.getAgentId(), profile)).toList();
            if (extracted.isEmpty()) {
                return new Extracted(List.of(), usage, !unredacted.isEmpty() ? ExtractionTopology.REASON_CATEGORY_OFF
                    : !found.isEmpty() ? ExtractionTopology.REASON_ALL_REDACTED
                    : hasWords(conversation) ? ExtractionTopology.REASON_NOTHING_EXTRACTED : ExtractionTopology.REASON_NO_WORDS);
            }
            // Each distinct text is embedded once: the LLM's memories often repeat a turn word for word, and with
            // llm.extraction.episodes the turn is also an offline episode. The conversation's texts are one group
            // (Embedder#embedGroup: a few inferences of several texts each, cheaper per text); a text's vector is a
            // function of that set of texts, which a re-extraction of the conversation gives again.
            final Map<String, Integer> slots = new LinkedHashMap<>();
            for (final ExtractedMemory memory : extracted) {
                slots.putIfAbsent(memory.content(), slots.size());
            }
            final List<String> texts = new ArrayList<>(slots.keySet());
            final Embedder batch = embedder.current(); // vectors and recorded model from one model across a switch
            final List<float[]> vectors = batch.embedGroup(texts);
            if (vectors.size() != texts.size()) {
                throw new IllegalStateException("embedder returned " + vectors.size() + " vectors for "
                    + texts.size() + " texts");
            }
            final List<MemoryCandidate> out = new ArrayList<>(extracted.size());
            for (final ExtractedMemory memory : extracted) {
                out.add(candidate(conversation, memory, vectors.get(slots.get(memory.content())),
                    batch.modelFor(memory.content()), extraction.extractor(), policy));
            }
            return new Extracted(out, usage, null);
        } catch (RuntimeException e) {
            // An extractor failure (MemoryExtractor.ExtractionException) or an embedding failure on this
            // input: the conversation is kept on the dead-letter topic and the stream goes on.
            throw new RejectedConversation(DeadLetters.STAGE_EXTRACTION, e.getClass().getName(), String.valueOf(e.getMessage()));
        }
    }

    /**
     * @return whether a user message (its role in any letter case, as the validator and the rules read it: {@code USER}
     *     is accepted) has a letter or digit (U+FFFD, an undecodable byte, is not one)
     */
    private static boolean hasWords(final ConversationCompleted conversation) {
        return conversation.getMessages().stream()
            .filter(m -> "user".equals(m.getRole().strip().toLowerCase(java.util.Locale.ROOT)))
            .anyMatch(m -> m.getContent().codePoints().anyMatch(c -> Character.isLetterOrDigit(c) && c != 0xFFFD));
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
            // the user's keyed facts (the profile) are every agent's, but a name asked of one agent; what else the user
            // told an agent is its own
            .setAgentId(memory.isFact() && !ExtractedMemory.agentScoped(memory.key()) ? null : conversation.getAgentId())
            .build();
    }

    private void deadLetter(final PendingConversation consumed, final String stage, final String errorClass,
                            final String reason) {
        deadLetters.write(context, new Record<String, Object>(consumed.key(), consumed.value(), consumed.timestamp(),
            consumed.headers()), new DeadLetters.Source(consumed.topic(), consumed.partition(), consumed.offset()),
            stage, errorClass, reason);
    }

    /** A conversation's candidates, the ledger record of its LLM calls (null when none), why there is none (or null). */
    private record Extracted(List<MemoryCandidate> candidates, LlmUsage usage, String nothingReason) {
    }

    /** One conversation in flight. */
    private record Pending(long sequence, PendingConversation consumed, CompletableFuture<ExtractionOutcome> outcome) {
    }
}
