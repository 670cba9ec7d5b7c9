package dev.engram.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.engram.avro.ContradictionDetected;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.UpdateOperation;
import dev.engram.avro.UserProfile;
import dev.engram.consolidation.Consolidator;
import dev.engram.consolidation.Observations;
import dev.engram.core.UserKey;
import dev.engram.store.StoreVectorIndex;
import dev.engram.store.UnitVectors;
import dev.engram.port.VectorIndex;
import dev.engram.port.VectorIndexFactory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code consolidate-memories} processor: applies the user's commands and validates each candidate, reads the user's memories
 * (prefix scan of {@link StoreNames#MEMORIES}), asks the {@link Consolidator}, then writes the changed
 * memories and the folded profile ({@link StoreNames#PROFILES}) and forwards the events to the sinks of
 * {@link ConsolidationTopology}. Invalid candidates go to the dead-letter topic through
 * {@link DeadLetters} (stage {@code validation}, class {@value #INVALID_CANDIDATE}).
 *
 * <p>Input: key = user key ({@code tenant/user}), value = MemoryCandidate (from {@code memory-candidates})
 * or MemoryCommand (from {@code memory-commands}). Output records are keyed by the user key and stamped
 * with the candidate's event time or the command's {@code issuedAt}.
 *
 * <p><b>Commands</b> (CORRECT, DELETE, ERASE, SET_MEMORY_ENABLED, REEMBED) are applied by {@link MemoryCommands}.
 *
 * <p><b>Erasure ledger</b> ({@link StoreNames#ERASURES}, user key → erasure time). "Older than the erasure"
 * is defined by event time: a candidate whose {@code eventTime} (when the user said it) is at or before
 * the erasure time, and a command whose {@code issuedAt} is at or before it, are dropped. So the
 * conversations in flight at the erasure (said before it) never come back, a full replay of
 * {@code memory-candidates}, {@code memory-commands} or {@code conversations-completed} never brings
 * anything back, and the user's later conversations are remembered again. The ledger holds the user
 * key and a time only (no content) and is never deleted. The ERASE command itself is idempotent (the
 * ledger keeps the latest time).
 *
 * <p><b>Memory off.</b> While the user's profile says {@code memoryEnabled=false}, candidates are
 * dropped; after memory is turned back on, candidates said before {@code memoryEnabledSince} are
 * dropped too (it starts fresh from new conversations).
 */
final class ConsolidateMemoriesProcessor implements Processor<String, Object, String, Object> {

    /** The error class of the dead letter of a candidate that failed validation. */
    static final String INVALID_CANDIDATE = "dev.engram.InvalidMemoryCandidate";

    private static final Logger LOG = LoggerFactory.getLogger(ConsolidateMemoriesProcessor.class);
    static final StringSerializer PREFIX_SERIALIZER = new StringSerializer();

    private final Consolidator consolidator;
    private final VectorIndexFactory indexFactory;
    private final Counters counters;
    private final boolean shredKeys;
    private IdleCommit idleCommit;
    private ProcessorContext<String, Object> context;
    private KeyValueStore<String, Memory> memories;
    private KeyValueStore<String, UserProfile> profiles;
    private KeyValueStore<String, Long> erasures;
    private VectorIndex index;
    /** The task's memory vectors at unit length, for the candidate search's filter (the search is per memory). */
    private final UnitVectors units = new UnitVectors();
    private MemoryChangeWriter writer;
    private MemoryCommands commands;
    private final UserMemoryCache.Registry caches;
    private UserMemoryCache cache;
    private final Observations observations;
    private ObservationRegroups regroups;
    private final LifecyclePassClock.Registry clocks;
    private LifecyclePassClock clock;

    /**
     * @param shredKeys whether an ERASE also tombstones the user's data key ({@code crypto.enabled}: the
     *     {@link ConsolidationTopology#DATA_KEYS_SINK} exists)
     * @param caches the decoded memories of each task, shared with the task's {@link MemoryLifecycleProcessor};
     *     null = read every user's memories from the store each time
     * @param observations the observation rule ({@link ObservationRegroups}: regroups a user at once when a
     *     statement is taken back)
     * @param clocks when each task's lifecycle pass runs: after every record this processor tells its task's clock,
     *     which runs the task's {@link MemoryLifecycleProcessor} pass when due ({@link LifecyclePassClock})
     */
    ConsolidateMemoriesProcessor(final Consolidator consolidator, final VectorIndexFactory indexFactory,
                                 final Counters counters, final boolean shredKeys, final UserMemoryCache.Registry caches,
                                 final Observations observations, final LifecyclePassClock.Registry clocks) {
        this.clocks = clocks;
        this.observations = observations;
        this.shredKeys = shredKeys;
        this.consolidator = consolidator;
        this.indexFactory = indexFactory;
        this.counters = counters;
        this.caches = caches;
    }

    @Override
    public void init(final ProcessorContext<String, Object> context) {
        this.context = context;
        this.memories = context.getStateStore(StoreNames.MEMORIES);
        this.profiles = context.getStateStore(StoreNames.PROFILES);
        this.erasures = context.getStateStore(StoreNames.ERASURES);
        this.index = indexFactory.open(memories);
        this.cache = caches == null ? null : caches.join(context);
        final AccessStore access = new AccessStore(context.getStateStore(StoreNames.ACCESS));
        this.writer = new MemoryChangeWriter(context, memories, profiles, index, cache,
            ObservationRegroups.pendingStore(context, observations), access);
        this.regroups = new ObservationRegroups(context, observations, writer, cache);
        this.commands = new MemoryCommands(context, memories, profiles, erasures, index, cache, counters, shredKeys,
            regroups, access);
        this.idleCommit = new IdleCommit(context);
        this.clock = clocks.of(context);
    }

    @Override
    public void close() {
        if (cache != null) {
            caches.leave(context, cache);
        }
    }

    @Override
    public void process(final Record<String, Object> record) {
        // a record dated beyond input.max.future.ms is consolidated, but does not move the task's lifecycle time
        clock.arrived(record.key(), record.timestamp(), context.currentSystemTimeMs());
        try {
            consolidate(record);
        } finally {
            // the lifecycle pass due at this record's lifecycle time runs now, in every run (LifecyclePassClock)
            clock.received(context.currentSystemTimeMs());
            clock.advanced();
            idleCommit.processed(); // a long record (the pass) is no quiet input
        }
    }

    /** Applies one candidate or command. */
    private void consolidate(final Record<String, Object> record) {
        // what this record writes is readable downstream at the commit: asked for once the input is quiet
        idleCommit.output();
        if (record.value() instanceof MemoryCommand command) {
            commands.apply(record.key(), command);
            return;
        }
        final MemoryCandidate candidate = (MemoryCandidate) record.value();
        final Optional<String> invalid = consolidator.validate(record.key(), candidate);
        if (invalid.isPresent()) {
            deadLetter(record, invalid.get());
            return;
        }
        final UserKey user = UserKey.parse(record.key());
        final Long erasedAt = erasures.get(user.wire());
        if (erasedAt != null && candidate.getEventTime().toEpochMilli() <= erasedAt) {
            counters.skipped("erased");
            return;
        }
        final UserProfile current = profiles.get(user.wire());
        if (current != null && (!current.getMemoryEnabled() || current.getMemoryEnabledSince() != null
            && candidate.getEventTime().isBefore(current.getMemoryEnabledSince()))) {
            counters.skipped("memory_off");
            return;
        }
        final List<Memory> known = userMemories(user);
        final Optional<String> otherModel = otherModel(known, candidate.getEmbeddingModel(), consolidator.hanModel());
        if (otherModel.isPresent()) {
            // Comparing vectors of two models is meaningless, and storing it would mix them in the index.
            deadLetter(record, DeadLetters.REASON_MODEL_MISMATCH + ": the candidate was embedded with " + candidate.getEmbeddingModel()
                + " but the stored vectors of this user are " + otherModel.get() + "; re-embed (bin/engram reembed"
                + " --model " + candidate.getEmbeddingModel() + ") or run the extractor with " + otherModel.get());
            return;
        }
        // The embedded index is this store: search the memories just read instead of decoding them all again.
        final Consolidator.Decision decision = consolidator.decide(candidate, known,
            searchesThisStore(index) ? StoreVectorIndex.over(known, units) : index);
        final long timestamp = candidate.getEventTime().toEpochMilli();
        writer.apply(user, decision.changes(), timestamp);
        decision.changes().forEach(change -> counters.count(change.event().getOperation()));
        // a superseded or revived statement: the observations are regrouped at once (ObservationRegroups)
        if (decision.changes().stream().anyMatch(Observations::reorders)) {
            regroups.regroup(user, candidate.getEventTime());
        }
        for (final ContradictionDetected contradiction : decision.contradictions()) {
            context.forward(new Record<String, Object>(user.wire(), contradiction, timestamp),
                ConsolidationTopology.CONTRADICTIONS_SINK);
            counters.contradictions.increment();
        }
        for (final MemoryArchived archived : decision.archived()) {
            context.forward(new Record<String, Object>(user.wire(), archived, timestamp), ConsolidationTopology.ARCHIVED_SINK);
        }
        if (decision.changes().isEmpty()) {
            counters.skipped(decision.outcome());
        }
        LOG.debug("candidate {} of {}: {}", candidate.getCandidateId(), user, decision.outcome());
    }


    /**
     * @param memories the user's stored memories
     * @param model the candidate's embedding model
     * @param hanModel the deployment's model of mostly-Han text, or null: a user who writes in both scripts holds
     *     vectors of both models legitimately, so a Han-model candidate is checked only against Han-model memories
     *     and every other candidate only against the others
     * @return the model of the user's stored vectors when the user holds vectors of another model and none of the
     *     candidate's (memories without a recorded model, written before models were recorded, are taken as
     *     compatible). A user holding both models is being re-embedded ({@code bin/engram reembed}): the candidate
     *     is compared with the memories of its own model only, and reembed's catch-up moves it to the new model.
     */
    static Optional<String> otherModel(final List<Memory> memories, final String model, final String hanModel) {
        final boolean hanCandidate = model != null && model.equals(hanModel);
        String other = null;
        for (final Memory m : memories) {
            final boolean hanMemory = m.getEmbeddingModel() != null && m.getEmbeddingModel().equals(hanModel);
            if (hanMemory != hanCandidate || m.getStatus() == MemoryStatus.DELETED || m.getEmbedding().isEmpty()
                || m.getEmbeddingModel() == null || m.getEmbeddingModel().isBlank()) {
                continue;
            }
            if (m.getEmbeddingModel().equals(model)) {
                return Optional.empty();
            }
            other = other == null ? m.getEmbeddingModel() : other;
        }
        return Optional.ofNullable(other);
    }

    /** Every memory of the user, every status, in store-key (memory id) order. */
    private List<Memory> userMemories(final UserKey user) {
        return ObservationRegroups.userMemories(memories, cache, user);
    }

    /** Whether the index (as the topology guards it, {@link RetryingVectorIndex}) is the memories store itself. */
    private static boolean searchesThisStore(final VectorIndex index) {
        return (index instanceof RetryingVectorIndex retrying ? retrying.delegate() : index) instanceof StoreVectorIndex;
    }


    private void deadLetter(final Record<String, Object> record, final String reason) {
        counters.invalid.increment();
        counters.deadLetters.write(context, record, DeadLetters.Source.of(context), DeadLetters.STAGE_VALIDATION,
            INVALID_CANDIDATE, reason);
    }

    /** The consolidator's Micrometer counters, tagged with the application id. */
    static final class Counters {
        private final Counter created;
        private final Counter reinforced;
        private final Counter superseded;
        private final Counter contradictions;
        private final Counter invalid;
        private final Counter archived;
        private final DeadLetters deadLetters;
        final Counter erased;
        private final MeterRegistry registry;
        private final String application;

        Counters(final MeterRegistry registry, final String application) {
            this.registry = registry;
            this.application = application;
            this.created = counter("engram.memories.added", "Memories created ACTIVE from a candidate");
            this.reinforced = counter("engram.memories.reinforced", "Memories reinforced by a restatement");
            this.superseded = counter("engram.memories.superseded", "Memories archived as superseded by a newer statement");
            this.contradictions = counter("engram.contradictions", "Contradictions detected (same key, judge or negation)");
            this.invalid = counter("engram.candidates.invalid", "Candidates sent to the dead-letter topic");
            this.archived = counter("engram.memories.archived", "Memories archived (expired, decayed or by command)");
            this.deadLetters = new DeadLetters(application, registry);
            this.erased = counter("engram.users.erased", "Users erased (ERASE commands applied)");
        }

        private Counter counter(final String name, final String description) {
            return Counter.builder(name).description(description).tag("application", application).register(registry);
        }

        void count(final UpdateOperation operation) {
            switch (operation) {
                case CREATED -> created.increment();
                case REINFORCED -> reinforced.increment();
                case SUPERSEDED -> superseded.increment();
                case ARCHIVED -> archived.increment();
                default -> { }
            }
        }

        void skipped(final Consolidator.Outcome outcome) {
            skipped(outcome.name().toLowerCase(java.util.Locale.ROOT));
        }

        void skipped(final String reason) {
            Counter.builder("engram.candidates.skipped").description("Candidates that changed nothing, by reason")
                .tag("application", application).tag("reason", reason)
                .register(registry).increment();
        }
    }
}
