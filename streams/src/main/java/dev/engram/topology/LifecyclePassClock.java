package dev.engram.topology;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the consolidator's lifecycle pass runs, and at what time: the task's <b>lifecycle time</b>, the largest record
 * timestamp of the task (event times: a candidate's conversation, a command's issue, a batch of hits) that lies at most
 * {@code input.max.future.ms} after the task's wall clock ({@code ProcessorContext#currentSystemTimeMs}) when the
 * record is processed. The pass runs after the record that moves the lifecycle time into a new
 * {@code lifecycle.interval.ms} period (periods aligned to the epoch), with that time as the pass's time, and after the
 * task's first record. That is where a Kafka Streams STREAM_TIME punctuator of the same interval is due, but
 * Streams checks punctuators only between batches of records ({@code TaskExecutor#punctuate} after
 * {@code process(numIterations)}), and passes the stream time of that moment: how many records a batch held, which
 * depends on the fetch sizes and the load, decided which candidates the pass saw and the time it stamped on its
 * changes. A live run and a replay ({@code bin/engram rebuild}) could therefore end with different memories: the
 * loaded {@code bench rebuild} run that found one user's content differing (same counts) is what a pass at another
 * stream time gives, as its changes carry its time. Here the pass is a function of the record sequence: it runs inside
 * the processing of the crossing record, exactly where {@code TopologyTestDriver} (one record per batch) ran it.
 *
 * <p><b>Why not the stream time itself.</b> The stream time of a task is the largest timestamp of any record it has
 * read, and the task holds every user of its partition, of every tenant. One record dated far ahead (a conversation
 * posted with {@code completedAt} 9999-12-31, a typo of 2062 for 2026, a client with a wrong clock, written before
 * the edges refused such times or by a producer that bypasses them) moved it there at once: the next pass aged every
 * memory of the partition to that date (STALE, EXPIRED, superseded ones hard-deleted by the retention rule), and as
 * no later record moves a stream time of 9999, the partition never ran another pass. Here such a record does not move
 * the lifecycle time ({@link #arrived}: a warning names the user key and the time, at most once a minute per task);
 * the record itself is still consolidated (its own user's memories carry its time), and counted
 * ({@code engram.records.ahead}). A stream time restored from the
 * committed offsets beyond the bound is not taken either: the task starts as if it had none, and its next record
 * within the bound runs a pass. The bound is the one the edges (HTTP, MCP, ingest, the extractor) refuse event times
 * beyond, so what reaches the consolidator through them never meets it. The other inputs carry times no client sets:
 * a command's {@code issuedAt} and an access report's {@code accessedAt} are the retriever's clock when it took the
 * request, a re-embedding command's the memory's own latest time; a retriever with a clock far ahead is bounded here
 * like any other producer.
 *
 * <p><b>Replay determinism.</b> For records within the bound (every record the edges let through: an event time at
 * most the bound after the wall clock of the edge that accepted it, which is earlier than the consolidator's when it
 * reads the record, the machines' clocks agreeing to within that delay), the lifecycle time is exactly the stream time
 * Streams keeps: the same passes at the same times as before the bound existed, so {@code bench rebuild} and
 * {@code verify} compare equal. A replay runs later than the live run, so its wall clock is later and whatever the
 * live run took, the replay takes too; only a record the live run ignored (beyond the bound then) can be taken by a
 * replay run after its date has passed, and a partition whose restored stream time lies beyond the bound (moved there
 * before the bound existed) gets one pass at its next record that a replay does not run.
 *
 * <p>Shared by the two processors of one task ({@code consolidate-memories} and {@code maintain-memory-lifecycle}),
 * each telling it of every record before it is processed ({@link #arrived}) and after ({@link #advanced}); the
 * lifecycle processor gives it the pass ({@link #start}). A task incarnation starts from the stream time Kafka Streams
 * restored from the committed offsets' metadata, so a restart adds no pass a replay does not run.
 *
 * <p>It also tells whether the app instance's input is quiet ({@link #quiet}, wall clock: when the observation
 * regrouping may run, never what it decides): no record of any task of its {@link Registry} for the quiet time, and none
 * since this task's previous look. Not the task's own input, since a task waits whenever its stream thread works for
 * another; and not the time alone, since the time a record is stamped with ({@code ProcessorContext#currentSystemTimeMs})
 * is read once before each batch of a task's records ({@code StreamTask#process(wallClockTime)}): a batch longer than the
 * quiet time (a lifecycle pass, a regrouping, a loaded machine) looked quiet at the punctuation right after it. A replay
 * ({@code bin/engram rebuild}) regrouped each of its 6 users' observations 5 to 8 times instead of once (120 LoCoMo
 * conversations, loaded). Not thread-safe but for what the tasks share: a task runs on one thread.
 */
final class LifecyclePassClock {

    private static final Logger LOG = LoggerFactory.getLogger(LifecyclePassClock.class);
    /** Wall-clock time between two warnings of one task about records beyond the bound, ms. */
    static final long WARN_INTERVAL_MS = 60_000;

    private long interval = Long.MAX_VALUE;
    private long maxFutureMs = Long.MAX_VALUE;
    private long time = -1;
    private boolean due;
    private long ignored;
    private long ignoredSinceWarning;
    private long lastWarningWallClockMs;
    private boolean warned;
    private String task = "?";
    private LongConsumer pass;
    private final AtomicLong appLastRecordWallClockMs;
    private final AtomicLong appRecords;
    private long appRecordsAtLastLook = -1;
    private final Runnable onAhead;

    /** A clock of its own (no other task's records count for its quiet). */
    LifecyclePassClock() {
        this(new AtomicLong(Long.MIN_VALUE), new AtomicLong(), () -> { });
    }

    /**
     * @param appLastRecordWallClockMs the wall-clock time of the latest record of any task sharing it
     * @param appRecords the records of every task sharing it, so far
     * @param onAhead told of each record beyond the bound (a counter)
     */
    private LifecyclePassClock(final AtomicLong appLastRecordWallClockMs, final AtomicLong appRecords,
                               final Runnable onAhead) {
        this.appLastRecordWallClockMs = appLastRecordWallClockMs;
        this.appRecords = appRecords;
        this.onAhead = onAhead;
    }

    /**
     * Starts a task incarnation: the pass to run, its period, the bound, and the stream time so far.
     *
     * @param intervalMs the pass's period of lifecycle time, ms, ≥ 1
     * @param maxFutureMs how far after the wall clock a record's timestamp may lie and still move the lifecycle time,
     *     ms, ≥ 0 ({@code input.max.future.ms})
     * @param restoredStreamTime the task's stream time at initialization (-1 when it has none yet); not taken when it
     *     lies beyond the bound at {@code wallClockMs}
     * @param wallClockMs the task's wall-clock time now, ms
     * @param taskName the task, for the warnings
     * @param lifecyclePass runs the pass at the given lifecycle time, ms
     * @throws IllegalArgumentException for an interval below 1 ms or a negative bound
     */
    void start(final long intervalMs, final long maxFutureMs, final long restoredStreamTime, final long wallClockMs,
               final String taskName, final LongConsumer lifecyclePass) {
        if (intervalMs < 1) {
            throw new IllegalArgumentException("lifecycle pass interval must be at least 1 ms: " + intervalMs);
        }
        if (maxFutureMs < 0) {
            throw new IllegalArgumentException("the bound after the wall clock must not be negative: " + maxFutureMs);
        }
        this.interval = intervalMs;
        this.maxFutureMs = maxFutureMs;
        this.task = taskName;
        this.pass = lifecyclePass;
        this.due = false;
        if (restoredStreamTime >= 0 && beyond(restoredStreamTime, wallClockMs)) {
            LOG.warn("Task {}: its stream time restored from the committed offsets, {}, lies more than {} ms after the wall"
                + " clock ({}): a record dated ahead moved it there before input.max.future.ms bounded the lifecycle"
                + " time; the lifecycle pass runs at the next record within the bound", task,
                Instant.ofEpochMilli(restoredStreamTime), maxFutureMs, Instant.ofEpochMilli(wallClockMs));
            this.time = -1;
        } else {
            this.time = restoredStreamTime;
        }
    }

    /**
     * Called before each record of the task is processed: moves the lifecycle time to the record's timestamp when it is
     * later and within the bound; a record beyond the bound leaves it and is warned of (the user key and the time; the
     * first of the task incarnation at once, then at most one warning every {@value #WARN_INTERVAL_MS} ms, counting the
     * others).
     *
     * @param userKey the record's key (a user key), for the warning
     * @param timestamp the record's timestamp, ms (negative: none, nothing happens)
     * @param wallClockMs the task's wall-clock time ({@code ProcessorContext#currentSystemTimeMs}), ms
     */
    void arrived(final String userKey, final long timestamp, final long wallClockMs) {
        if (timestamp < 0 || time >= 0 && timestamp <= time) {
            return; // no time, or a record behind the lifecycle time: it does not move
        }
        if (beyond(timestamp, wallClockMs)) {
            ignored++;
            ignoredSinceWarning++;
            onAhead.run();
            if (!warned || wallClockMs - lastWarningWallClockMs >= WARN_INTERVAL_MS) {
                LOG.warn("Task {}: a record of {} at {} lies more than input.max.future.ms={} ms after the wall clock ({});"
                    + " it is consolidated but does not move the lifecycle time ({}), so it ages no memory of its"
                    + " partition ({} such records since the last warning, {} in this task)", task, userKey,
                    Instant.ofEpochMilli(timestamp), maxFutureMs, Instant.ofEpochMilli(wallClockMs),
                    time < 0 ? "none yet" : Instant.ofEpochMilli(time), ignoredSinceWarning, ignored);
                warned = true;
                lastWarningWallClockMs = wallClockMs;
                ignoredSinceWarning = 0;
            }
            return;
        }
        due = due || time < 0 || Math.floorDiv(timestamp, interval) > Math.floorDiv(time, interval);
        time = timestamp;
    }

    /**
     * Called after each record of the task was processed: runs the pass when the record moved the lifecycle time into
     * a new period (or is the task's first within the bound).
     */
    void advanced() {
        if (due) {
            due = false;
            if (pass != null) {
                pass.accept(time);
            }
        }
    }

    /** @return the lifecycle time, ms: the latest record timestamp within the bound so far; -1 before any */
    long time() {
        return time;
    }

    /** @return records of this task incarnation whose timestamp lay beyond the bound */
    long ignored() {
        return ignored;
    }

    private boolean beyond(final long timestamp, final long wallClockMs) {
        return timestamp - wallClockMs > maxFutureMs; // both ≥ 0: no overflow
    }

    /**
     * Called with each record of the task, whatever its time: the input is not quiet.
     *
     * @param wallClockMs the task's wall-clock time ({@code ProcessorContext#currentSystemTimeMs}), ms
     */
    void received(final long wallClockMs) {
        appLastRecordWallClockMs.accumulateAndGet(wallClockMs, Math::max);
        appRecords.incrementAndGet();
    }

    /**
     * Whether the app's input is quiet: no record of any task sharing this clock's {@link Registry} for
     * {@code quietMs} ({@link #quietMs}) and none since this clock's previous look (so the first look after a record is
     * never quiet: called every {@code quietMs}, the input is quiet between one and two periods after its last record).
     *
     * @param wallClockMs the task's wall-clock time now (a punctuation's), ms
     * @param quietMs how long the input must have been quiet, ms
     * @return whether it is quiet
     */
    boolean quiet(final long wallClockMs, final long quietMs) {
        final long seen = appRecords.get();
        final boolean none = seen == appRecordsAtLastLook;
        appRecordsAtLastLook = seen;
        return none && quietMs(wallClockMs) >= quietMs;
    }

    /**
     * @param wallClockMs the task's wall-clock time now, ms
     * @return ms since the last record of any task sharing this clock's {@link Registry} ({@link #received});
     *     {@link Long#MAX_VALUE} before the first
     */
    long quietMs(final long wallClockMs) {
        final long last = appLastRecordWallClockMs.get();
        return last == Long.MIN_VALUE ? Long.MAX_VALUE : wallClockMs - last;
    }

    /**
     * The clocks of one topology's tasks, one per task and state directory, sharing the time of the latest record of any
     * of them and their count ({@link #quiet}).
     */
    static final class Registry {
        private final Map<String, LifecyclePassClock> tasks = new ConcurrentHashMap<>();
        private final AtomicLong lastRecordWallClockMs = new AtomicLong(Long.MIN_VALUE);
        private final AtomicLong records = new AtomicLong();
        private final Runnable onAhead;

        /** Clocks that count records beyond the bound nowhere but in their warnings. */
        Registry() {
            this(() -> { });
        }

        /**
         * @param onAhead told of each record of any task whose timestamp lies beyond the bound (the counter
         *     {@code engram.records.ahead})
         */
        Registry(final Runnable onAhead) {
            this.onAhead = onAhead;
        }

        /**
         * @param context a processor's context
         * @return its task's clock (the same for both processors of the task)
         */
        LifecyclePassClock of(final ProcessorContext<?, ?> context) {
            return tasks.computeIfAbsent(UserMemoryCache.Registry.taskKey(context),
                k -> new LifecyclePassClock(lastRecordWallClockMs, records, onAhead));
        }

        /**
         * Drops the task's clock: the lifecycle processor closed (a next incarnation gets a new one).
         *
         * @param context the closing processor's context
         * @param clock the clock it had
         */
        void leave(final ProcessorContext<?, ?> context, final LifecyclePassClock clock) {
            tasks.remove(UserMemoryCache.Registry.taskKey(context), clock);
        }
    }
}
