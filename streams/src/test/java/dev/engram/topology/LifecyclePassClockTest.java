package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.junit.jupiter.api.Test;

class LifecyclePassClockTest {

    private static final long DAY = Duration.ofDays(1).toMillis();
    private static final long MAY_1 = Instant.parse("2023-05-01T00:00:00Z").toEpochMilli();
    private static final long HOUR = 3_600_000L;
    /** The wall clock of most tests: long after their records, as in a replay. */
    private static final long NOW = Instant.parse("2026-12-05T09:00:00Z").toEpochMilli();
    private static final long YEAR_9999 = Instant.parse("9999-12-31T00:00:00Z").toEpochMilli();

    private final List<Long> passes = new ArrayList<>();

    private LifecyclePassClock started(final long restored) {
        final LifecyclePassClock clock = new LifecyclePassClock();
        clock.start(DAY, HOUR, restored, NOW, "0_0", passes::add);
        return clock;
    }

    /** One record at {@code timestamp}, processed at wall-clock time {@link #NOW}. */
    private static void record(final LifecyclePassClock clock, final long timestamp) {
        record(clock, timestamp, NOW);
    }

    private static void record(final LifecyclePassClock clock, final long timestamp, final long wallClock) {
        clock.arrived("acme/ann", timestamp, wallClock);
        clock.advanced();
    }

    @Test
    void shouldRunThePassAtTheFirstRecordAndAtEachRecordThatCrossesADayWhenStreamTimeMoves() {
        final LifecyclePassClock clock = started(-1);
        record(clock, MAY_1 + 10 * 3_600_000L);           // first record of the task: a pass
        record(clock, MAY_1 + 20 * 3_600_000L);           // same day
        record(clock, MAY_1 + DAY + 60_000L);             // crosses May 2: a pass at this record's time
        record(clock, MAY_1 + DAY + 120_000L);            // same day, a record of the same batch
        record(clock, MAY_1 + 5 * DAY + 1L);              // days without records: one pass

        assertThat(passes).containsExactly(MAY_1 + 10 * 3_600_000L, MAY_1 + DAY + 60_000L, MAY_1 + 5 * DAY + 1L);
    }

    @Test
    void shouldNotRunThePassWhenARecordIsBehindStreamTime() {
        final LifecyclePassClock clock = started(-1);
        record(clock, MAY_1 + 2 * DAY);
        record(clock, MAY_1 + 2 * DAY); // stream time does not move for an older record
        record(clock, -1);              // nothing read yet on another partition

        assertThat(passes).containsExactly(MAY_1 + 2 * DAY);
    }

    @Test
    void shouldGiveTheSamePassesWhateverRecordsABatchHeldWhenTheRecordSequenceIsTheSame() {
        // what a STREAM_TIME punctuator did not: its time was the stream time after the whole batch
        final long[] sequence = {MAY_1 + 1_000, MAY_1 + DAY - 1, MAY_1 + DAY + 5, MAY_1 + DAY + 9, MAY_1 + 3 * DAY};
        final LifecyclePassClock one = started(-1);
        for (final long t : sequence) {
            record(one, t);
        }
        final List<Long> first = List.copyOf(passes);
        passes.clear();
        final LifecyclePassClock other = started(-1);
        for (final long t : sequence) {
            record(other, t);
        }

        assertThat(passes).isEqualTo(first).containsExactly(MAY_1 + 1_000, MAY_1 + DAY + 5, MAY_1 + 3 * DAY);
    }

    @Test
    void shouldResumeFromTheRestoredStreamTimeWhenATaskIncarnationStarts() {
        final LifecyclePassClock clock = started(MAY_1 + 3_600_000L); // committed stream time of the last run
        record(clock, MAY_1 + 7_200_000L);   // the same day: no extra pass for the restart
        record(clock, MAY_1 + DAY + 1);      // the next day's pass, as in a run without the restart

        assertThat(passes).containsExactly(MAY_1 + DAY + 1);
    }

    @Test
    void shouldCountEveryTasksRecordsAsInputWhenTellingHowLongTheAppHasBeenQuiet() {
        final LifecyclePassClock.Registry registry = new LifecyclePassClock.Registry();
        final LifecyclePassClock a = registry.of(task(0));
        final LifecyclePassClock b = registry.of(task(1));
        assertThat(registry.of(task(0))).as("one clock per task").isSameAs(a);
        assertThat(a.quietMs(1_000)).as("before any record").isEqualTo(Long.MAX_VALUE);

        a.received(1_000);
        b.received(1_150); // task a gets nothing while its thread works for task b: the app is not quiet

        assertThat(a.quietMs(1_200)).isEqualTo(50);
        assertThat(b.quietMs(1_200)).isEqualTo(50);
        b.received(1_100); // a task's wall clock a little behind another's keeps the latest
        assertThat(a.quietMs(1_400)).isEqualTo(250);
        assertThat(new LifecyclePassClock().quietMs(1_400)).as("a clock outside the registry").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shouldFindTheInputQuietOnlyWhenNoRecordCameSinceTheLookBeforeWhenTheStampedTimeIsStale() {
        final LifecyclePassClock.Registry registry = new LifecyclePassClock.Registry();
        final LifecyclePassClock a = registry.of(task(0));
        final LifecyclePassClock b = registry.of(task(1));
        b.received(1_000); // stamped with its batch's start time: the batch ran on for 300 ms
        assertThat(a.quiet(1_300, 200)).as("a record came since a's look before (none)").isFalse();
        assertThat(a.quiet(1_500, 200)).as("none since, and 500 ms without one").isTrue();
        b.received(1_500);
        assertThat(a.quiet(1_800, 200)).isFalse();
        assertThat(b.quiet(1_800, 200)).as("each task's look is its own").isFalse();
        assertThat(a.quiet(1_900, 500)).as("none since, but not quiet long enough").isFalse();
        assertThat(a.quiet(2_000, 500)).isTrue();
    }

    private static MockProcessorContext<Object, Object> task(final int partition) {
        return new MockProcessorContext<>(new java.util.Properties(), new TaskId(0, partition),
            new java.io.File(System.getProperty("java.io.tmpdir"), "lifecycle-pass-clock-test"));
    }

    @Test
    void shouldRefuseAnIntervalBelowOneMillisecondWhenStarted() {
        assertThatThrownBy(() -> new LifecyclePassClock().start(0, HOUR, -1, NOW, "0_0", passes::add))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 ms");
    }

    @Test
    void shouldNotMoveTheLifecycleTimeWhenARecordLiesBeyondTheBoundAfterTheWallClock() {
        final LifecyclePassClock clock = started(-1);
        record(clock, MAY_1);                        // the task's first record: a pass
        record(clock, YEAR_9999);                    // another user's conversation dated 9999: ignored
        record(clock, NOW + HOUR + 1);               // 1 ms beyond the bound: ignored
        assertThat(clock.time()).isEqualTo(MAY_1);
        assertThat(clock.ignored()).isEqualTo(2);
        record(clock, MAY_1 + DAY + 5);              // the next legitimate day still runs its pass

        assertThat(passes).containsExactly(MAY_1, MAY_1 + DAY + 5);
    }

    @Test
    void shouldTakeARecordAtTheBoundWhenItIsExactlyTheBoundAfterTheWallClock() {
        final LifecyclePassClock clock = started(-1);
        record(clock, NOW + HOUR);                   // a client clock an hour fast: within the bound
        record(clock, NOW + HOUR + DAY, NOW + DAY);  // a day later by the wall clock too

        assertThat(passes).containsExactly(NOW + HOUR, NOW + HOUR + DAY);
    }

    @Test
    void shouldTakeARecordOnceTheWallClockHasCaughtUpWithItWhenItWasBeyondTheBoundBefore() {
        // what a replay after the date does with a record the live run ignored (said in docs/operations.md)
        final LifecyclePassClock live = started(-1);
        record(live, MAY_1, MAY_1);
        record(live, MAY_1 + 3 * DAY, MAY_1);        // two days ahead of the live run's wall clock: ignored
        final List<Long> livePasses = List.copyOf(passes);
        passes.clear();
        final LifecyclePassClock replay = started(-1);
        record(replay, MAY_1);
        record(replay, MAY_1 + 3 * DAY);             // the replay runs later: taken

        assertThat(livePasses).containsExactly(MAY_1);
        assertThat(passes).containsExactly(MAY_1, MAY_1 + 3 * DAY);
    }

    @Test
    void shouldGiveTheStreamTimesPassesWhenEveryRecordIsWithinTheBound() {
        // legitimate data: the lifecycle time is the stream time (the largest timestamp so far), record by record
        final long[] sequence = {MAY_1 + 7, MAY_1 + 3, MAY_1 + DAY, MAY_1 + DAY - 1, MAY_1 + 2 * DAY + 4, MAY_1 + 9 * DAY};
        final LifecyclePassClock clock = started(-1);
        long streamTime = -1;
        for (final long t : sequence) {
            record(clock, t);
            streamTime = Math.max(streamTime, t);
            assertThat(clock.time()).isEqualTo(streamTime);
        }
        assertThat(clock.ignored()).isZero();
        assertThat(passes).containsExactly(MAY_1 + 7, MAY_1 + DAY, MAY_1 + 2 * DAY + 4, MAY_1 + 9 * DAY);
    }

    @Test
    void shouldStartAfreshWhenTheRestoredStreamTimeLiesBeyondTheBound() {
        // a partition whose stream time a 9999 record moved before the bound existed
        final LifecyclePassClock clock = started(YEAR_9999);
        assertThat(clock.time()).isEqualTo(-1);
        record(clock, MAY_1 + 5);                    // the next record within the bound runs a pass at its time
        record(clock, MAY_1 + DAY + 5);

        assertThat(passes).containsExactly(MAY_1 + 5, MAY_1 + DAY + 5);
    }

    @Test
    void shouldRefuseANegativeBoundWhenStarted() {
        assertThatThrownBy(() -> new LifecyclePassClock().start(DAY, -1, -1, NOW, "0_0", passes::add))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be negative");
    }
}
