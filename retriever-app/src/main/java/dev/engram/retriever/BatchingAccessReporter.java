package dev.engram.retriever;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.engram.core.UserKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes access reports off the request thread: {@link #report} only enqueues (a bounded queue of
 * {@value #CAPACITY} reports; when it is full the report is dropped and counted, as access counts are a
 * ranking signal, not a ledger), and one daemon thread hands them to the delegate in batches of up to
 * {@value #BATCH} (each still one {@code MemoryAccessed} per answered request, so access counts mean what
 * they meant). {@link #close} drains what is queued, then closes the delegate.
 */
public final class BatchingAccessReporter implements AccessReporter {

    /** Reports held at most while the sender is behind. */
    static final int CAPACITY = 10_000;
    /** Reports handed over per wake-up at most. */
    static final int BATCH = 500;

    private static final Logger LOG = LoggerFactory.getLogger(BatchingAccessReporter.class);

    private record Report(UserKey user, List<String> memoryIds) {
    }

    private final AccessReporter delegate;
    private final BlockingQueue<Report> queue = new ArrayBlockingQueue<>(CAPACITY);
    private final AtomicLong dropped = new AtomicLong();
    private final Thread sender;
    private volatile boolean closing;

    /** @param delegate the reporter that sends (owned: closed with this one) */
    public BatchingAccessReporter(final AccessReporter delegate) {
        this.delegate = delegate;
        this.sender = new Thread(this::run, "engram-access-reporter");
        sender.setDaemon(true);
        sender.start();
    }

    @Override
    public void report(final UserKey user, final List<String> memoryIds) {
        if (memoryIds.isEmpty()) {
            return;
        }
        if (!queue.offer(new Report(user, List.copyOf(memoryIds)))) {
            if (dropped.incrementAndGet() % 1000 == 1) {
                LOG.warn("Access reports are dropped: the memory-access sender is behind ({} so far)", dropped.get());
            }
        }
    }

    /** @return reports dropped because the queue was full */
    public long dropped() {
        return dropped.get();
    }

    private void run() {
        final List<Report> batch = new ArrayList<>(BATCH);
        while (!closing || !queue.isEmpty()) {
            try {
                final Report first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, BATCH - 1);
                for (final Report r : batch) {
                    delegate.report(r.user(), r.memoryIds());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.warn("Could not report access of {} requests: {}", batch.size(), e.toString());
            } finally {
                batch.clear();
            }
        }
    }

    @Override
    public void close() {
        closing = true;
        try {
            sender.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        delegate.close();
    }
}
