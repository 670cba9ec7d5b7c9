package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.engram.avro.AuditRecord;
import org.junit.jupiter.api.Test;

/**
 * The audit reporter off the request thread: every record reaches the sink in order, none is lost on close, and
 * a full queue sends on the caller's thread instead of dropping (audit records are a ledger).
 */
class BatchingAuditReporterTest {

    private static final class Recording implements AuditReporter {
        final List<String> ids = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();
        final CountDownLatch release;
        volatile boolean closed;

        Recording(final CountDownLatch release) {
            this.release = release;
        }

        @Override
        public void record(final AuditRecord record) {
            ids.add(record.getAuditId());
            threads.add(Thread.currentThread().getName());
            if (!"engram-audit-reporter".equals(Thread.currentThread().getName())) {
                return; // only the sender is held
            }
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static AuditRecord audit(final String id) {
        return AuditRecord.newBuilder().setAuditId(id).setActor("anonymous").setActorScope("AUTH_DISABLED")
            .setTenantId("t1").setUserId("u1").setAction("memories.query").setOutcome("OK").setStatus(200)
            .setSource("retriever").setOccurredAt(Instant.EPOCH).build();
    }

    @Test
    void shouldHandEveryRecordToTheSinkInOrderAndDrainOnClose() {
        final Recording sink = new Recording(new CountDownLatch(0));
        final BatchingAuditReporter reporter = new BatchingAuditReporter(sink);
        reporter.record(audit("a1"));
        reporter.record(audit("a2"));
        reporter.record(audit("a3"));
        reporter.close();
        assertThat(sink.ids).containsExactly("a1", "a2", "a3");
        assertThat(sink.threads).containsOnly("engram-audit-reporter");
        assertThat(sink.closed).isTrue();
    }

    @Test
    void shouldSendOnTheCallersThreadWhenTheQueueIsFull() throws InterruptedException {
        final CountDownLatch release = new CountDownLatch(1);
        final Recording sink = new Recording(release);
        final BatchingAuditReporter reporter = new BatchingAuditReporter(sink);
        try {
            reporter.record(audit("first"));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (sink.ids.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(5); // until the sender holds "first" in the (blocked) sink
            }
            for (int i = 0; i < BatchingAuditReporter.CAPACITY; i++) {
                reporter.record(audit("q" + i));
            }
            reporter.record(audit("overflow")); // the queue is full and the sender held in the sink
            assertThat(sink.threads.get(sink.ids.indexOf("overflow"))).isEqualTo(Thread.currentThread().getName());
        } finally {
            release.countDown();
            reporter.close();
        }
        assertThat(sink.ids).hasSize(BatchingAuditReporter.CAPACITY + 2).contains("first", "q0", "overflow");
    }
}
