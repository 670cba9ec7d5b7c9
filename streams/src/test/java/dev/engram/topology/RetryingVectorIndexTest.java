package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.engram.avro.Memory;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndex;
import dev.engram.port.VectorIndexUnavailableException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class RetryingVectorIndexTest {

    private static final UserKey ANA = new UserKey("t1", "u-ana");
    private static final RetryingVectorIndex.Policy POLICY =
        new RetryingVectorIndex.Policy(Duration.ofMillis(100), Duration.ofMillis(1600), Duration.ofMillis(5000));

    private final AtomicLong clock = new AtomicLong();
    private final List<Duration> pauses = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private RetryingVectorIndex retrying(final VectorIndex delegate) {
        return new RetryingVectorIndex(delegate, POLICY, d -> {
            pauses.add(d);
            clock.addAndGet(d.toNanos());
        }, clock::get, registry, "engram-consolidator");
    }

    @Test
    void shouldRetryWithDoublingBackoffAndReturnWhenTheIndexComesBackWithinTheBudget() {
        final AtomicInteger failures = new AtomicInteger(3);
        final VectorIndex flaky = new Failing(failures);
        retrying(flaky).deleteUser(ANA);
        assertThat(pauses).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400));
        assertThat(registry.get("engram.vector.index.retries").tag("operation", "delete_user").counter().count()).isEqualTo(3);
    }

    @Test
    void shouldGiveTheRecordBackAsAnIndexOutageWhenTheIndexStaysDownForTheBudget() {
        final VectorIndex down = new Failing(new AtomicInteger(Integer.MAX_VALUE));
        assertThatThrownBy(() -> retrying(down).search(new VectorIndex.Query(ANA, new float[] {1}, 1, true)))
            .isInstanceOf(org.apache.kafka.streams.errors.TaskMigratedException.class)
            .hasCauseInstanceOf(VectorIndexUnavailableException.class)
            .satisfies(e -> assertThat(RetryingVectorIndex.isIndexOutage(e)).isTrue());
        assertThat(RetryingVectorIndex.isIndexOutage(new IllegalStateException("bug"))).isFalse();
        // 100+200+400+800+1600+1600 = 4700 ms spent; one more 1600 ms pause would pass the 5000 ms budget
        assertThat(pauses).hasSize(6).last().isEqualTo(Duration.ofMillis(1600));
        assertThat(registry.get("engram.vector.index.rewinds").tag("operation", "search").counter().count()).isEqualTo(1);
    }

    @Test
    void shouldNotRetryWhenTheFailureIsNotAvailability() {
        final VectorIndex broken = new Failing(new AtomicInteger(0)) {
            @Override
            public void upsert(final Memory memory) {
                throw new IllegalStateException("collection has another vector size");
            }
        };
        assertThatThrownBy(() -> retrying(broken).upsert(null)).isInstanceOf(IllegalStateException.class);
        assertThat(pauses).isEmpty();
    }

    /** Fails with UNAVAILABLE while the counter is positive. */
    private static class Failing implements VectorIndex {
        private final AtomicInteger failures;

        Failing(final AtomicInteger failures) {
            this.failures = failures;
        }

        private void maybeFail() {
            if (failures.getAndDecrement() > 0) {
                throw new VectorIndexUnavailableException("op", "UNAVAILABLE", "down", null);
            }
        }

        @Override
        public List<Hit> search(final Query query) {
            maybeFail();
            return List.of();
        }

        @Override
        public void upsert(final Memory memory) {
            maybeFail();
        }

        @Override
        public void delete(final UserKey user, final String memoryId) {
            maybeFail();
        }

        @Override
        public void deleteUser(final UserKey user) {
            maybeFail();
        }
    }
}
