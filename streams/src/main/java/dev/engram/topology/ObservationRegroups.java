package dev.engram.topology;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.consolidation.Consolidator;
import dev.engram.consolidation.Observations;
import dev.engram.core.UserKey;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * When the consolidator regroups a user's observations ({@link Observations}), so that the observations it ends
 * with are a function of the user's statements, whatever the schedule: the live run and a replay from the earliest
 * offsets ({@code bin/engram rebuild}) end with the same observations, however their records and punctuations
 * interleave.
 *
 * <ul>
 *   <li><b>Pending.</b> A change of a user's statements (created, reinforced, archived, …; not an access) marks
 *       the user in {@link StoreNames#OBSERVATION_PENDING} ({@link MemoryChangeWriter}; in memory and changelogged, so
 *       a restart or an aborted transaction keeps the marks as committed).</li>
 *   <li><b>Soon after.</b> A WALL_CLOCK punctuator of {@link MemoryLifecycleProcessor} regroups pending users,
 *       at most {@value #MAX_USERS_PER_PUNCTUATION} per punctuation and for about {@value #MAX_PUNCTUATION_MS} ms,
 *       every {@code lifecycle.observe.interval.ms}, writing at most {@value #MAX_RETEXTED_PER_USER} observations
 *       with a new text per user and punctuation (the user stays pending for the rest; every one once the app's input
 *       is quiet, {@code lifecycle.observe.quiet.ms}): stream time need not advance
 *       (a partition that goes quiet still gets its observations), and the writes are spread over short
 *       transactions. The daily pass writes no new text: it leaves pending users to this punctuator, and when its
 *       own rules (staleness, TTL, merges) took a statement back it applies at once only removed observations and
 *       rewrites that keep their text, and marks the user pending. A backlog crosses a day of stream time every few
 *       records, and rewriting there rewrote each observation of a changing group again and again.</li>
 *   <li><b>At once</b>, where the schedule would show: before a command or a retrieval hit of a pending user is
 *       applied (what the user deletes, corrects or was served is an observation of the statements as they are at
 *       that record, on any schedule), and after a candidate or command that takes a statement back or moves it in
 *       the grouping order ({@link Observations#reorders}: not served from an observation after that).</li>
 * </ul>
 * A regrouping gives every observation field from the statements except the access counters, which the
 * observation of the same id keeps; the points where counters change (hits) and where an observation may leave
 * (taken-back statements) are regroupings at the same records in every run, so the extra regroupings of one run
 * (wall clock) change nothing the other does not end with. Not thread-safe: one per processor instance.
 */
final class ObservationRegroups {

    /** Pending users regrouped per wall-clock punctuation at most, so a punctuation stays short. */
    static final int MAX_USERS_PER_PUNCTUATION = 64;
    /**
     * Wall-clock time after which a punctuation regroups no further user (ms; the one it is at finishes): the
     * punctuation runs inside the task's transaction.
     */
    static final long MAX_PUNCTUATION_MS = 2_000;
    /**
     * Observations with a new text a wall-clock regrouping of one user writes at most; the user stays pending for the
     * rest (a user's first regrouping after a backlog may rewrite dozens, each up to 2,000 characters).
     */
    static final int MAX_RETEXTED_PER_USER = 8;

    private final Observations observations;
    private final KeyValueStore<String, Memory> memories;
    private final KeyValueStore<String, Long> pending;
    private final UserMemoryCache cache;
    private final MemoryChangeWriter writer;

    /**
     * @param context the processor's context, holding {@link StoreNames#MEMORIES} and {@link StoreNames#OBSERVATION_PENDING}
     * @param observations the observation rule
     * @param writer writes the processor's changes
     * @param cache the task's decoded memories, or null
     */
    ObservationRegroups(final ProcessorContext<String, Object> context, final Observations observations,
                        final MemoryChangeWriter writer, final UserMemoryCache cache) {
        this.observations = observations;
        this.memories = context.getStateStore(StoreNames.MEMORIES);
        this.pending = context.getStateStore(StoreNames.OBSERVATION_PENDING);
        this.writer = writer;
        this.cache = cache;
    }

    /** @return the pending store when observations are on (what {@link MemoryChangeWriter} marks), else null */
    static KeyValueStore<String, Long> pendingStore(final ProcessorContext<String, Object> context,
                                                   final Observations observations) {
        return observations.enabled() ? context.getStateStore(StoreNames.OBSERVATION_PENDING) : null;
    }

    /**
     * Marks the user pending (a statement changed outside {@link MemoryChangeWriter}).
     *
     * @param user the user
     * @param at stream time of the change, ms
     */
    void mark(final UserKey user, final long at) {
        if (observations.enabled()) {
            pending.put(user.wire(), at);
        }
    }

    /**
     * Regroups the user now, pending or not.
     *
     * @param user the user
     * @param now event time of the changes
     */
    void regroup(final UserKey user, final Instant now) {
        regroup(user, now, Integer.MAX_VALUE);
    }

    /**
     * Regroups the user, writing at most {@code maxRetexted} observations with a new text; the user stays pending if
     * more are due.
     */
    private void regroup(final UserKey user, final Instant now, final int maxRetexted) {
        if (!observations.enabled()) {
            return;
        }
        final Observations.Review review = observations.review(userMemories(memories, cache, user), now,
            Observations.CAUSE_REGROUP, maxRetexted);
        writer.apply(user, review.changes(), now.toEpochMilli());
        if (review.complete()) {
            pending.delete(user.wire());
        }
    }

    /**
     * @param user a user
     * @return whether the user's observations are to be regrouped
     */
    boolean pending(final UserKey user) {
        return observations.enabled() && pending.get(user.wire()) != null;
    }

    /**
     * Regroups the user if pending.
     *
     * @param user the user
     * @param now event time of the changes
     */
    void flush(final UserKey user, final Instant now) {
        if (pending(user)) {
            regroup(user, now);
        }
    }

    /**
     * Forgets the user's mark: the daily pass regrouped the user, or the user was erased.
     *
     * @param user the user
     */
    void forget(final UserKey user) {
        if (observations.enabled()) {
            pending.delete(user.wire());
        }
    }

    /**
     * Regroups up to {@code max} pending users, in key order, until {@value #MAX_PUNCTUATION_MS} ms have passed;
     * the others stay pending for the next punctuation. Each user writes at most {@code maxRetexted} observations with
     * a new text and stays pending for the rest: {@value #MAX_RETEXTED_PER_USER} while records stream in,
     * {@link Integer#MAX_VALUE} (each user completely at once) when the input is quiet, where there is no record stream
     * whose transactions the rewrites would lengthen; a replay's users, whose every observation is new, were regrouped
     * in rounds of 8 a quiet period apart (16 regroupings for 6 users, {@code bench rebuild}).
     *
     * @param max users at most
     * @param now event time of the changes
     * @param maxRetexted observations with a new text per user at most
     * @return users regrouped
     */
    int flushPending(final int max, final Instant now, final int maxRetexted) {
        if (!observations.enabled()) {
            return 0;
        }
        final List<String> users = new ArrayList<>();
        try (KeyValueIterator<String, Long> it = pending.all()) {
            while (it.hasNext() && users.size() < max) {
                final KeyValue<String, Long> entry = it.next();
                if (entry.value != null) {
                    users.add(entry.key);
                }
            }
        }
        final long started = System.nanoTime();
        int done = 0;
        for (final String user : users) {
            if (done > 0 && System.nanoTime() - started > MAX_PUNCTUATION_MS * 1_000_000) {
                break;
            }
            regroup(UserKey.parse(user), now, maxRetexted);
            done++;
        }
        return done;
    }

    /**
     * @param memories {@link StoreNames#MEMORIES}
     * @param cache the task's decoded memories, or null
     * @param user a user
     * @return every memory of the user, every status, in store-key (memory id) order
     */
    static List<Memory> userMemories(final KeyValueStore<String, Memory> memories, final UserMemoryCache cache,
                                     final UserKey user) {
        if (cache != null) {
            return cache.memories(user.wire(), () -> scan(memories, user));
        }
        final List<Memory> out = new ArrayList<>();
        for (final Map.Entry<String, Memory> entry : scan(memories, user)) {
            out.add(entry.getValue());
        }
        return out;
    }

    /** The user's entries of {@link StoreNames#MEMORIES} in store order (tombstones left out). */
    static List<Map.Entry<String, Memory>> scan(final KeyValueStore<String, Memory> memories,
                                                        final UserKey user) {
        final List<Map.Entry<String, Memory>> out = new ArrayList<>();
        try (KeyValueIterator<String, Memory> it = memories.prefixScan(user.storePrefix(),
                ConsolidateMemoriesProcessor.PREFIX_SERIALIZER)) {
            while (it.hasNext()) {
                final KeyValue<String, Memory> entry = it.next();
                if (entry.value != null) {
                    out.add(Map.entry(entry.key, entry.value));
                }
            }
        }
        return out;
    }
}
