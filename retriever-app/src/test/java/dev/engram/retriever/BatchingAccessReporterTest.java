package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.engram.core.UserKey;
import org.junit.jupiter.api.Test;

/**
 * The access reporter's batching: reports of one linger window reach the sender as one report per user, every
 * listing kept (the consolidator counts a memory once per request that returned it), and nothing is lost on close.
 */
class BatchingAccessReporterTest {

    private static final UserKey ANA = new UserKey("t1", "u-ana");
    private static final UserKey BEN = new UserKey("t1", "u-ben");

    /** What the delegate received, in order. */
    private record Sent(UserKey user, List<String> ids) {
    }

    private static final class Recording implements AccessReporter {
        final List<Sent> sent = new CopyOnWriteArrayList<>();
        volatile boolean closed;

        @Override
        public void report(final UserKey user, final List<String> memoryIds) {
            sent.add(new Sent(user, List.copyOf(memoryIds)));
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void shouldSendOneReportPerUserPerBatchKeepingEveryListing() {
        final Recording delegate = new Recording();
        final BatchingAccessReporter reporter = new BatchingAccessReporter(delegate, 60_000);
        reporter.report(ANA, List.of("m1", "m2"));
        reporter.report(BEN, List.of("m9"));
        reporter.report(ANA, List.of("m2", "m3"));
        reporter.report(ANA, List.of());
        // close ends the linger at once and drains the queue
        reporter.close();
        assertThat(delegate.closed).isTrue();
        assertThat(delegate.sent).containsExactly(new Sent(ANA, List.of("m1", "m2", "m2", "m3")),
            new Sent(BEN, List.of("m9")));
        assertThat(reporter.dropped()).isZero();
    }

    @Test
    void shouldCollectForTheConfiguredLingerWhenBuiltFromTheConfig() {
        final BatchingAccessReporter configured = BatchingAccessReporter.from(
            new dev.engram.config.EngramConfig(Map.of(RetrieverConfig.ACCESS_LINGER_MS, "2000")), new Recording());
        final BatchingAccessReporter byDefault = BatchingAccessReporter.from(dev.engram.config.EngramConfig.plain(), new Recording());
        try {
            assertThat(configured.lingerMs()).isEqualTo(2000);
            assertThat(byDefault.lingerMs()).isEqualTo(BatchingAccessReporter.DEFAULT_LINGER_MS).isEqualTo(1000);
        } finally {
            configured.close();
            byDefault.close();
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new dev.engram.config.EngramConfig(
                Map.of(RetrieverConfig.ACCESS_LINGER_MS, "-1")))
            .isInstanceOf(org.apache.kafka.common.config.ConfigException.class)
            .hasMessageContaining(RetrieverConfig.ACCESS_LINGER_MS);
    }

    @Test
    void shouldSendWithinTheLingerWithoutWaitingForClose() throws InterruptedException {
        final Recording delegate = new Recording();
        final BatchingAccessReporter reporter = new BatchingAccessReporter(delegate, 50);
        try {
            reporter.report(ANA, List.of("m1"));
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (delegate.sent.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(delegate.sent).containsExactly(new Sent(ANA, List.of("m1")));
            assertThat(delegate.closed).isFalse();
        } finally {
            reporter.close();
        }
    }

    @Test
    void shouldGroupPerUserInOrderOfFirstReport() {
        final List<BatchingAccessReporter.Report> batch = new ArrayList<>(List.of(
            new BatchingAccessReporter.Report(BEN, List.of("b1")), new BatchingAccessReporter.Report(ANA, List.of("a1")),
            new BatchingAccessReporter.Report(BEN, List.of("b1", "b2"))));
        final Map<UserKey, List<String>> grouped = BatchingAccessReporter.perUser(batch);
        assertThat(grouped.keySet()).containsExactly(BEN, ANA);
        assertThat(grouped.get(BEN)).containsExactly("b1", "b1", "b2");
    }
}
