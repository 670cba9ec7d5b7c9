package dev.engram.retriever;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.engram.core.UserKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes access reports off the request thread and sends them per user and batch: {@link #report} only enqueues
 * (a bounded queue of {@value #CAPACITY} reports; when it is full the report is dropped and counted, as access
 * counts are a ranking signal, not a ledger), and one daemon thread collects what arrives within
 * {@link #DEFAULT_LINGER_MS} ms of the first queued report (at most {@value #BATCH} reports), then hands the
 * delegate one report per user: the memory ids of that user's requests in order, an id once per request that
 * returned it (the consolidator raises a memory's access count by the number of times it is listed, so access
 * counts mean what they meant). One record and one consolidator write per user and batch instead of per request:
 * JFR of {@code bench retrieval} at saturation put the access loop (the consolidator applying each report, the
 * retriever materializing each resulting {@code memory-updated}, the broker between them) at ~60 % of the JVM's
 * Java samples (BENCHMARKS.md, "Serving cost"). An access is applied up to the linger later than without
 * batching. {@link #close} drains what is queued, then closes the delegate.
 */
public final class BatchingAccessReporter implements AccessReporter {

    /** Reports held at most while the sender is behind. */
    static final int CAPACITY = 10_000;
    /** Reports handed over per wake-up at most. */
    static final int BATCH = 500;
    /** How long the sender collects reports after the first one of a batch, ms. */
    public static final long DEFAULT_LINGER_MS = 250;
    private static final long CLOSE_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private static final Logger LOG = LoggerFactory.getLogger(BatchingAccessReporter.class);

    record Report(UserKey user, List<String> memoryIds) {
    }

    private final AccessReporter delegate;
    private final BlockingQueue<Report> queue = new ArrayBlockingQueue<>(CAPACITY);
    private final AtomicLong dropped = new AtomicLong();
    private final Thread sender;
    private final long lingerNanos;
    private volatile boolean closing;

    /** @param delegate the reporter that sends (owned: closed with this one), with the default linger */
    public BatchingAccessReporter(final AccessReporter delegate) {
        this(delegate, DEFAULT_LINGER_MS);
    }

    /**
     * @param delegate the reporter that sends (owned: closed with this one)
     * @param lingerMs how long a batch collects reports after its first, ms (0: whatever is queued at once)
     */
    public BatchingAccessReporter(final AccessReporter delegate, final long lingerMs) {
        if (lingerMs < 0) {
            throw new IllegalArgumentException("lingerMs must not be negative: " + lingerMs);
        }
        this.delegate = delegate;
        this.lingerNanos = TimeUnit.MILLISECONDS.toNanos(lingerMs);
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
                collect(batch, System.nanoTime() + lingerNanos);
                perUser(batch).forEach(delegate::report);
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

    /** Adds what arrives until the deadline (System.nanoTime) to the batch, up to {@value #BATCH}; sooner when closing. */
    private void collect(final List<Report> batch, final long deadline) throws InterruptedException {
        while (batch.size() < BATCH) {
            queue.drainTo(batch, BATCH - batch.size());
            final long left = deadline - System.nanoTime();
            if (left <= 0 || closing || batch.size() >= BATCH) {
                return;
            }
            // in slices, so that close() ends the wait soon
            final Report next = queue.poll(Math.min(left, CLOSE_CHECK_NANOS), TimeUnit.NANOSECONDS);
            if (next != null) {
                batch.add(next);
            }
        }
    }

    /**
     * @param batch reports in arrival order
     * @return per user (in order of first report), the memory ids of all its reports in order, repeats kept
     */
    static Map<UserKey, List<String>> perUser(final List<Report> batch) {
        final Map<UserKey, List<String>> out = new LinkedHashMap<>();
        for (final Report r : batch) {
            out.computeIfAbsent(r.user(), u -> new ArrayList<>()).addAll(r.memoryIds());
        }
        return out;
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
