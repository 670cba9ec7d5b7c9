package dev.engram.deploy;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.BooleanSupplier;

import dev.engram.avro.UpdateOperation;
import dev.engram.stack.DemoApps;
import dev.engram.stack.PipelineMonitor;
import dev.engram.topics.Topic;

/**
 * The demo's wait for its input to be processed ({@link DemoCommand}, step 4): polls the {@link PipelineMonitor},
 * prints a progress line every {@link #PROGRESS_EVERY}, and returns once the run has settled; fails on a dead app, a
 * failed ingest or a stall of {@link #STALL_LIMIT}.
 */
final class DemoProgress {

    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(2);
    /** How often lag is checked; also the gap between the two checks that declare the run settled. */
    private static final Duration SETTLE_CHECK = Duration.ofMillis(500);
    /** The demo fails when nothing moves for this long while work is pending. */
    private static final Duration STALL_LIMIT = Duration.ofMinutes(3);

    private DemoProgress() {
    }

    /**
     * Polls and prints progress (every {@link #PROGRESS_EVERY}) until everything ingested is processed;
     * fails on a dead app or a stall. Settled = ingest done, no group lag, the counting consumer caught
     * up, the extractor's candidates committed ({@link DemoApps#extractorIdle}: after the first check's "extractor
     * without lag", its committed pending store empty; the second check's lag then counts those candidates for the
     * consolidator) — twice in a row, {@link #SETTLE_CHECK} apart, because the last commit of one app and our
     * reads are not atomic.
     *
     * @param out where progress lines are printed
     * @param monitor the counting consumer and lag checks
     * @param ingest the ingest running in its own thread
     * @param apps the three apps
     * @param ingestStartedAt {@link System#nanoTime} when ingest started
     * @param stopping true once the demo is being stopped (Ctrl-C): the wait ends
     * @throws IllegalStateException on a stall, or "Stopped" when {@code stopping} ended the wait
     */
    static void awaitProcessed(final PrintStream out, final PipelineMonitor monitor, final DemoIngestThread ingest,
                               final DemoApps apps, final long ingestStartedAt, final BooleanSupplier stopping) {
        long lastSignature = -1;
        long lastChange = System.nanoTime();
        long lastPrint = System.nanoTime();
        int settledChecks = 0;
        while (!stopping.getAsBoolean()) {
            monitor.poll(SETTLE_CHECK);
            ingest.rethrow();
            apps.requireAlive();
            final long lag = monitor.lag();
            final boolean settled = ingest.done() && lag == 0 && apps.extractorIdle() && monitor.caughtUp();
            settledChecks = settled ? settledChecks + 1 : 0;
            final boolean finished = settledChecks >= 2;
            if (finished || System.nanoTime() - lastPrint >= PROGRESS_EVERY.toNanos()) {
                lastPrint = System.nanoTime();
                out.printf(Locale.ROOT, "[%6.1f s] ingested %,d%s · extractor consumed %,d · candidates %,d · memories %,d"
                        + " created / %,d reinforced / %,d superseded · lag %,d%n",
                    (System.nanoTime() - ingestStartedAt) / 1e9, ingest.sent(), ingest.done() ? "" : "…",
                    monitor.extractorConsumed(), monitor.count(Topic.MEMORY_CANDIDATES.name()),
                    monitor.updates(UpdateOperation.CREATED), monitor.updates(UpdateOperation.REINFORCED),
                    monitor.updates(UpdateOperation.SUPERSEDED), lag);
            }
            if (finished) {
                return;
            }
            final long signature = Objects.hash(ingest.sent(), lag, monitor.count(Topic.MEMORY_CANDIDATES.name()),
                monitor.count(Topic.MEMORY_UPDATED.name()), monitor.deadLetters());
            if (signature != lastSignature) {
                lastSignature = signature;
                lastChange = System.nanoTime();
            } else if (!settled && System.nanoTime() - lastChange > STALL_LIMIT.toNanos()) {
                throw new IllegalStateException("The pipeline made no progress for " + STALL_LIMIT.toMinutes()
                    + " minutes (lag " + lag + "); see the log above");
            }
        }
        throw new IllegalStateException("Stopped");
    }
}
