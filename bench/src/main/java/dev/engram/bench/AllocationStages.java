package dev.engram.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a phase's heap allocation went, by pipeline stage: every live thread's allocated bytes
 * ({@link com.sun.management.ThreadMXBean#getThreadAllocatedBytes(long[])}, HotSpot's TLAB accounting) grouped by the
 * thread's name as {@link CpuStages#stage} groups CPU time, between two {@link Snapshot}s of one run.
 *
 * <p>What a young collection costs is what survives it, but how often one runs is the allocation rate: at 200 req/s
 * a request that allocates 500 KB fills a 100 MB eden every second. The split says which stage to put on a diet: the
 * retriever's request threads (ranking, the answer's JSON, the query's embedding: ONNX Runtime's tensors are native,
 * only the Java side's arrays count), its stream thread folding the access reports, the consolidator folding them, the
 * broker, and the benchmark's own HTTP client ({@code benchClient}, counted apart: not the pipeline's). Threads that
 * ended between the snapshots are not counted (the broker's and the apps' threads live for the whole run).
 */
final class AllocationStages {

    /** The stages, in report order (the embedder's pool threads: {@code embeddingPool}). */
    static final List<String> STAGES = List.of("retriever", "consolidator", "extractor", "embeddingPool", "broker",
        "other", "benchClient");

    private AllocationStages() {
    }

    /**
     * One reading.
     *
     * @param threads thread id → (name, bytes allocated since the thread started)
     */
    record Snapshot(Map<Long, Map.Entry<String, Long>> threads) {
    }

    /** @return the bytes allocated so far by every live thread; empty where the JVM does not count them */
    static Snapshot take() {
        final Map<Long, Map.Entry<String, Long>> threads = new HashMap<>();
        if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean bean)
            || !bean.isThreadAllocatedMemorySupported() || !bean.isThreadAllocatedMemoryEnabled()) {
            return new Snapshot(threads);
        }
        final long[] ids = bean.getAllThreadIds();
        final long[] bytes = bean.getThreadAllocatedBytes(ids);
        final ThreadInfo[] infos = bean.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            if (infos[i] != null && bytes[i] >= 0) {
                threads.put(ids[i], Map.entry(infos[i].getThreadName(), bytes[i]));
            }
        }
        return new Snapshot(threads);
    }

    /**
     * @param before the reading at the start
     * @param after the reading at the end
     * @param operations requests between them
     * @return stage → KB allocated per operation, in {@link #STAGES} order, then {@code total} (every stage) and
     *     {@code pipeline} (total without {@code benchClient} and {@code broker})
     */
    static Map<String, Object> kbPer(final Snapshot before, final Snapshot after, final long operations) {
        final Map<String, Long> bytes = allocated(before, after, CpuStages::stage);
        final long total = bytes.values().stream().mapToLong(Long::longValue).sum();
        return CpuStages.perStage(STAGES, bytes, total, b -> kb(b, operations));
    }

    /** @return the bytes each thread allocated between the readings, summed under {@code key} of its name */
    private static Map<String, Long> allocated(final Snapshot before, final Snapshot after,
                                               final java.util.function.Function<String, String> key) {
        final Map<String, Long> bytes = new HashMap<>();
        for (final Map.Entry<Long, Map.Entry<String, Long>> thread : after.threads().entrySet()) {
            final Map.Entry<String, Long> earlier = before.threads().get(thread.getKey());
            bytes.merge(key.apply(thread.getValue().getKey()),
                Math.max(0, thread.getValue().getValue() - (earlier == null ? 0 : earlier.getValue())), Long::sum);
        }
        return bytes;
    }

    /**
     * @param before the reading at the start
     * @param after the reading at the end
     * @param operations requests between them
     * @param top how many
     * @return the threads that allocated most between the readings, grouped by name with ids and numbers masked
     *     ({@code engram-retriever-<id>-StreamThread-N}, {@code JettyServerThreadPool-N}), name → KB per operation,
     *     largest first: which loop of a stage allocates
     */
    static Map<String, Object> topThreads(final Snapshot before, final Snapshot after, final long operations,
                                          final int top) {
        final Map<String, Object> out = new LinkedHashMap<>();
        allocated(before, after, AllocationStages::group).entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
            .forEach(e -> out.put(e.getKey(), kb(e.getValue(), operations)));
        return out;
    }

    /** @return a thread's name with application instance ids (UUIDs) and numbers masked */
    static String group(final String threadName) {
        return threadName.replaceAll("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>")
            .replaceAll("\\d+", "N");
    }

    private static double kb(final long bytes, final long operations) {
        return BenchReport.round(operations == 0 ? 0 : bytes / 1024.0 / operations, 1);
    }
}
