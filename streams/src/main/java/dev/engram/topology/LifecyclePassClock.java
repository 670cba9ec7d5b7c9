package dev.engram.topology;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * When the consolidator's lifecycle pass runs: after the record that moves the task's stream time into a new
 * {@code lifecycle.interval.ms} period (periods aligned to the epoch), with that stream time as the pass's time, and
 * after the task's first record. That is where a Kafka Streams STREAM_TIME punctuator of the same interval is due, but
 * Streams checks punctuators only between batches of records ({@code TaskExecutor#punctuate} after
 * {@code process(numIterations)}), and passes the stream time of that moment: how many records a batch held, which
 * depends on the fetch sizes and the load, decided which candidates the pass saw and the time it stamped on its
 * changes. A live run and a replay ({@code bin/engram rebuild}) could therefore end with different memories: the
 * loaded {@code bench rebuild} run that found one user's content differing (same counts) is what a pass at another
 * stream time gives, as its changes carry its time. Here the pass is a function of the record sequence: it runs inside
 * the processing of the crossing record, exactly where {@code TopologyTestDriver} (one record per batch) ran it.
 *
 * <p>Shared by the two processors of one task ({@code consolidate-memories} and {@code maintain-memory-lifecycle}),
 * each telling it after every record ({@link #advanced}); the lifecycle processor gives it the pass ({@link #start}).
 * A task incarnation starts from the stream time Kafka Streams restored from the committed offsets' metadata, so a
 * restart adds no pass a replay does not run.
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

    private long interval = Long.MAX_VALUE;
    private long streamTime = -1;
    private LongConsumer pass;
    private final AtomicLong appLastRecordWallClockMs;
    private final AtomicLong appRecords;
    private long appRecordsAtLastLook = -1;

    /** A clock of its own (no other task's records count for its quiet). */
    LifecyclePassClock() {
        this(new AtomicLong(Long.MIN_VALUE), new AtomicLong());
    }

    /**
     * @param appLastRecordWallClockMs the wall-clock time of the latest record of any task sharing it
     * @param appRecords the records of every task sharing it, so far
     */
    private LifecyclePassClock(final AtomicLong appLastRecordWallClockMs, final AtomicLong appRecords) {
        this.appLastRecordWallClockMs = appLastRecordWallClockMs;
        this.appRecords = appRecords;
    }

    /**
     * Starts a task incarnation: the pass to run, its period, and the stream time so far.
     *
     * @param intervalMs the pass's period of stream time, ms, ≥ 1
     * @param restoredStreamTime the task's stream time at initialization (-1 when it has none yet)
     * @param lifecyclePass runs the pass at the given stream time, ms
     * @throws IllegalArgumentException for an interval below 1 ms
     */
    void start(final long intervalMs, final long restoredStreamTime, final LongConsumer lifecyclePass) {
        if (intervalMs < 1) {
            throw new IllegalArgumentException("lifecycle pass interval must be at least 1 ms: " + intervalMs);
        }
        this.interval = intervalMs;
        this.streamTime = restoredStreamTime;
        this.pass = lifecyclePass;
    }

    /**
     * Called after each record of the task was processed: runs the pass when this record moved stream time into a new
     * period (or is the task's first).
     *
     * @param now the task's stream time after the record, ms (negative: none yet, nothing happens)
     */
    void advanced(final long now) {
        if (now < 0 || now <= streamTime && streamTime >= 0) {
            return; // no stream time yet, or a record behind stream time: it does not move
        }
        final boolean due = streamTime < 0 || Math.floorDiv(now, interval) > Math.floorDiv(streamTime, interval);
        streamTime = now;
        if (due && pass != null) {
            pass.accept(now);
        }
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

        /**
         * @param context a processor's context
         * @return its task's clock (the same for both processors of the task)
         */
        LifecyclePassClock of(final ProcessorContext<?, ?> context) {
            return tasks.computeIfAbsent(UserMemoryCache.Registry.taskKey(context),
                k -> new LifecyclePassClock(lastRecordWallClockMs, records));
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
