package dev.engram.topology;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryAccessed;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.UpdateOperation;
import dev.engram.avro.UserProfile;
import dev.engram.consolidation.Consolidator;
import dev.engram.consolidation.MemoryLifecycle;
import dev.engram.consolidation.MergeMemo;
import dev.engram.consolidation.Observations;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndexFactory;
import dev.engram.scoring.AccessCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.streams.KeyValue;
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
 * The {@code maintain-memory-lifecycle} processor of the consolidation topology: folds retrieval hits from
 * {@code memory-access} into {@link StoreNames#ACCESS} (access count, last accessed at: {@link AccessStore}) and runs the
 * lifecycle pass of {@link MemoryLifecycle} (TTL, staleness, merge, hard delete, observations) every
 * {@code lifecycle.interval.ms} of lifecycle time (the stream time without records dated beyond
 * {@code input.max.future.ms}), after the record of either processor that crosses the interval
 * ({@link LifecyclePassClock}: not a STREAM_TIME punctuator, which Streams runs between batches), joining the hits with the memories; and regroups the observations of the users whose statements changed
 * on a WALL_CLOCK punctuator every {@code lifecycle.observe.interval.ms}, and with {@code lifecycle.observe.quiet.ms}
 * also as soon as the input of every task of the app has been quiet that long ({@link ObservationRegroups}: the result is the same
 * whenever it runs, so the wall clock does not make a replay differ). It owns {@link StoreNames#ACCESS} with
 * {@code consolidate-memories} (which forgets the counts of deleted memories and erased users) and shares
 * {@link StoreNames#OBSERVATION_PENDING}.
 *
 * <p>It shares {@link StoreNames#MEMORIES} and {@link StoreNames#PROFILES} with {@code consolidate-memories},
 * so it runs in the same task as the user's candidates (all inputs are keyed by user and
 * co-partitioned) and sees their writes. The lifecycle time is the largest record timestamp the task has
 * seen (conversation, command and access event times) that was at most {@code input.max.future.ms} after the wall clock
 * when it came ({@link LifecyclePassClock}: one record dated 9999 must not age the other users of the partition), never
 * the wall clock itself, so a replay of the same topics runs the same passes at the same times with the same result.
 *
 * <p><b>A read never rewrites a memory.</b> A hit is a small record in {@link StoreNames#ACCESS} (12 bytes, changelogged
 * through the store's cache, so a commit interval's hits of one memory reach the changelog once), not a change of the
 * memory: no {@code memory-updated} record, no store write of the memory and its embedding, no re-materialization in
 * the retriever, which folds {@code memory-access} itself ({@code RetrievalTopology}). Before this, every memory
 * returned by a query came back as an ACCESSED change carrying the whole memory (one per memory and 30 s of stream
 * time). The lifecycle pass reads the counts where it needs them: staleness counts the hits as uses, a merge adds its
 * members' hits to the merged memory's counters ({@link AccessCounts}). A hit is folded at once (counts add, the
 * access time is the latest: the same state in any order), so the pass sees every hit up to its lifecycle time. A user
 * whose observations are pending is regrouped before a hit is folded, so an observation that its statements no longer
 * give loses its counts before, not after, a later hit in every run ({@link ObservationRegroups}).
 *
 * <p>Input: key = user key, value = MemoryAccessed. Output: MemoryUpdated (ARCHIVED, MERGED, DELETED and observation
 * changes) on {@code memory-updated}, MemoryArchived on {@code memory-archived}, the profile on
 * {@code user-profiles}; records stamped with the event's time.
 */
final class MemoryLifecycleProcessor implements Processor<String, MemoryAccessed, String, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(MemoryLifecycleProcessor.class);
    /** A pass at least this long (wall clock, ms; a third of the consolidator's transaction timeout) is a warning. */
    static final long SLOW_PASS_MS = 20_000;

    private final MemoryLifecycle lifecycle;
    private final Duration interval;
    private final long maxFutureMs;
    private final Duration observeInterval;
    private final Duration observeQuiet;
    private long lastRegroupMs;
    private ObservationRegroups regroups;
    private final VectorIndexFactory indexFactory;
    private final Counters counters;
    private ProcessorContext<String, Object> context;
    private KeyValueStore<String, Memory> memories;
    private KeyValueStore<String, UserProfile> profiles;
    private AccessStore access;
    private KeyValueStore<String, Long> erasures;
    private MemoryChangeWriter writer;
    private final UserMemoryCache.Registry caches;
    private UserMemoryCache cache;
    private final LifecyclePassClock.Registry clocks;
    private LifecyclePassClock clock;
    /**
     * Each user's previous merge pass in this task ({@link MergeMemo}): the merge rule compares only pairs with a
     * memory new or changed since (it was about half of a rebuild's consolidator catch-up when it compared every
     * pair in every pass). Kept in memory only: its changes are those of a full pass whatever it holds, so a restart
     * or a rebuild (an empty memo, a full first pass) gives the same memories.
     */
    private Map<UserKey, MergeMemo> mergeMemos = new HashMap<>();

    /**
     * @param caches the decoded memories of each task, shared with the task's {@link ConsolidateMemoriesProcessor}
     *     (which must be told of this processor's writes); null when it keeps none
     * @param observeInterval wall-clock time between two regroupings of the pending users' observations
     *     ({@link ObservationRegroups})
     * @param observeQuiet also regroup them once every task's input has been quiet this long (wall clock); zero = only
     *     every {@code observeInterval}
     * @param clocks when each task's lifecycle pass runs, shared with the task's {@link ConsolidateMemoriesProcessor}
     * @param maxFutureMs how far after the task's wall clock a record's timestamp may lie and still move the task's
     *     lifecycle time, ms ({@code input.max.future.ms}, {@link LifecyclePassClock})
     */
    MemoryLifecycleProcessor(final MemoryLifecycle lifecycle, final Duration interval,
                             final VectorIndexFactory indexFactory, final Counters counters,
                             final UserMemoryCache.Registry caches, final Duration observeInterval,
                             final Duration observeQuiet, final LifecyclePassClock.Registry clocks,
                             final long maxFutureMs) {
        this.maxFutureMs = maxFutureMs;
        this.caches = caches;
        this.observeQuiet = observeQuiet;
        this.clocks = clocks;
        this.observeInterval = observeInterval;
        this.lifecycle = lifecycle;
        this.interval = interval;
        this.indexFactory = indexFactory;
        this.counters = counters;
    }

    @Override
    public void init(final ProcessorContext<String, Object> context) {
        this.context = context;
        this.memories = context.getStateStore(StoreNames.MEMORIES);
        this.profiles = context.getStateStore(StoreNames.PROFILES);
        this.access = new AccessStore(context.getStateStore(StoreNames.ACCESS));
        this.erasures = context.getStateStore(StoreNames.ERASURES);
        this.cache = caches == null ? null : caches.join(context);
        this.writer = new MemoryChangeWriter(context, memories, profiles, indexFactory.open(memories), cache,
            ObservationRegroups.pendingStore(context, lifecycle.observations()), access);
        this.regroups = new ObservationRegroups(context, lifecycle.observations(), writer, cache);
        // the pass runs after the record that moves the lifecycle time into a new interval, not on a STREAM_TIME
        // punctuator (which Streams checks only between batches of records: LifecyclePassClock)
        this.clock = clocks.of(context);
        clock.start(interval.toMillis(), maxFutureMs, context.currentStreamTimeMs(), context.currentSystemTimeMs(),
            context.taskId().toString(), this::review);
        if (lifecycle.observations().enabled()) {
            lastRegroupMs = context.currentSystemTimeMs();
            final boolean quietToo = !observeQuiet.isZero() && observeQuiet.compareTo(observeInterval) < 0;
            // with a quiet trigger, tick at a quarter of its period and regroup when the input is quiet or the interval
            // has passed: ticking at the period itself found the quiet between one and two periods after the last
            // record (a rebuild's final regrouping waited 300 ms on average at 200 ms), now between one and 1.25
            context.schedule(quietToo ? quietTick(observeQuiet) : observeInterval, PunctuationType.WALL_CLOCK_TIME, wallClock -> {
                final boolean quiet = quietToo && clock.quiet(wallClock, observeQuiet.toMillis());
                if (!quietToo || quiet || wallClock - lastRegroupMs >= observeInterval.toMillis()) {
                    lastRegroupMs = wallClock;
                    if (regroupPending(quiet) > 0 && quiet) {
                        context.commit(); // the input is quiet: readable now, not at the next commit interval
                    }
                }
            });
        }
    }

    /**
     * @param observeQuiet {@code lifecycle.observe.quiet.ms}, positive
     * @return how often the quiet trigger looks whether the input has been quiet that long: a quarter of it, at least 1 ms
     */
    static Duration quietTick(final Duration observeQuiet) {
        return Duration.ofMillis(Math.max(1, observeQuiet.toMillis() / 4));
    }

    @Override
    public void close() {
        if (cache != null) {
            caches.leave(context, cache);
        }
        clocks.leave(context, clock);
    }

    @Override
    public void process(final Record<String, MemoryAccessed> record) {
        clock.arrived(record.key(), record.timestamp(), context.currentSystemTimeMs());
        try {
            fold(record);
        } finally {
            clock.received(context.currentSystemTimeMs());
            clock.advanced();
        }
    }

    /** Folds one record's hits into the access store. */
    private void fold(final Record<String, MemoryAccessed> record) {
        final UserKey user = AccessStore.userOf(record, context.recordMetadata().map(RecordMetadata::toString).orElse("?"));
        if (user == null) {
            return;
        }
        final MemoryAccessed hits = record.value();
        final Long erasedAt = erasures.get(user.wire());
        if (erasedAt != null && hits.getAccessedAt().toEpochMilli() <= erasedAt) {
            return;
        }
        // what was served is an observation of the statements as they are at this record, on any schedule
        regroups.flush(user, lifecycleTime());
        final int folded = access.fold(user, hits, erasedAt).size();
        if (folded > 0) {
            counters.accessed(hits.getMemoryIds().size());
        }
    }

    /**
     * The pending users' observations, regrouped (wall clock: the lifecycle time may not move for a long while): each
     * user completely when the input is quiet (no transaction of a record stream to keep short), else in rounds of
     * {@value ObservationRegroups#MAX_RETEXTED_PER_USER} rewritten texts. Either way the observations end the same.
     *
     * @param quiet whether the app's input is quiet ({@code lifecycle.observe.quiet.ms})
     * @return users regrouped
     */
    private int regroupPending(final boolean quiet) {
        if (clock.time() < 0) {
            return 0; // nothing read yet (within input.max.future.ms), nothing pending
        }
        final long started = System.nanoTime();
        final int users = regroups.flushPending(ObservationRegroups.MAX_USERS_PER_PUNCTUATION, lifecycleTime(),
            quiet ? Integer.MAX_VALUE : ObservationRegroups.MAX_RETEXTED_PER_USER);
        if (users > 0) {
            LOG.debug("Regrouped the observations of {} users in {} ms", users, (System.nanoTime() - started) / 1_000_000);
        }
        return users;
    }

    /**
     * The task's lifecycle time (the event time of changes made outside a candidate's processing): its stream time
     * without the records dated beyond {@code input.max.future.ms} ({@link LifecyclePassClock}), so a far-future
     * record of one user does not date another user's regrouped observations.
     */
    private Instant lifecycleTime() {
        return Instant.ofEpochMilli(Math.max(0, clock.time()));
    }

    /** The lifecycle pass over every user of this task, at lifecycle time {@code now} (ms, {@link LifecyclePassClock}). */
    private void review(final long now) {
        final Instant at = Instant.ofEpochMilli(now);
        final List<KeyValue<UserKey, List<Memory>>> users = cache == null ? scanAll() : cachedUsers();
        final long started = System.nanoTime();
        final Map<UserKey, MergeMemo> memos = new HashMap<>(); // the users of this pass: a deleted user's memo goes
        for (final KeyValue<UserKey, List<Memory>> user : users) {
            final MergeMemo memo = mergeMemos.getOrDefault(user.key, MergeMemo.empty());
            memos.put(user.key, memo);
            // after its own rules took a statement back the pass regrouped the user's observations, applying only
            // removals and rewrites that keep their text; observations with a new text, for these users and the pending
            // ones, are left to the wall clock (ObservationRegroups): a backlog crosses a day of stream time every few
            // records, and rewriting there rewrote each observation of a changing group again and again (bench
            // ingest, 140 LoCoMo conversations: 69 % of the observation writes' characters, when each was embedded).
            // staleness and merge count the hits, kept apart from the memories: joined here
            final List<Consolidator.Change> changes = lifecycle.review(user.value, at, false, access.of(user.key), memo);
            apply(user.key, changes);
            if (changes.stream().anyMatch(Observations::reorders)) {
                regroups.mark(user.key, now);
            }
        }
        mergeMemos = memos;
        final long millis = (System.nanoTime() - started) / 1_000_000;
        // the pass runs inside the task's transaction: a slow one is what a transaction timeout would abort
        if (millis >= SLOW_PASS_MS) {
            LOG.warn("Consolidation pass at lifecycle time {} over {} users took {} ms", at, users.size(), millis);
        } else {
            LOG.debug("Consolidation pass at lifecycle time {} over {} users took {} ms", at, users.size(), millis);
        }
    }

    /**
     * Every user of the task with their memories, from the task's decoded copy ({@link UserMemoryCache#users},
     * {@link UserMemoryCache#memoriesForPass}): the same users in the same order with the same memories as
     * {@link #scanAll}, without decoding the whole store every pass.
     */
    private List<KeyValue<UserKey, List<Memory>>> cachedUsers() {
        final List<KeyValue<UserKey, List<Memory>>> users = new ArrayList<>();
        for (final String wire : cache.users(() -> scanAll().stream().map(user -> user.key.wire()).toList())) {
            final UserKey user = UserKey.parse(wire);
            final List<Memory> memoriesOf = cache.memoriesForPass(wire, () -> ObservationRegroups.scan(memories, user));
            if (!memoriesOf.isEmpty()) {
                users.add(KeyValue.pair(user, memoriesOf));
            }
        }
        return users;
    }

    /** Every user of the task with their memories, in store order, from a scan of the whole store. */
    private List<KeyValue<UserKey, List<Memory>>> scanAll() {
        String current = null;
        List<Memory> userMemories = new ArrayList<>();
        final List<KeyValue<UserKey, List<Memory>>> users = new ArrayList<>();
        try (KeyValueIterator<String, Memory> it = memories.all()) {
            while (it.hasNext()) {
                final var entry = it.next();
                final String userWire = entry.key.substring(0, entry.key.indexOf(UserKey.STORE_SEPARATOR));
                if (!userWire.equals(current)) {
                    if (current != null && !userMemories.isEmpty()) {
                        users.add(KeyValue.pair(UserKey.parse(current), userMemories));
                    }
                    current = userWire;
                    userMemories = new ArrayList<>();
                }
                if (entry.value != null) {
                    userMemories.add(entry.value);
                }
            }
        }
        if (current != null && !userMemories.isEmpty()) {
            users.add(KeyValue.pair(UserKey.parse(current), userMemories));
        }
        return users;
    }

    private void apply(final UserKey user, final List<Consolidator.Change> changes) {
        if (changes.isEmpty()) {
            return;
        }
        long timestamp = Long.MIN_VALUE;
        for (final Consolidator.Change change : changes) {
            timestamp = Math.max(timestamp, change.event().getEventTime().toEpochMilli());
        }
        writer.apply(user, changes, timestamp);
        for (final Consolidator.Change change : changes) {
            final Memory after = change.after();
            if (change.event().getOperation() == UpdateOperation.ARCHIVED) {
                context.forward(new Record<String, Object>(user.wire(), archived(after), timestamp),
                    ConsolidationTopology.ARCHIVED_SINK);
            }
            counters.count(change.event().getOperation(), after.getArchiveReason());
        }
    }

    private static MemoryArchived archived(final Memory memory) {
        return MemoryArchived.newBuilder().setTenantId(memory.getTenantId()).setUserId(memory.getUserId())
            .setMemoryId(memory.getMemoryId()).setReason(memory.getArchiveReason())
            .setSupersededBy(memory.getSupersededBy()).setArchivedAt(memory.getUpdatedAt()).build();
    }

    /**
     * Lifecycle counters: {@code engram.memories.merged|archived|expired|deleted}, and {@code engram.memories.accessed}
     * (hits folded); tag application.
     */
    static final class Counters {
        private final Counter merged;
        private final Counter archived;
        private final Counter expired;
        private final Counter deleted;
        private final Counter accessed;

        Counters(final MeterRegistry registry, final String application) {
            this.merged = counter(registry, application, "engram.memories.merged", "Memories created by merging a cluster");
            this.archived = counter(registry, application, "engram.memories.archived",
                "Memories archived by the lifecycle (stale, expired, merged into another)");
            this.expired = counter(registry, application, "engram.memories.expired", "Facts archived at the end of their TTL");
            this.deleted = counter(registry, application, "engram.memories.deleted", "Archived memories hard-deleted");
            this.accessed = counter(registry, application, "engram.memories.accessed",
                "Retrieval hits folded into the access store (one per memory and request that returned it)");
        }

        private static Counter counter(final MeterRegistry registry, final String application, final String name,
                                       final String description) {
            return Counter.builder(name).description(description).tag("application", application).register(registry);
        }

        void accessed(final int hits) {
            accessed.increment(hits);
        }

        void count(final UpdateOperation operation, final ArchiveReason reason) {
            switch (operation) {
                case MERGED -> merged.increment();
                case ARCHIVED -> {
                    archived.increment();
                    if (reason == ArchiveReason.EXPIRED) {
                        expired.increment();
                    }
                }
                case DELETED -> deleted.increment();
                default -> { }
            }
        }
    }
}
