package dev.engram.embedder;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * CPU time spent embedding, by the thread that asked for it: what lets a benchmark tell the extractor's embeddings
 * from the consolidator's observations and the retriever's queries, although all of them run on the JVM-wide pool of
 * {@link OnnxEmbedder} (one text per core). Each text embedded on the pool adds the pool thread's CPU time for it
 * ({@link ThreadMXBean#getCurrentThreadCpuTime}, two reads per text: microseconds against milliseconds of inference)
 * to the name of the thread that submitted it; a single text runs on the caller's own thread (langchain4j embeds one
 * segment without the pool) and is counted as {@link #inline} too, so a caller's own CPU time can be split into
 * embedding and the rest. Thread names are those of a few long-lived threads (stream threads, request pools), so the
 * maps stay small. Thread-safe; never reset (a reader takes differences of two snapshots).
 */
public final class EmbeddingCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final ConcurrentHashMap<String, LongAdder> BY_CALLER = new ConcurrentHashMap<>();
    private static final ConcurrentHashMap<String, LongAdder> INLINE = new ConcurrentHashMap<>();
    private static final LongAdder TEXTS = new LongAdder();
    private static final LongAdder INFERENCES = new LongAdder();

    private EmbeddingCpu() {
    }

    /**
     * @return caller thread name → CPU nanoseconds of embeddings it asked for so far (on the pool or inline)
     */
    public static Map<String, Long> byCaller() {
        return snapshot(BY_CALLER);
    }

    /**
     * @return caller thread name → CPU nanoseconds of embeddings that ran on that thread itself (part of
     *     {@link #byCaller()}, and of the thread's own CPU time)
     */
    public static Map<String, Long> inline() {
        return snapshot(INLINE);
    }

    /** @return texts embedded so far by the built-in models, every caller (a benchmark counts texts per operation) */
    public static long texts() {
        return TEXTS.sum();
    }

    /** @return ONNX Runtime inferences run so far for those texts (fewer than texts when texts are grouped) */
    public static long inferences() {
        return INFERENCES.sum();
    }

    /**
     * @param texts texts embedded by one call
     * @param inferences inferences it ran
     */
    static void count(final int texts, final int inferences) {
        TEXTS.add(texts);
        INFERENCES.add(inferences);
    }

    private static Map<String, Long> snapshot(final ConcurrentHashMap<String, LongAdder> map) {
        final Map<String, Long> out = new TreeMap<>();
        map.forEach((name, nanos) -> out.put(name, nanos.sum()));
        return out;
    }

    /**
     * @param pool the embedding pool
     * @return the pool, counting each task's CPU time for the thread that submitted it
     */
    static Executor attributing(final Executor pool) {
        return task -> {
            final String caller = Thread.currentThread().getName();
            pool.execute(() -> {
                final long start = cpu();
                try {
                    task.run();
                } finally {
                    add(BY_CALLER, caller, cpu() - start);
                }
            });
        };
    }

    /**
     * Runs an embedding on the calling thread, counting its CPU time for that thread.
     *
     * @param embedding the work
     * @param <T> its result
     * @return its result
     */
    static <T> T inline(final Supplier<T> embedding) {
        final String caller = Thread.currentThread().getName();
        final long start = cpu();
        try {
            return embedding.get();
        } finally {
            final long nanos = cpu() - start;
            add(BY_CALLER, caller, nanos);
            add(INLINE, caller, nanos);
        }
    }

    private static long cpu() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : 0;
    }

    private static void add(final ConcurrentHashMap<String, LongAdder> map, final String caller, final long nanos) {
        if (nanos > 0) {
            map.computeIfAbsent(caller, n -> new LongAdder()).add(nanos);
        }
    }
}
