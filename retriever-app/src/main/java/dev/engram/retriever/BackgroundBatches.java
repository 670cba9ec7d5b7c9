package dev.engram.retriever;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes items off the request thread and hands them to a sink in batches, on one daemon thread of its own.
 * {@link #offer} only enqueues (a bounded queue, never blocking: a slow broker does not hold a request), and the
 * thread collects what arrives within the linger of the first queued item (at most {@code batchSize} items), then
 * calls the sink once with them, in arrival order. What a full queue means (drop, or send on the caller's thread) is
 * the caller's choice. A sink that throws loses that batch (logged). {@link #close} ends the linger, drains what is
 * queued and returns once the thread is done (or 5 s passed). Used by {@link BatchingAccessReporter} and
 * {@link BatchingAuditReporter}.
 *
 * @param <T> the queued item
 */
final class BackgroundBatches<T> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BackgroundBatches.class);
    private static final long CLOSE_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final String what;
    private final BlockingQueue<T> queue;
    private final int batchSize;
    private final long lingerNanos;
    private final Consumer<List<T>> sink;
    private final Thread sender;
    private volatile boolean closing;

    /**
     * Starts the sending thread.
     *
     * @param threadName the sending thread's name
     * @param what what the items are, for the log ("access reports (memory-access)")
     * @param capacity items held at most while the sink is behind
     * @param batchSize items handed to the sink per call at most
     * @param lingerMs how long to collect after the first item of a batch, ms (0: what is queued then)
     * @param sink called with each batch, on the sending thread
     */
    BackgroundBatches(final String threadName, final String what, final int capacity, final int batchSize,
                      final long lingerMs, final Consumer<List<T>> sink) {
        if (lingerMs < 0) {
            throw new IllegalArgumentException("lingerMs must not be negative: " + lingerMs);
        }
        this.what = what;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.batchSize = batchSize;
        this.lingerNanos = TimeUnit.MILLISECONDS.toNanos(lingerMs);
        this.sink = sink;
        this.sender = new Thread(this::run, threadName);
        sender.setDaemon(true);
        sender.start();
    }

    /**
     * Queues an item; never blocks.
     *
     * @param item the item
     * @return false when the queue is full: the item was not queued
     */
    boolean offer(final T item) {
        return queue.offer(item);
    }

    private void run() {
        final List<T> batch = new ArrayList<>(batchSize);
        while (!closing || !queue.isEmpty()) {
            try {
                final T first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                collect(batch, System.nanoTime() + lingerNanos);
                sink.accept(batch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.warn("Could not send a batch of {} {}: {}", batch.size(), what, e.toString());
            } finally {
                batch.clear();
            }
        }
    }

    /** Adds what arrives until the deadline (System.nanoTime) to the batch, up to the batch size; sooner when closing. */
    private void collect(final List<T> batch, final long deadline) throws InterruptedException {
        while (batch.size() < batchSize) {
            queue.drainTo(batch, batchSize - batch.size());
            final long left = deadline - System.nanoTime();
            if (left <= 0 || closing || batch.size() >= batchSize) {
                return;
            }
            // in slices, so that close() ends the wait soon
            final T next = queue.poll(Math.min(left, CLOSE_CHECK_NANOS), TimeUnit.NANOSECONDS);
            if (next != null) {
                batch.add(next);
            }
        }
    }

    /** Drains what is queued to the sink, then returns (after 5 s at most). */
    @Override
    public void close() {
        closing = true;
        try {
            sender.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
