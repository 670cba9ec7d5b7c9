package dev.engram.scoring;

import java.time.Instant;

import dev.engram.avro.Memory;

/**
 * The retrieval hits of one memory, kept apart from the memory: how many, and the latest access time (event time of
 * the {@code memory-access} records that listed it). A read never rewrites a memory: the consolidator and the
 * retriever each fold {@code memory-access} into a store of these (ids and counts only, never content) and join it
 * with the memory where access matters — the lifecycle pass (staleness, the counts a merge adds up) and ranking (the
 * recency and access priors of {@link HybridScorer}, the counters an answer shows).
 *
 * <p>The join: a memory's own {@code accessCount} and {@code lastAccessedAt} are its base (0 and its creation time
 * for a new memory; what a merge added up; the hits of memories written before access moved out of
 * {@code memory-updated}); the effective count is base + {@link #hits}, the effective last access the later of the
 * two times. Folding is commutative (a sum and a maximum), so the store holds the same value whatever order the
 * records of one user come in, and a replay gives the same state.
 *
 * @param hits hits so far, ≥ 0 (a memory listed by n requests of one record counts n)
 * @param lastAccessedAt the latest access time among them, epoch ms ({@link Long#MIN_VALUE} for none)
 */
public record AccessCounts(int hits, long lastAccessedAt) {

    /** No hit. */
    public static final AccessCounts NONE = new AccessCounts(0, Long.MIN_VALUE);

    /** Looks up a memory's hits by memory id (one user's), {@link #NONE} for a memory never hit. */
    @FunctionalInterface
    public interface Lookup {

        /** The lookup of a store that holds no hit: every memory's base counters stand. */
        Lookup NONE = memoryId -> AccessCounts.NONE;

        /**
         * @param memoryId a memory of the user
         * @return its hits, {@link AccessCounts#NONE} when none; never null
         */
        AccessCounts of(String memoryId);
    }

    /**
     * @param more hits of a later record, ≥ 1
     * @param at their access time, epoch ms
     * @return these hits and those together (the count added, the later time)
     */
    public AccessCounts plus(final int more, final long at) {
        return new AccessCounts(Math.addExact(hits, more), Math.max(lastAccessedAt, at));
    }

    /**
     * @param memory a memory
     * @return its effective access count: its own (base) count plus these hits
     */
    public int countOf(final Memory memory) {
        return memory.getAccessCount() + hits;
    }

    /**
     * @param memory a memory
     * @return its effective last access: the later of its own {@code lastAccessedAt} and the latest hit
     *     (its own when both are missing)
     */
    public Instant lastAccessedOf(final Memory memory) {
        final Instant own = memory.getLastAccessedAt();
        if (hits == 0 || lastAccessedAt == Long.MIN_VALUE) {
            return own;
        }
        return own == null || own.toEpochMilli() < lastAccessedAt ? Instant.ofEpochMilli(lastAccessedAt) : own;
    }

    /**
     * The memory as a reader sees it: its counters joined with these hits (the memory itself when there are none).
     * The copy shares the memory's embedding list ({@link MemoryCopies#builderSharingEmbedding}).
     *
     * @param memory a memory the calling thread owns
     * @return the memory with its effective {@code accessCount} and {@code lastAccessedAt}
     */
    public Memory applyTo(final Memory memory) {
        if (hits == 0) {
            return memory;
        }
        return MemoryCopies.builderSharingEmbedding(memory, memory.getEmbedding())
            .setAccessCount(countOf(memory)).setLastAccessedAt(lastAccessedOf(memory)).build();
    }
}
