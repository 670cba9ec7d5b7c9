package dev.engram.deploy;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.engram.stack.Ingest;

/**
 * What {@code bin/engram ingest} says on stderr while it runs and when it is stopped. A long run printed nothing until
 * its summary (600,000 lines: 31 s of silence), and SIGINT or SIGTERM ended it with exit 130 or 143 and no word of
 * what had been published. Now a line every {@code --progress-seconds} (the first after one interval, so a short run
 * stays quiet): records published, acknowledged and failed, lines refused, the rate since the start; and, from the
 * shutdown hook of an interrupted run, the reading stopped ({@link Ingest#stopSending}), the producer flushed (the
 * records in flight acknowledged or failed, within the producer's delivery timeout) and the same counts with the input
 * line of the last record published.
 *
 * <p>Thread-safe: the timer thread, the shutdown hook and the main thread share it; exactly one of the main thread's
 * summary ({@link #finish}) and the hook's report ({@link #interrupted}) is printed.
 */
final class IngestProgress implements AutoCloseable {

    private final Ingest ingest;
    private final PrintStream err;
    private final long startNanos = System.nanoTime();
    private final ScheduledExecutorService timer;
    private final AtomicBoolean ended = new AtomicBoolean();

    /**
     * Starts the progress lines.
     *
     * @param ingest the ingest whose counts are printed
     * @param err where the lines go (stderr)
     * @param intervalSeconds seconds between two lines, at least 1
     */
    IngestProgress(final Ingest ingest, final PrintStream err, final int intervalSeconds) {
        this.ingest = ingest;
        this.err = err;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread thread = new Thread(r, "engram-ingest-progress");
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleAtFixedRate(() -> {
            if (!ended.get()) {
                err.println("ingest: " + counts());
            }
        }, intervalSeconds, intervalSeconds, TimeUnit.SECONDS);
    }

    /** @return the counts so far: published, acknowledged, failed, refused, and the rate over the run */
    String counts() {
        final double seconds = (System.nanoTime() - startNanos) / 1e9;
        return String.format(Locale.ROOT, "%,d records published (%,d acknowledged, %,d failed), %,d lines refused, "
                + "%,.0f records/s over %.0f s", ingest.sent(), ingest.acknowledged(), ingest.failed(), ingest.refused(),
            ingest.sent() / Math.max(seconds, 1e-3), seconds);
    }

    /**
     * Ends the progress lines as the run completes.
     *
     * @return true when the main thread prints the summary; false when an interrupt already reported
     */
    boolean finish() {
        close();
        return ended.compareAndSet(false, true);
    }

    /**
     * The shutdown hook's work: unless the run completed, flushes the producer and prints what was published.
     */
    void interrupted() {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        close();
        err.println("ingest: stopping: waiting for the records in flight…");
        String flush = "";
        try {
            ingest.stopSending();
            ingest.flush();
        } catch (RuntimeException e) {
            flush = " (the flush failed: " + e.getMessage() + ")";
        }
        final String last = ingest.lastSent();
        err.println("ingest: interrupted: " + counts() + flush + (last.isEmpty() ? "; nothing was published"
            : "; the last record published is " + last + ", the input after it was not read"));
        err.flush();
    }

    /** Stops the progress lines. */
    @Override
    public void close() {
        timer.shutdownNow();
    }
}
