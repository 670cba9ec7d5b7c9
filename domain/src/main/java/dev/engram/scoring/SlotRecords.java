package dev.engram.scoring;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryType;
import dev.engram.core.MemoryIds;

/**
 * The per-slot records of a {@link UserMemoryIndex}: the memory as stored and as served (joined with its
 * retrieval hits), the ranking primitives (ACTIVE, importance, lastAccessedAt in epoch ms, access count), an
 * EPISODIC memory's cited messages, its text as the observation lift reads it ({@link LiftText}), and the slot allocation (high-water mark and free list, freed slots reused).
 * Not thread-safe: the index's lock guards it.
 */
final class SlotRecords {

    private int size;
    private int[] free = new int[8];
    private int freeCount;

    boolean[] active = new boolean[0];
    double[] importance = new double[0];
    long[] lastAccessed = new long[0];
    int[] accessCount = new int[0];
    /** Whether the slot holds an observation or topic list ({@link ObservationLift#lifts}). */
    boolean[] observation = new boolean[0];
    /** The memory as stored (without its embedding): what its hits are joined with. */
    private Memory[] stored = new Memory[0];
    /** The memory as served: {@link #stored} joined with its hits. */
    Memory[] memories = new Memory[0];
    /** An EPISODIC memory's cited messages (the priors' covered-episode rule reads them per request), else null. */
    Object[] cited = new Object[0];
    /** The memory's text as {@link ObservationLift} reads it, computed on first use ({@link LiftText}). */
    LiftText[] lift = new LiftText[0];
    /** The newest updatedAt / lastAccessedAt of any memory held in epoch ms (the recency reference), MIN_VALUE for none. */
    private long newestEvent = Long.MIN_VALUE;

    /** @return the slot high-water mark: slots are 0 … size()−1, some of them free */
    int size() {
        return size;
    }

    /** @return slots allocated */
    int capacity() {
        return memories.length;
    }

    /**
     * A free slot, else the next one; the arrays double when full (starting at 2).
     *
     * @return the slot
     */
    int allocate() {
        if (freeCount > 0) {
            return free[--freeCount];
        }
        if (size == memories.length) {
            final int capacity = Math.max(2, size * 2);
            active = Arrays.copyOf(active, capacity);
            importance = Arrays.copyOf(importance, capacity);
            lastAccessed = Arrays.copyOf(lastAccessed, capacity);
            accessCount = Arrays.copyOf(accessCount, capacity);
            observation = Arrays.copyOf(observation, capacity);
            memories = Arrays.copyOf(memories, capacity);
            stored = Arrays.copyOf(stored, capacity);
            cited = Arrays.copyOf(cited, capacity);
            lift = Arrays.copyOf(lift, capacity);
        }
        return size++;
    }

    /**
     * Stores a memory's records in its slot (ACTIVE is left to the caller: it moves statistics).
     *
     * @param s the slot
     * @param memory the memory (with its embedding: not kept)
     * @param hits retrieval hits by memory id
     */
    void put(final int s, final Memory memory, final Map<String, AccessCounts> hits) {
        importance[s] = memory.getImportance();
        observation[s] = ObservationLift.lifts(memory);
        stored[s] = MemoryCopies.withoutEmbedding(memory);
        join(s, hits);
        cited[s] = memory.getType() == MemoryType.EPISODIC ? Set.copyOf(MemoryIds.citedMessages(memory)) : null;
        lift[s] = LiftText.of(memory);
    }

    /** The slot's served memory and ranking primitives from its stored memory and its hits. */
    void join(final int s, final Map<String, AccessCounts> hits) {
        final Memory memory = hits.getOrDefault(stored[s].getMemoryId(), AccessCounts.NONE).applyTo(stored[s]);
        memories[s] = memory;
        lastAccessed[s] = memory.getLastAccessedAt() == null ? Long.MIN_VALUE : memory.getLastAccessedAt().toEpochMilli();
        accessCount[s] = memory.getAccessCount();
    }

    /**
     * Frees a slot (its ACTIVE flag already cleared by the caller).
     *
     * @param slot the slot
     */
    void release(final int slot) {
        memories[slot] = null;
        stored[slot] = null;
        cited[slot] = null;
        lift[slot] = null;
        observation[slot] = false;
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = slot;
        // the newest event may have gone with it: recompute over what is left (deletes are rare)
        newestEvent = scanNewest();
    }

    /**
     * Joins a slot's memory with its hits after they changed; the recency reference moves with it.
     *
     * @param s the slot
     * @param hits retrieval hits by memory id
     */
    void accessed(final int s, final Map<String, AccessCounts> hits) {
        join(s, hits);
        newestEvent = Math.max(newestEvent, eventTime(memories[s]));
    }

    /**
     * Moves the recency reference after a {@link #put}.
     *
     * @param s the slot put
     * @param previousEvent the slot's event time before ({@link #eventTime}), MIN_VALUE for a new slot
     */
    void moved(final int s, final long previousEvent) {
        final long event = eventTime(memories[s]);
        if (event >= newestEvent) {
            newestEvent = event;
        } else if (previousEvent == newestEvent) {
            // the newest memory moved back in time (a rewritten access time): the reference is the next newest
            newestEvent = scanNewest();
        }
    }

    /** @return the newest updatedAt / lastAccessedAt of any memory held in epoch ms, Long.MIN_VALUE for none */
    long newestEvent() {
        return newestEvent;
    }

    /** @return the newest event time over the memories held, Long.MIN_VALUE for none (a scan: rare changes only) */
    private long scanNewest() {
        long newest = Long.MIN_VALUE;
        for (int i = 0; i < size; i++) {
            if (memories[i] != null) {
                newest = Math.max(newest, eventTime(memories[i]));
            }
        }
        return newest;
    }

    /** @return the later of a memory's updatedAt and lastAccessedAt in epoch ms, Long.MIN_VALUE for neither */
    static long eventTime(final Memory m) {
        long t = Long.MIN_VALUE;
        if (m.getUpdatedAt() != null) {
            t = m.getUpdatedAt().toEpochMilli();
        }
        if (m.getLastAccessedAt() != null) {
            t = Math.max(t, m.getLastAccessedAt().toEpochMilli());
        }
        return t;
    }
}
