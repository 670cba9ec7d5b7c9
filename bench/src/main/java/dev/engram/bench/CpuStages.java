package dev.engram.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.engram.embedder.EmbeddingCpu;

/**
 * Where a benchmark's CPU time went, by pipeline stage: every live thread's CPU time ({@link ThreadMXBean}) grouped by
 * its name, and the embeddings split by the thread that asked for them ({@link EmbeddingCpu}), between two
 * {@link Snapshot}s of one run.
 *
 * <p>Stages: {@code extractor}, {@code consolidator}, {@code retriever} (each app's stream threads, its Kafka clients'
 * I/O threads, which carry the app's id, and its own pools: the LLM extraction pool {@code engram-extract-*}, the
 * retriever's HTTP and reporter threads) without the embeddings they asked for; {@code embedding} split into
 * {@code embeddingExtractor} (the candidates' texts), {@code embeddingConsolidator} (observations) and
 * {@code embeddingRetriever} (queries), plus {@code embeddingPoolOverhead} (the pool threads' time outside any text);
 * {@code broker} (the in-process KRaft broker); {@code benchClient} (the benchmark's own producer and monitor: counted
 * apart, not the pipeline's); {@code other} (Java threads of none of these, e.g. the apps' Micrometer Kafka metrics
 * binders, {@code micrometer-kafka-metrics}, and topic followers). The JVM's compiler and collector threads
 * are not Java threads, so the thread bean does not list them: what the process used beyond the listed threads is split
 * into {@code gc}, {@code jit} and {@code exited} (the rest: threads that ended between the snapshots, other VM
 * threads). On Linux {@code gc} and {@code jit} are those threads' own CPU time, read from {@code /proc/self/task}
 * ({@link #vmThreadsCpu}: the compiler threads {@code C1/C2 CompilerThre…}, the collectors {@code GC Thread#…},
 * {@code G1 …} and the {@code VM Thread}, where the serial collector collects); elsewhere the collectors' accumulated
 * collection time and the JIT's accumulated compilation time stand for them. Those two are elapsed times, which a
 * loaded machine stretches beyond the CPU used (a run at load 40–90 gave 4.03 ms of "GC" and 0.34 of "JIT" per candidate
 * out of an unlisted remainder that the elapsed JIT time alone exceeded), so the split needs the CPU time to be read
 * under load.
 */
final class CpuStages {

    /** The stages, in report order. */
    static final List<String> STAGES = List.of("extractor", "embeddingExtractor", "consolidator", "embeddingConsolidator",
        "retriever", "embeddingRetriever", "embeddingPoolOverhead", "broker", "jit", "gc", "other", "exited",
        "benchClient");

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private CpuStages() {
    }

    /**
     * One reading.
     *
     * @param threads thread id → (name, CPU nanoseconds)
     * @param embeddingByCaller {@link EmbeddingCpu#byCaller()}
     * @param embeddingInline {@link EmbeddingCpu#inline()}
     * @param processNanos the process's CPU time
     * @param gcNanos the collectors' accumulated collection time ({@code GarbageCollectorMXBean}: elapsed time, the
     *     CPU time of the single-threaded serial collector the apps run with)
     * @param jitNanos the JIT's accumulated compilation time ({@code CompilationMXBean})
     */
    record Snapshot(Map<Long, Map.Entry<String, Long>> threads, Map<String, Long> embeddingByCaller,
                    Map<String, Long> embeddingInline, long processNanos, long gcNanos, long jitNanos) {

        Snapshot(final Map<Long, Map.Entry<String, Long>> threads, final Map<String, Long> embeddingByCaller,
                 final Map<String, Long> embeddingInline, final long processNanos) {
            this(threads, embeddingByCaller, embeddingInline, processNanos, 0, 0);
        }
    }

    /** Per-thread CPU time of the JVM's own threads, {@code /proc/self/task/<tid>/{comm,schedstat}} (Linux). */
    private static final Path TASKS = Path.of("/proc/self/task");

    /**
     * The CPU time of the JVM's compiler and collector threads, read from the kernel (Linux): what {@link #msPer}
     * reports as {@code jit} and {@code gc} when it can be read. Threads are told by the names the JVM gives them:
     * {@code C1 CompilerThre…} and {@code C2 CompilerThre…} (the kernel keeps 15 characters) are the JIT; {@code GC
     * Thread#…} (the parallel and G1 workers), {@code G1 …} (G1's concurrent threads) and {@code VM Thread} (where the
     * serial collector collects, and every collector's safepoint work runs) are the collector.
     *
     * @return {jit, gc} CPU nanoseconds of the live threads, or null when {@code /proc/self/task} cannot be read
     */
    static long[] vmThreadsCpu() {
        final long[] out = new long[2];
        return forEachTask(name -> isJit(name) || isGc(name), (name, task) -> {
            final long nanos = schedstat(task)[0];
            out[isJit(name) ? 0 : 1] += nanos;
        }) ? out : null;
    }

    /**
     * How the kernel ran the embedding pool's threads ({@code engram-embedder-N}, Linux): what tells a pipeline's
     * inferences, which share the cores with every other stage, from the ceiling's, which have them to themselves.
     *
     * @return {CPU ns, ns runnable but waiting for a core, nonvoluntary context switches (preemptions)} summed over the
     *     live pool threads, or null when {@code /proc/self/task} cannot be read
     */
    static long[] embeddingPoolSchedule() {
        final long[] out = new long[3];
        return forEachTask(name -> name.startsWith("engram-embedde"), (name, task) -> {
            final long[] stat = schedstat(task);
            out[0] += stat[0];
            out[1] += stat[1];
            for (final String line : Files.readAllLines(task.resolve("status"))) {
                if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                    out[2] += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                }
            }
        }) ? out : null;
    }

    /** What is read of one thread of the process. */
    private interface TaskReader {
        void read(String name, Path task) throws IOException;
    }

    /**
     * @param wanted which kernel thread names ({@code comm}, 15 characters at most) to read
     * @param reader reads one such thread's directory; a thread that ends meanwhile is skipped
     * @return false when {@code /proc/self/task} cannot be read (not Linux)
     */
    private static boolean forEachTask(final java.util.function.Predicate<String> wanted, final TaskReader reader) {
        if (!Files.isDirectory(TASKS)) {
            return false;
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (final Path task : tasks) {
                try {
                    final String name = Files.readString(task.resolve("comm")).strip();
                    if (wanted.test(name)) {
                        reader.read(name, task);
                    }
                } catch (IOException e) {
                    continue; // the thread ended while the directory was read
                }
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return true;
    }

    /** @return schedstat of a thread: time on the CPU (ns), time waiting for it (ns) */
    private static long[] schedstat(final Path task) throws IOException {
        final String[] fields = Files.readString(task.resolve("schedstat")).strip().split(" ");
        return new long[] {Long.parseLong(fields[0]), Long.parseLong(fields[1])};
    }

    /** @return whether a kernel thread name ({@code comm}) is one of the JIT's compiler threads */
    static boolean isJit(final String name) {
        return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
    }

    /** @return whether a kernel thread name ({@code comm}) is one of the collector's threads */
    static boolean isGc(final String name) {
        return name.startsWith("GC Thread") || name.startsWith("G1 ") || name.equals("VM Thread");
    }

    /** @return the CPU time of every live thread, the embeddings by caller and the process's CPU time, now */
    static Snapshot take() {
        final Map<Long, Map.Entry<String, Long>> threads = new HashMap<>();
        for (final ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info != null) {
                final long nanos = THREADS.getThreadCpuTime(info.getThreadId());
                if (nanos >= 0) {
                    threads.put(info.getThreadId(), Map.entry(info.getThreadName(), nanos));
                }
            }
        }
        long gcMillis = 0;
        for (final java.lang.management.GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcMillis += Math.max(0, gc.getCollectionTime());
        }
        final java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        final long jitMillis = jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
        final long[] vm = vmThreadsCpu(); // their CPU time where the kernel tells it, else the elapsed times above
        return new Snapshot(threads, EmbeddingCpu.byCaller(), EmbeddingCpu.inline(),
            ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime(),
            vm != null ? vm[1] : gcMillis * 1_000_000, vm != null ? vm[0] : jitMillis * 1_000_000);
    }

    /**
     * @param name a thread's name
     * @return its stage (the embedding pool's threads: {@code embeddingPool})
     */
    static String stage(final String name) {
        if (name.startsWith("engram-embedder-")) {
            return "embeddingPool";
        }
        if (name.contains("engram-ingest") || name.contains("engram-demo-monitor") || name.equals("main")
            || name.contains("adminclient") || name.contains("engram-topic-scan") || name.startsWith("bench-")) {
            return "benchClient";
        }
        if (name.contains("engram-extractor") || name.startsWith("engram-extract-")) {
            return "extractor";
        }
        if (name.contains("engram-consolidator")) {
            return "consolidator";
        }
        if (name.contains("engram-retriever") || name.startsWith("engram-access-reporter")
            || name.startsWith("engram-audit-reporter") || name.contains("JettyServerThreadPool") || name.startsWith("qtp")) {
            return "retriever";
        }
        if (name.startsWith("micrometer-")) {
            return "other"; // the apps' metrics binders (micrometer-kafka-metrics): theirs, not the broker's
        }
        if (name.contains("kafka") || name.contains("raft") || name.contains("broker") || name.contains("controller")
            || name.contains("ExpirationReaper") || name.contains("coordinator") || name.contains("LogDirFailure")
            || name.contains("ReplicaFetcher") || name.contains("data-plane") || name.contains("quorum")
            || name.contains("transaction") || name.contains("metadata") || name.contains("scheduler")
            || name.contains("Txn") || name.startsWith("executor-")) {
            return "broker";
        }
        return "other";
    }

    /**
     * @param before the reading at the start
     * @param after the reading at the end
     * @param operations candidates (or requests) between them
     * @return stage → CPU ms per operation, in {@link #STAGES} order, then {@code total} (the process, everything) and
     *     {@code pipeline} (total without {@code benchClient} and {@code broker})
     */
    static Map<String, Object> msPer(final Snapshot before, final Snapshot after, final long operations) {
        final Map<String, Long> nanos = new HashMap<>();
        final Map<String, Long> threadNanos = new HashMap<>();
        long threadsTotal = 0;
        for (final Map.Entry<Long, Map.Entry<String, Long>> thread : after.threads().entrySet()) {
            final Map.Entry<String, Long> earlier = before.threads().get(thread.getKey());
            final long used = thread.getValue().getValue() - (earlier == null ? 0 : earlier.getValue());
            threadNanos.merge(thread.getValue().getKey(), used, Long::sum);
            threadsTotal += used;
        }
        long pooled = 0;
        for (final Map.Entry<String, Long> caller : after.embeddingByCaller().entrySet()) {
            final long used = caller.getValue() - before.embeddingByCaller().getOrDefault(caller.getKey(), 0L);
            final long inline = after.embeddingInline().getOrDefault(caller.getKey(), 0L)
                - before.embeddingInline().getOrDefault(caller.getKey(), 0L);
            pooled += used - inline;
            final String stage = stage(caller.getKey());
            nanos.merge(embeddingOf(stage), used, Long::sum);
            // an inline embedding is in the caller's thread time too: taken out of the caller's stage
            nanos.merge(stage, -inline, Long::sum);
        }
        for (final Map.Entry<String, Long> thread : threadNanos.entrySet()) {
            final String stage = stage(thread.getKey());
            nanos.merge(stage.equals("embeddingPool") ? "embeddingPoolOverhead" : stage, thread.getValue(), Long::sum);
        }
        nanos.merge("embeddingPoolOverhead", -pooled, Long::sum);
        final long total = after.processNanos() - before.processNanos();
        // the JVM's own threads (compilers, collectors) are not Java threads: the thread bean does not list them, so
        // their share is what the process used beyond the listed threads, split by the JIT's and the collectors'
        // accounting; the rest is threads that ended between the readings
        final long unlisted = Math.max(0, total - threadsTotal);
        final long gc = Math.min(unlisted, Math.max(0, after.gcNanos() - before.gcNanos()));
        final long jit = Math.min(unlisted - gc, Math.max(0, after.jitNanos() - before.jitNanos()));
        nanos.put("gc", gc);
        nanos.put("jit", jit);
        nanos.put("exited", unlisted - gc - jit);
        return perStage(STAGES, nanos, total, n -> ms(n, operations));
    }

    /**
     * @param stages the stages, in report order
     * @param amounts stage → amount (CPU ns, bytes)
     * @param total the amount of every stage and what no stage holds
     * @param per an amount in the report's unit per operation
     * @return stage → per operation, in {@code stages} order, then {@code total} and {@code pipeline} (total without
     *     {@code benchClient} and {@code broker})
     */
    static Map<String, Object> perStage(final List<String> stages, final Map<String, Long> amounts, final long total,
                                        final java.util.function.LongFunction<Double> per) {
        final Map<String, Object> out = new LinkedHashMap<>();
        for (final String stage : stages) {
            out.put(stage, per.apply(amounts.getOrDefault(stage, 0L)));
        }
        out.put("total", per.apply(total));
        out.put("pipeline", per.apply(total - amounts.getOrDefault("benchClient", 0L) - amounts.getOrDefault("broker", 0L)));
        return out;
    }

    private static String embeddingOf(final String stage) {
        return switch (stage) {
            case "extractor" -> "embeddingExtractor";
            case "consolidator" -> "embeddingConsolidator";
            case "retriever" -> "embeddingRetriever";
            default -> "embeddingPoolOverhead";
        };
    }

    private static double ms(final long nanos, final long operations) {
        return BenchReport.round(operations == 0 ? 0 : nanos / 1e6 / operations, 3);
    }

    /**
     * @param before the reading at the start
     * @param after the reading at the end
     * @param top how many
     * @return the busiest threads of stage {@code other} between the readings, name → CPU ms (to name new stages)
     */
    static Map<String, Object> busiestOther(final Snapshot before, final Snapshot after, final int top) {
        final Map<String, Long> other = new HashMap<>();
        after.threads().forEach((id, thread) -> {
            if (stage(thread.getKey()).equals("other")) {
                final Map.Entry<String, Long> earlier = before.threads().get(id);
                other.merge(thread.getKey().replaceAll("\\d+", "N"),
                    thread.getValue() - (earlier == null ? 0 : earlier.getValue()), Long::sum);
            }
        });
        final Map<String, Object> out = new LinkedHashMap<>();
        other.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
            .forEach(e -> out.put(e.getKey(), BenchReport.round(e.getValue() / 1e6, 1)));
        return out;
    }
}
