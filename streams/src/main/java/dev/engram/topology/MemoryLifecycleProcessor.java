package dev.engram.topology;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryAccessed;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.UpdateOperation;
import dev.engram.avro.UserProfile;
import dev.engram.consolidation.Consolidator;
import dev.engram.consolidation.MemoryLifecycle;
import dev.engram.consolidation.Observations;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndexFactory;
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
 * The {@code maintain-memory-lifecycle} processor of the consolidation topology: applies retrieval
 * hits from {@code memory-access} (access count, last accessed at) and runs the lifecycle pass of
 * {@link MemoryLifecycle} (TTL, staleness, merge, hard delete, observations) on a STREAM_TIME punctuator, and
 * regroups the observations of the users whose statements changed on a WALL_CLOCK punctuator every
 * {@code lifecycle.observe.interval.ms} ({@link ObservationRegroups}: the result is the same whenever it runs, so the
 * wall clock does not make a replay differ). It owns {@link Stores#ACCESS_PENDING} and shares
 * {@link Stores#OBSERVATION_PENDING}.
 *
 * <p>It shares {@link Stores#MEMORIES} and {@link Stores#PROFILES} with {@code consolidate-memories},
 * so it runs in the same task as the user's candidates (all inputs are keyed by user and
 * co-partitioned) and sees their writes. Stream time is the largest record timestamp the task has
 * seen (conversation and access event times), never the wall clock, so a replay of the same topics
 * runs the same passes at the same times with the same result.
 *
 * <p><b>Access is coalesced per memory.</b> A hit is not a change of the memory at once: the hits of each memory
 * are added up in {@link Stores#ACCESS_PENDING} (changelogged, so exactly-once holds across a crash) and applied
 * as one ACCESSED change per memory once the task's stream time is {@link #ACCESS_FLUSH_INTERVAL} past the memory's
 * first pending hit (looked at every {@link #ACCESS_CHECK_INTERVAL} of stream time, so the writes are spread over
 * the interval instead of coming in one burst), and before every lifecycle pass. Stream time, not the wall clock, so
 * a replay of the same topics applies the same hits at the same points (what {@code bin/engram rebuild}'s verify
 * compares); the price is that a partition with no later record keeps its last hits pending until one comes (an
 * access count is a ranking signal of weight 0.03). An ACCESSED change is a whole memory on {@code memory-updated} (its
 * embedding, a store write and its changelog, the retriever's materialization); JFR of {@code bench retrieval}
 * put the access loop at the largest share of the request path's CPU outside the query embedding, one change per
 * memory and 250-ms batch of requests (docs/benchmark-history.md, "Retrieval"). Counts add and the access time
 * is the latest, so the state once applied is what applying each record at once gave: the access count grows by
 * the hits, {@code lastAccessedAt} is the latest access, the event time is that access's; only the number of
 * ACCESSED events differs (one per memory and interval instead of one per memory and record). A hit of a memory
 * that is gone (deleted, erased) by then is dropped.
 *
 * <p>Input: key = user key, value = MemoryAccessed. Output: MemoryUpdated (ACCESSED, ARCHIVED,
 * MERGED, DELETED) on {@code memory-updated}, MemoryArchived on {@code memory-archived}, the
 * profile on {@code user-profiles}; records stamped with the event's time.
 */
final class MemoryLifecycleProcessor implements Processor<String, MemoryAccessed, String, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(MemoryLifecycleProcessor.class);
    /** A pass at least this long (wall clock, ms; a third of the consolidator's transaction timeout) is a warning. */
    static final long SLOW_PASS_MS = 20_000;

    /** Stream time over which a memory's hits are applied as one ACCESSED change. */
    public static final Duration ACCESS_FLUSH_INTERVAL = Duration.ofSeconds(30);
    /** How often (stream time) the pending hits are looked at for those due. */
    static final Duration ACCESS_CHECK_INTERVAL = Duration.ofSeconds(1);

    private final MemoryLifecycle lifecycle;
    private final Duration interval;
    private final Duration observeInterval;
    private ObservationRegroups regroups;
    private final VectorIndexFactory indexFactory;
    private final Counters counters;
    private ProcessorContext<String, Object> context;
    private KeyValueStore<String, Memory> memories;
    private KeyValueStore<String, UserProfile> profiles;
    private KeyValueStore<String, PendingAccess> pending;
    private MemoryChangeWriter writer;
    /**
     * Due stream time (ms) → keys of {@link #pending} whose hits are due then, so the check every
     * {@link #ACCESS_CHECK_INTERVAL} reads the due entries only instead of decoding the whole store (a full scan per
     * second of stream time was ~40 % of the consolidator thread's samples at 200 req/s). Derived from the store: rebuilt
     * at {@link #init}; an entry's due time never changes while it is pending, and a key listed under a time that is no
     * longer its own (applied, then hit again) is checked against the store when that time comes.
     */
    private final NavigableMap<Long, List<String>> dueIndex = new TreeMap<>();

    private final UserMemoryCache.Registry caches;
    private UserMemoryCache cache;

    /**
     * @param caches the decoded memories of each task, shared with the task's {@link ConsolidateMemoriesProcessor}
     *     (which must be told of this processor's writes); null when it keeps none
     * @param observeInterval wall-clock time between two regroupings of the pending users' observations
     *     ({@link ObservationRegroups})
     */
    MemoryLifecycleProcessor(final MemoryLifecycle lifecycle, final Duration interval,
                             final VectorIndexFactory indexFactory, final Counters counters,
                             final UserMemoryCache.Registry caches, final Duration observeInterval) {
        this.caches = caches;
        this.observeInterval = observeInterval;
        this.lifecycle = lifecycle;
        this.interval = interval;
        this.indexFactory = indexFactory;
        this.counters = counters;
    }

    @Override
    public void init(final ProcessorContext<String, Object> context) {
        this.context = context;
        this.memories = context.getStateStore(Stores.MEMORIES);
        this.profiles = context.getStateStore(Stores.PROFILES);
        this.pending = context.getStateStore(Stores.ACCESS_PENDING);
        this.cache = caches == null ? null : caches.join(context);
        this.writer = new MemoryChangeWriter(context, memories, profiles, indexFactory.open(memories), cache,
            ObservationRegroups.pendingStore(context, lifecycle.observations()));
        this.regroups = new ObservationRegroups(context, lifecycle.observations(), writer, cache);
        dueIndex.clear();
        try (KeyValueIterator<String, PendingAccess> it = pending.all()) {
            while (it.hasNext()) {
                final KeyValue<String, PendingAccess> entry = it.next();
                if (entry.value != null) {
                    due(entry.value.dueAt(), entry.key);
                }
            }
        }
        context.schedule(interval, PunctuationType.STREAM_TIME, this::review);
        context.schedule(ACCESS_CHECK_INTERVAL, PunctuationType.STREAM_TIME, this::applyPendingAccess);
        if (lifecycle.observations().enabled()) {
            context.schedule(observeInterval, PunctuationType.WALL_CLOCK_TIME, wallClock -> regroupPending());
        }
    }

    private void due(final long dueAt, final String key) {
        dueIndex.computeIfAbsent(dueAt, t -> new ArrayList<>()).add(key);
    }

    @Override
    public void close() {
        if (cache != null) {
            caches.leave(context, cache);
        }
    }

    @Override
    public void process(final Record<String, MemoryAccessed> record) {
        final MemoryAccessed access = record.value();
        final UserKey user;
        try {
            user = UserKey.parse(record.key());
        } catch (IllegalArgumentException | NullPointerException e) {
            LOG.warn("memory-access record without a valid user key at {}: skipped",
                context.recordMetadata().map(RecordMetadata::toString).orElse("?"));
            return;
        }
        if (access == null || !user.equals(new UserKey(access.getTenantId(), access.getUserId()))) {
            LOG.warn("memory-access record for another user than its key {}: skipped", user);
            return;
        }
        final String cause = "access:" + context.recordMetadata()
            .map(m -> m.topic() + "-" + m.partition() + "@" + m.offset()).orElse(access.getAccessedAt().toString());
        // a record may list a memory once per request that returned it (the retriever sends one record per user
        // and batch of requests): one change per memory, its count raised by its hits
        final Map<String, Integer> hits = new LinkedHashMap<>();
        for (final String memoryId : access.getMemoryIds()) {
            hits.merge(memoryId, 1, Integer::sum);
        }
        final long at = access.getAccessedAt().toEpochMilli();
        final long due = Math.max(at, context.currentStreamTimeMs()) + ACCESS_FLUSH_INTERVAL.toMillis();
        for (final Map.Entry<String, Integer> hit : hits.entrySet()) {
            final String key = user.storeKey(hit.getKey());
            final PendingAccess before = pending.get(key);
            pending.put(key, before == null ? new PendingAccess(hit.getValue(), due, at, cause)
                : before.plus(hit.getValue(), at, cause));
            if (before == null) {
                due(due, key);
            }
        }
    }

    /**
     * Applies the pending hits due by stream time {@code now} ({@link Long#MAX_VALUE}: all of them): one ACCESSED
     * change per memory still held (any status but DELETED), per user in store-key order, then forgets them. A user
     * whose observations are pending is regrouped first, so a hit meets the observations of the statements as they
     * are at this point of the stream, on any schedule ({@link ObservationRegroups}).
     */
    private void applyPendingAccess(final long now) {
        final NavigableMap<Long, List<String>> dueNow = dueIndex.headMap(now, true);
        if (dueNow.isEmpty()) {
            return;
        }
        final Set<String> keys = new HashSet<>();
        dueNow.values().forEach(keys::addAll);
        dueNow.clear();
        // the order the store's scan gave: keys by their serialized (UTF-8) bytes, unsigned
        final List<String> ordered = new ArrayList<>(keys);
        ordered.sort((a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
        final Map<String, List<KeyValue<String, PendingAccess>>> byUser = new LinkedHashMap<>();
        for (final String key : ordered) {
            final PendingAccess value = pending.get(key);
            if (value != null && value.dueAt() <= now) {
                byUser.computeIfAbsent(key.substring(0, key.indexOf(UserKey.STORE_SEPARATOR)),
                    k -> new ArrayList<>()).add(KeyValue.pair(key, value));
            }
        }
        for (final Map.Entry<String, List<KeyValue<String, PendingAccess>>> user : byUser.entrySet()) {
            final UserKey key = UserKey.parse(user.getKey());
            regroups.flush(key, streamTime());
            final List<Consolidator.Change> changes = new ArrayList<>();
            for (final KeyValue<String, PendingAccess> entry : user.getValue()) {
                pending.delete(entry.key);
                final Memory memory = cache == null ? memories.get(entry.key) : cache.get(entry.key, memories::get);
                if (memory != null && memory.getStatus() != MemoryStatus.DELETED) {
                    final PendingAccess hits = entry.value;
                    changes.add(lifecycle.access(memory, Instant.ofEpochMilli(hits.lastAccessedAt()), hits.cause(),
                        hits.hits()));
                }
            }
            apply(key, changes);
        }
    }

    /** The pending users' observations, regrouped (wall clock: stream time may not move for a long while). */
    private void regroupPending() {
        if (context.currentStreamTimeMs() < 0) {
            return; // nothing read yet, nothing pending
        }
        final long started = System.nanoTime();
        final int users = regroups.flushPending(ObservationRegroups.MAX_USERS_PER_PUNCTUATION, streamTime());
        if (users > 0) {
            LOG.debug("Regrouped the observations of {} users in {} ms", users, (System.nanoTime() - started) / 1_000_000);
        }
    }

    /** The task's stream time (the event time of changes made outside a record's processing). */
    private Instant streamTime() {
        return Instant.ofEpochMilli(Math.max(0, context.currentStreamTimeMs()));
    }

    /** The lifecycle pass over every user of this task, at stream time {@code now} (ms). */
    private void review(final long now) {
        // staleness and merge count accesses: every hit up to now is applied first
        applyPendingAccess(Long.MAX_VALUE);
        final Instant at = Instant.ofEpochMilli(now);
        String current = null;
        List<Memory> userMemories = new ArrayList<>();
        final List<KeyValue<UserKey, List<Memory>>> users = new ArrayList<>();
        try (KeyValueIterator<String, Memory> it = memories.all()) {
            while (it.hasNext()) {
                final var entry = it.next();
                final String userWire = entry.key.substring(0, entry.key.indexOf(UserKey.STORE_SEPARATOR));
                if (!userWire.equals(current)) {
                    if (current != null) {
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
        if (current != null) {
            users.add(KeyValue.pair(UserKey.parse(current), userMemories));
        }
        final long started = System.nanoTime();
        for (final KeyValue<UserKey, List<Memory>> user : users) {
            // after its own rules took a statement back the pass regrouped the user's observations (at once, as the
            // candidates do); a pending user gets a bounded share, the rest is the wall clock's (ObservationRegroups)
            final List<Consolidator.Change> changes = lifecycle.review(user.value, at, false);
            apply(user.key, changes);
            if (changes.stream().anyMatch(Observations::reorders)) {
                regroups.forget(user.key);
            } else {
                regroups.flushSome(user.key, at);
            }
        }
        final long millis = (System.nanoTime() - started) / 1_000_000;
        // the pass runs inside the task's transaction: a slow one is what a transaction timeout would abort
        if (millis >= SLOW_PASS_MS) {
            LOG.warn("Consolidation pass at stream time {} over {} users took {} ms", at, users.size(), millis);
        } else {
            LOG.debug("Consolidation pass at stream time {} over {} users took {} ms", at, users.size(), millis);
        }
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

    /** Lifecycle counters: {@code engram.memories.merged|archived|expired|deleted|accessed}, tag application. */
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
            this.accessed = counter(registry, application, "engram.memories.accessed", "Retrieval hits applied");
        }

        private static Counter counter(final MeterRegistry registry, final String application, final String name,
                                       final String description) {
            return Counter.builder(name).description(description).tag("application", application).register(registry);
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
                case ACCESSED -> accessed.increment();
                default -> { }
            }
        }
    }
}
