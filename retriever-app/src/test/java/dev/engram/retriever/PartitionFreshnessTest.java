package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class PartitionFreshnessTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private final PartitionFreshness freshness = new PartitionFreshness(5 * SECOND);

    @Test
    void shouldStayCurrentWhenTheCommittedOffsetKeepsUpWithTheEnd() {
        for (int t = 0; t <= 60; t++) {
            freshness.sampled(0, t * SECOND, 100L * t);
            freshness.committed(0, 100L * t - 20, t * SECOND + 1); // a few records in flight: never quite at the end
        }
        assertThat(freshness.current(0, 60 * SECOND)).isTrue();
        assertThat(freshness.staleMillis(0, 60 * SECOND)).isLessThanOrEqualTo(1_000);
        assertThat(freshness.behind(0)).isEqualTo(20);
    }

    /** The scale-out's 404s: an instance 30 s behind its input told users committed 30 s before as unknown. */
    @Test
    void shouldTurnStaleWhenTheInstanceFallsBehindItsInputLongerThanTheBound() {
        for (int t = 0; t <= 40; t++) {
            freshness.sampled(1, t * SECOND, 100L * t);
            freshness.committed(1, t < 10 ? 100L * t : 1_000, t * SECOND); // stuck at offset 1,000 from t = 10 s
        }
        assertThat(freshness.current(1, 40 * SECOND)).isFalse();
        assertThat(freshness.staleMillis(1, 40 * SECOND)).isEqualTo(30_000);
        assertThat(freshness.behind(1)).as("end 4,000, committed 1,000").isEqualTo(3_000);
        assertThat(freshness.describe(1, "memory-updated", 40 * SECOND))
            .isEqualTo("partition 1 of memory-updated was last read to its end 30.0 s ago (about 3000 records behind)");

        freshness.sampled(1, 41 * SECOND, 4_100);
        freshness.committed(1, 4_100, 41 * SECOND); // caught up again
        assertThat(freshness.current(1, 41 * SECOND)).isTrue();
        assertThat(freshness.behind(1)).isZero();
    }

    @Test
    void shouldTurnStaleWhenNoSampleIsTakenAndBeCurrentWhenNeverSampled() {
        freshness.sampled(0, 0, 10);
        freshness.committed(0, 10, 0);
        assertThat(freshness.current(0, 4 * SECOND)).isTrue();
        assertThat(freshness.current(0, 6 * SECOND)).as("the cluster could not be asked for 6 s").isFalse();
        assertThat(freshness.current(7, 6 * SECOND)).as("never sampled: no checker").isTrue();
        assertThat(freshness.behind(7)).as("never sampled: not known").isEqualTo(-1);
        freshness.forget(0);
        assertThat(freshness.current(0, 6 * SECOND)).isTrue();
        assertThat(freshness.behind(0)).isEqualTo(-1);
    }
}
