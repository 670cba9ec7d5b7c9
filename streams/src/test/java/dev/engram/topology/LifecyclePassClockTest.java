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

    private final List<Long> passes = new ArrayList<>();

    private LifecyclePassClock started(final long restored) {
        final LifecyclePassClock clock = new LifecyclePassClock();
        clock.start(DAY, restored, passes::add);
        return clock;
    }

    @Test
    void shouldRunThePassAtTheFirstRecordAndAtEachRecordThatCrossesADayWhenStreamTimeMoves() {
        final LifecyclePassClock clock = started(-1);
        clock.advanced(MAY_1 + 10 * 3_600_000L);           // first record of the task: a pass
        clock.advanced(MAY_1 + 20 * 3_600_000L);           // same day
        clock.advanced(MAY_1 + DAY + 60_000L);             // crosses May 2: a pass at this record's time
        clock.advanced(MAY_1 + DAY + 120_000L);            // same day, a record of the same batch
        clock.advanced(MAY_1 + 5 * DAY + 1L);              // days without records: one pass

        assertThat(passes).containsExactly(MAY_1 + 10 * 3_600_000L, MAY_1 + DAY + 60_000L, MAY_1 + 5 * DAY + 1L);
    }

    @Test
    void shouldNotRunThePassWhenARecordIsBehindStreamTime() {
        final LifecyclePassClock clock = started(-1);
        clock.advanced(MAY_1 + 2 * DAY);
        clock.advanced(MAY_1 + 2 * DAY); // stream time does not move for an older record
        clock.advanced(-1);              // nothing read yet on another partition

        assertThat(passes).containsExactly(MAY_1 + 2 * DAY);
    }

    @Test
    void shouldGiveTheSamePassesWhateverRecordsABatchHeldWhenTheRecordSequenceIsTheSame() {
        // what a STREAM_TIME punctuator did not: its time was the stream time after the whole batch
        final long[] sequence = {MAY_1 + 1_000, MAY_1 + DAY - 1, MAY_1 + DAY + 5, MAY_1 + DAY + 9, MAY_1 + 3 * DAY};
        final LifecyclePassClock one = started(-1);
        for (final long t : sequence) {
            one.advanced(t);
        }
        final List<Long> first = List.copyOf(passes);
        passes.clear();
        final LifecyclePassClock other = started(-1);
        for (final long t : sequence) {
            other.advanced(t);
        }

        assertThat(passes).isEqualTo(first).containsExactly(MAY_1 + 1_000, MAY_1 + DAY + 5, MAY_1 + 3 * DAY);
    }

    @Test
    void shouldResumeFromTheRestoredStreamTimeWhenATaskIncarnationStarts() {
        final LifecyclePassClock clock = started(MAY_1 + 3_600_000L); // committed stream time of the last run
        clock.advanced(MAY_1 + 7_200_000L);   // the same day: no extra pass for the restart
        clock.advanced(MAY_1 + DAY + 1);      // the next day's pass, as in a run without the restart

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
        assertThatThrownBy(() -> new LifecyclePassClock().start(0, -1, passes::add))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 ms");
    }
}
