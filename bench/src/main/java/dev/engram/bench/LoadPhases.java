package dev.engram.bench;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.engram.port.Embedder;
import org.HdrHistogram.Histogram;

/** The load phases of {@link RetrievalBenchmark}: open loop at a fixed rate, closed loop, the embedder alone, CPU time. */
final class LoadPhases {

    /** Client threads of the fixed-rate phase. */
    static final int THREADS = 64;
    /** After the fixed-rate window, queued requests still unsent this long after it are not sent. */
    static final int DRAIN_SECONDS = 30;

    private LoadPhases() {
    }

    /**
     * The JVM's CPU time over a phase: per operation it does not depend on how much of a shared machine the
     * process got, which the throughputs do (a phase with more runnable threads takes a larger share).
     */
    static final class CpuClock {
        private final long cpuStart = cpu();
        private final long wallStart = System.nanoTime();

        /** @return process CPU ms per operation at {@code perSecond} operations per wall second since construction */
        double msPer(final double perSecond) {
            final double seconds = (System.nanoTime() - wallStart) / 1e9;
            return (cpu() - cpuStart) / 1e6 / (perSecond * seconds);
        }

        private static long cpu() {
            return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
        }
    }

    /**
     * CPU time of the embedder's JVM-wide pool ({@code engram-embedder-N} threads, where the extractor's texts are
     * embedded), summed over its live threads.
     *
     * @return nanoseconds of CPU those threads used so far
     */
    static long embedderCpuNanos() {
        final java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (final java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith("engram-embedder-")) {
                sum += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
    }

    /**
     * The embedder alone: {@code threads} threads embedding the queries round-robin, one per call, as
     * the request threads do, and as they do it ({@link Embedder#embedQuery} with the default model: the
     * model's query instruction and the query; a LoCoMo user's memories are all of that model).
     *
     * @return queries embedded per second
     */
    static double queryCeiling(final Embedder embedder, final List<String> queries, final int threads,
                               final int seconds) throws InterruptedException {
        final String model = embedder.modelName();
        // what a request embeds: the query with the default model's query instruction (bge-small's
        // "Represent this sentence for searching relevant passages: "), not the bare text as a passage
        return closedLoop(threads, seconds, i -> embedder.embedQuery(queries.get(Math.floorMod(i, queries.size())), model));
    }

    /** Open loop at a fixed rate; latency from each request's due time. */
    static void fixedRate(final HttpClient http, final List<HttpRequest> requests, final int rate, final int seconds,
                          final Histogram h, final AtomicLong errors) throws InterruptedException {
        fixedRate(http, requests, rate, seconds, h, errors, null);
    }

    /**
     * Open loop at a fixed rate; latency from each request's due time, each request's due and answer times also handed
     * to {@code probe} (when not null).
     */
    static void fixedRate(final HttpClient http, final List<HttpRequest> requests, final int rate, final int seconds,
                          final Histogram h, final AtomicLong errors, final PhaseProbe probe) throws InterruptedException {
        final ExecutorService pool = Executors.newFixedThreadPool(THREADS, named("bench-load-"));
        final long period = 1_000_000_000L / rate;
        final long total = (long) rate * seconds;
        final long start = System.nanoTime() + 50_000_000L;
        final long drainDeadline = start + TimeUnit.SECONDS.toNanos(seconds + DRAIN_SECONDS);
        try {
            for (long i = 0; i < total; i++) {
                final long due = start + i * period;
                final long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                final HttpRequest request = requests.get((int) (i % requests.size()));
                pool.execute(() -> {
                    if (System.nanoTime() > drainDeadline) {
                        // the server fell this far behind: record the wait so far, do not send (bounds the run)
                        synchronized (h) {
                            h.recordValue(Math.max(0, (System.nanoTime() - due) / 1000));
                        }
                        errors.incrementAndGet();
                        return;
                    }
                    final boolean ok = send(http, request);
                    final long answered = System.nanoTime();
                    synchronized (h) {
                        h.recordValue(Math.max(0, (answered - due) / 1000));
                    }
                    if (probe != null) {
                        probe.request(due, answered);
                    }
                    if (!ok) {
                        errors.incrementAndGet();
                    }
                });
            }
        } finally {
            pool.shutdown();
            pool.awaitTermination(5, TimeUnit.MINUTES);
        }
    }

    /** Closed loop with {@code concurrency} clients; returns completed requests per second. */
    static double saturation(final HttpClient http, final List<HttpRequest> requests, final int concurrency,
                             final int seconds, final Histogram h, final AtomicLong errors) throws InterruptedException {
        return closedLoop(concurrency, seconds, i -> {
            final HttpRequest request = requests.get(Math.floorMod(i, requests.size()));
            final long sent = System.nanoTime();
            final boolean ok = send(http, request);
            synchronized (h) {
                h.recordValue((System.nanoTime() - sent) / 1000);
            }
            if (!ok) {
                errors.incrementAndGet();
            }
        });
    }

    /**
     * Runs {@code work} back to back on {@code threads} threads for {@code seconds}, each call with the next
     * sequence number (0, 1, 2, … across the threads).
     *
     * @return completed calls per second of wall-clock time
     */
    private static double closedLoop(final int threads, final int seconds, final java.util.function.IntConsumer work)
        throws InterruptedException {
        final ExecutorService pool = Executors.newFixedThreadPool(threads, named("bench-load-"));
        final AtomicInteger next = new AtomicInteger();
        final AtomicLong done = new AtomicLong();
        final long start = System.nanoTime();
        final long end = start + TimeUnit.SECONDS.toNanos(seconds);
        for (int t = 0; t < threads; t++) {
            pool.execute(() -> {
                while (System.nanoTime() < end) {
                    work.accept(next.getAndIncrement());
                    done.incrementAndGet();
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(seconds + 300L, TimeUnit.SECONDS);
        return done.get() / ((System.nanoTime() - start) / 1e9);
    }

    /**
     * Threads named {@code prefix}N: the benchmark's own client threads ({@code bench-*}), which {@link CpuStages} counts
     * apart from the pipeline.
     */
    static java.util.concurrent.ThreadFactory named(final String prefix) {
        final AtomicInteger n = new AtomicInteger();
        return r -> {
            final Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private static boolean send(final HttpClient http, final HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
