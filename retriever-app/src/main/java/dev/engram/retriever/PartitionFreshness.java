package dev.engram.retriever;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How recently each input partition owned by this retriever instance was processed up to its end: "unknown user" is an
 * answer only about a partition read up to where it ended at most {@link #maxStalenessNanos} ago.
 *
 * <p>Why: {@link CatchUp} gates the start and each moved partition once. After that, an instance that falls behind its
 * input (the chaos scale-out at load 60–100: a broker killed, a retriever seconds to minutes behind memory-updated)
 * kept answering 404 for users whose first event was committed 30 s earlier but not read here yet: "not read yet" told
 * as "unknown". With this rule such a lookup is a 503 with Retry-After until the instance is current again.
 *
 * <p>How: the checker records, about every half second, each owned partition's read_committed end offset (last stable
 * offset) with the time it was asked for ({@link #sampled}), then the group's committed offset for it
 * ({@link #committed}). The partition was current at the time of the newest sample whose end the committed offset has
 * reached. Samples older than the bound are dropped (then the partition is stale anyway), so at most bound / interval
 * samples are kept per partition. A partition never sampled is current (no checker: the gate is off, as with
 * {@code retriever.catchup.max.wait.ms=0}). When the cluster cannot be asked, no sample is taken and the partition turns
 * stale after the bound: "unknown" cannot be told then either. Thread-safe: one writer (the checker), many readers.
 */
final class PartitionFreshness {

    private final long maxStalenessNanos;
    /** Samples (time ns, end offset) not yet reached by the committed offset, oldest first; writer thread only. */
    private final Map<Integer, Deque<long[]>> samples = new ConcurrentHashMap<>();
    /** Per partition: the time (ns) of the newest sample its committed offset has reached. */
    private final Map<Integer, Long> currentAt = new ConcurrentHashMap<>();
    /** Per partition: the newest sampled end offset and the newest committed offset, for {@link #behind}. */
    private final Map<Integer, long[]> offsets = new ConcurrentHashMap<>();

    /** @param maxStalenessNanos the longest time since a partition was processed up to its end for "unknown" to hold */
    PartitionFreshness(final long maxStalenessNanos) {
        this.maxStalenessNanos = maxStalenessNanos;
    }

    /**
     * @param partition an owned partition
     * @param askedAt when its end offset was asked for (ns, {@link System#nanoTime()})
     * @param end its read_committed end offset then
     */
    void sampled(final int partition, final long askedAt, final long end) {
        final Deque<long[]> list = samples.computeIfAbsent(partition, p -> new ArrayDeque<>());
        list.addLast(new long[] {askedAt, end});
        offsets.compute(partition, (p, o) -> o == null ? new long[] {end, -1} : new long[] {end, o[1]});
        currentAt.putIfAbsent(partition, askedAt); // current as of its arrival: it was gated then
    }

    /**
     * @param partition an owned partition
     * @param committed the group's committed offset for it, asked after its last {@link #sampled} end
     * @param now the time now (ns)
     */
    void committed(final int partition, final long committed, final long now) {
        final Deque<long[]> list = samples.get(partition);
        if (list == null) {
            return;
        }
        offsets.computeIfPresent(partition, (p, o) -> new long[] {o[0], committed});
        while (!list.isEmpty() && list.peekFirst()[1] <= committed) {
            currentAt.merge(partition, list.pollFirst()[0], Math::max);
        }
        while (!list.isEmpty() && now - list.peekFirst()[0] > maxStalenessNanos) {
            list.pollFirst(); // never reached within the bound: stale, whatever comes later
        }
    }

    /** Forgets a partition that left this instance (it is gated again by {@link CatchUp} if it comes back). */
    void forget(final int partition) {
        samples.remove(partition);
        currentAt.remove(partition);
        offsets.remove(partition);
    }

    /**
     * @param partition a partition of the input topic
     * @param now the time now (ns)
     * @return whether it was processed up to its end at most the bound ago (true when it was never sampled)
     */
    boolean current(final int partition, final long now) {
        final Long at = currentAt.get(partition);
        return at == null || now - at <= maxStalenessNanos;
    }

    /**
     * @param partition a partition of the input topic
     * @param now the time now (ns)
     * @return milliseconds since it was last processed up to its end; 0 when never sampled
     */
    long staleMillis(final int partition, final long now) {
        final Long at = currentAt.get(partition);
        return at == null ? 0 : (now - at) / 1_000_000;
    }

    /**
     * @param partition a partition of the input topic
     * @return offsets between the group's newest committed offset and the newest sampled end (records, and the
     *     transaction markers among them: an estimate of how far behind it is); -1 when not known yet
     */
    long behind(final int partition) {
        final long[] o = offsets.get(partition);
        return o == null || o[1] < 0 ? -1 : Math.max(0, o[0] - o[1]);
    }

    /**
     * @param partition a partition of the input topic
     * @param topic the input topic's name
     * @param now the time now (ns)
     * @return how far behind the partition is, for a 503's detail, e.g. {@code partition 3 of memory-updated was last
     *     read to its end 12.4 s ago (about 57 records behind)}
     */
    String describe(final int partition, final String topic, final long now) {
        final long records = behind(partition);
        return String.format(java.util.Locale.ROOT, "partition %d of %s was last read to its end %.1f s ago%s", partition,
            topic, staleMillis(partition, now) / 1e3, records >= 0 ? " (about " + records + " records behind)" : "");
    }
}
