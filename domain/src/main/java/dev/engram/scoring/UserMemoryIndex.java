package dev.engram.scoring;

import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Predicate;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.core.MemoryIds;

/**
 * One user's search structures, kept up to date as the user's memories change: a derived view of
 * the retriever's memory store (never a source of truth), so a query costs a scan of contiguous
 * primitive arrays and of the query terms' postings instead of decoding every stored Avro record and
 * building a BM25 index from scratch.
 *
 * <p>Per memory (a <i>slot</i>; freed slots are reused):
 * <ul>
 *   <li>its embedding, L2-normalised ({@link Vectors#normalized}), in the contiguous array of its
 *       embedding model ({@link SlotVectors}; vectors of two models are never compared);</li>
 *   <li>what ranking needs as primitives: ACTIVE or not, importance, lastAccessedAt (epoch ms) and access
 *       count, both joined with the memory's retrieval hits ({@link AccessCounts}, {@link #access}), its event dates as epoch-day spans (for a question's period) and its BM25 length (terms after
 *       {@link TextAnalysis});</li>
 *   <li>the memory itself without its embedding, for the answer (its counters joined with its hits).</li>
 * </ul>
 * Lexical postings ({@link TermPostings}): term → (slot, term frequency) over every slot, with the document frequency among
 * ACTIVE slots, so BM25's statistics (N, df, average length) are those of the user's ACTIVE memories,
 * exactly as if the index were built from them now. A memory whose content changes has its postings
 * replaced; a change of status or counters updates the primitives only.
 *
 * <p>Threads: the stream thread writes ({@link #put}, {@link #remove}) under the write lock; request
 * threads read under the read lock ({@link #read}). Sizes: 4·d bytes per vector plus the memory object.
 */
public final class UserMemoryIndex {

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Map<String, Integer> slotById = new HashMap<>();
    private final TermPostings terms = new TermPostings();
    private final SlotVectors vectors = new SlotVectors();
    private int size;
    private int[] free = new int[8];
    private int freeCount;

    private boolean[] active = new boolean[0];
    private double[] importance = new double[0];
    private long[] lastAccessed = new long[0];
    private int[] accessCount = new int[0];
    /** The memory as stored (without its embedding): what its hits are joined with. */
    private Memory[] stored = new Memory[0];
    /** The memory as served: {@link #stored} joined with its hits. */
    private Memory[] memories = new Memory[0];
    /** Retrieval hits by memory id, of memories held or not yet held (the join waits for the memory). */
    private final Map<String, AccessCounts> hits = new HashMap<>();
    /** An EPISODIC memory's cited messages (the priors' covered-episode rule reads them per request), else null. */
    private Object[] cited = new Object[0];
    private final SlotDays days = new SlotDays();

    private int activeCount;
    private long newestEvent = Long.MIN_VALUE;

    /**
     * Adds a memory or replaces the one with the same id.
     *
     * @param memory the memory's full state (with its embedding); DELETED is a {@link #remove}
     */
    public void put(final Memory memory) {
        if (memory.getStatus() == MemoryStatus.DELETED) {
            remove(memory.getMemoryId());
            return;
        }
        lock.writeLock().lock();
        try {
            Integer slot = slotById.get(memory.getMemoryId());
            final boolean contentChanged;
            long previousEvent = Long.MIN_VALUE;
            if (slot == null) {
                slot = allocate();
                slotById.put(memory.getMemoryId(), slot);
                contentChanged = true;
            } else {
                contentChanged = !searchableText(memories[slot]).equals(searchableText(memory));
                previousEvent = eventTime(memories[slot]);
                setActive(slot, false);
                if (contentChanged) {
                    terms.unindex(slot);
                }
            }
            final int s = slot;
            if (contentChanged) {
                terms.index(s, searchableText(memory));
            }
            vectors.store(s, memory.getEmbeddingModel(), memory.getEmbedding());
            importance[s] = memory.getImportance();
            stored[s] = withoutEmbedding(memory);
            join(s);
            cited[s] = memory.getType() == MemoryType.EPISODIC ? Set.copyOf(MemoryIds.citedMessages(memory)) : null;
            days.set(s, memory);
            setActive(s, memory.getStatus() == MemoryStatus.ACTIVE);
            final long event = eventTime(memories[s]);
            if (event >= newestEvent) {
                newestEvent = event;
            } else if (previousEvent == newestEvent) {
                // the newest memory moved back in time (a rewritten access time): the reference is the next newest
                newestEvent = newestEvent();
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Removes a memory (deleted); nothing when absent.
     *
     * @param memoryId the memory id
     */
    public void remove(final String memoryId) {
        lock.writeLock().lock();
        try {
            final Integer slot = slotById.remove(memoryId);
            if (slot == null) {
                return;
            }
            hits.remove(memoryId);
            setActive(slot, false);
            terms.unindex(slot);
            memories[slot] = null;
            stored[slot] = null;
            cited[slot] = null;
            days.clear(slot);
            vectors.clear(slot);
            if (freeCount == free.length) {
                free = Arrays.copyOf(free, freeCount * 2);
            }
            free[freeCount++] = slot;
            // the newest event may have gone with it: recompute over what is left (deletes are rare)
            newestEvent = newestEvent();
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Joins a memory's retrieval hits with it (now, or when it comes): its access count becomes its own plus the
     * hits, its last access the later of the two ({@link AccessCounts}); the recency reference moves with it.
     *
     * @param memoryId a memory id
     * @param counts its hits so far (they replace what was given before)
     */
    public void access(final String memoryId, final AccessCounts counts) {
        lock.writeLock().lock();
        try {
            hits.put(memoryId, counts);
            final Integer slot = slotById.get(memoryId);
            if (slot != null) {
                join(slot);
                newestEvent = Math.max(newestEvent, eventTime(memories[slot]));
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** The slot's served memory and ranking primitives from its stored memory and its hits (under the write lock). */
    private void join(final int s) {
        final Memory memory = hits.getOrDefault(stored[s].getMemoryId(), AccessCounts.NONE).applyTo(stored[s]);
        memories[s] = memory;
        lastAccessed[s] = memory.getLastAccessedAt() == null ? Long.MIN_VALUE : memory.getLastAccessedAt().toEpochMilli();
        accessCount[s] = memory.getAccessCount();
    }

    /**
     * @param memoryId a memory id
     * @return the memory held under that id (any status), without its embedding, its counters joined with its hits;
     *     null when absent
     */
    public Memory memory(final String memoryId) {
        lock.readLock().lock();
        try {
            final Integer slot = slotById.get(memoryId);
            return slot == null ? null : memories[slot];
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * @return memory slots allocated (vectors, priors), ≥ {@link #count()}: doubles when full, starting at 2, so a
     *     user with one memory costs two vectors, not sixteen (10,000 such users: ~6 MB, not ~250 MB)
     */
    int capacity() {
        lock.readLock().lock();
        try {
            return memories.length;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** @return how many memories (any status) the index holds */
    public int count() {
        lock.readLock().lock();
        try {
            return slotById.size();
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Runs a read under the read lock (the arrays do not change meanwhile).
     *
     * @param reader what to do with a consistent view
     * @param <T> the result type
     * @return the reader's result
     */
    public <T> T read(final java.util.function.Function<View, T> reader) {
        lock.readLock().lock();
        try {
            return reader.apply(view);
        } finally {
            lock.readLock().unlock();
        }
    }

    private final View view = new View();

    /** A read-only view of the arrays, valid inside {@link #read} only. */
    public final class View {

        private View() {
        }

        /** @return the slot high-water mark: slots are 0 … slots()−1, some of them free */
        public int slots() {
            return size;
        }

        /** @return the embedding models of the vectors held, an index m of this list is a model's number */
        public List<String> models() {
            return List.copyOf(vectors.models());
        }

        /**
         * @param model a model's number (index into {@link #models()})
         * @return that model's vector size
         */
        public int dimensions(final int model) {
            return vectors.dimensions(model);
        }

        /**
         * @param model a model's number
         * @return that model's vectors, slot s at s·dimensions(model) (only slots of that model are meaningful)
         */
        float[] vectors(final int model) {
            return vectors.vectors(model);
        }

        /**
         * @param slot a slot
         * @return the number of its vector's model, −1 when it has no usable vector
         */
        public int model(final int slot) {
            return vectors.model(slot);
        }

        /**
         * @param slot a slot
         * @return whether the slot holds an ACTIVE memory
         */
        public boolean active(final int slot) {
            return active[slot];
        }

        /**
         * @param slot a slot
         * @return its memory (without the embedding), null for a free slot
         */
        public Memory memory(final int slot) {
            return memories[slot];
        }

        /**
         * @param slot a slot
         * @return the messages its EPISODIC memory cites ({@link MemoryIds#citedMessages}, unmodifiable), null for
         *     another type
         */
        @SuppressWarnings("unchecked")
        Set<String> cited(final int slot) {
            return (Set<String>) cited[slot];
        }

        /**
         * @param slot a slot (not free)
         * @return its event dates and validFrom day as epoch-day spans ({@link TimeCues#days})
         */
        public long[] days(final int slot) {
            return days.days(slot);
        }

        /** @return false when no span of the slot (not free) can overlap epoch days [first, last]; true: see {@link #days} */
        public boolean mayOverlap(final int slot, final long first, final long last) {
            return days.mayOverlap(slot, first, last);
        }

        /**
         * @param slot a slot
         * @return its importance
         */
        public double importance(final int slot) {
            return importance[slot];
        }

        /**
         * @param slot a slot
         * @return lastAccessedAt in epoch ms, Long.MIN_VALUE when unknown
         */
        public long lastAccessed(final int slot) {
            return lastAccessed[slot];
        }

        /**
         * @param slot a slot
         * @return its access count
         */
        public int accessCount(final int slot) {
            return accessCount[slot];
        }

        /**
         * @param slot a slot
         * @return its BM25 document length
         */
        public int length(final int slot) {
            return terms.length(slot);
        }

        /** @return ACTIVE memories */
        public int activeCount() {
            return activeCount;
        }

        /** @return summed BM25 length of the ACTIVE memories */
        public long activeLength() {
            return terms.activeLength();
        }

        /** @return the newest updatedAt / lastAccessedAt of any memory held (the recency reference) */
        public Instant referenceTime() {
            return newestEvent == Long.MIN_VALUE ? Instant.EPOCH : Instant.ofEpochMilli(newestEvent);
        }

        /**
         * @param term an analyzed term
         * @return its postings, null when no memory holds it
         */
        Postings postings(final String term) {
            return terms.postings(term);
        }

        /**
         * The memories a predicate accepts, with their vectors (a copy: for the exhaustive path only).
         *
         * @param eligible which memories
         * @return memory id → (memory, normalized vector or null), in slot order
         */
        public Map<Memory, float[]> copy(final Predicate<Memory> eligible) {
            final Map<Memory, float[]> out = new LinkedHashMap<>();
            for (int s = 0; s < size; s++) {
                if (memories[s] != null && eligible.test(memories[s])) {
                    out.put(memories[s], vectors.copy(s));
                }
            }
            return out;
        }
    }

    /** @return the newest event time over the memories held, Long.MIN_VALUE for none (a scan: rare changes only) */
    private long newestEvent() {
        long newest = Long.MIN_VALUE;
        for (int i = 0; i < size; i++) {
            if (memories[i] != null) {
                newest = Math.max(newest, eventTime(memories[i]));
            }
        }
        return newest;
    }

    private static long eventTime(final Memory m) {
        long t = Long.MIN_VALUE;
        if (m.getUpdatedAt() != null) {
            t = m.getUpdatedAt().toEpochMilli();
        }
        if (m.getLastAccessedAt() != null) {
            t = Math.max(t, m.getLastAccessedAt().toEpochMilli());
        }
        return t;
    }

    private int allocate() {
        if (freeCount > 0) {
            return free[--freeCount];
        }
        if (size == memories.length) {
            final int capacity = Math.max(2, size * 2);
            vectors.grow(capacity);
            active = Arrays.copyOf(active, capacity);
            importance = Arrays.copyOf(importance, capacity);
            lastAccessed = Arrays.copyOf(lastAccessed, capacity);
            accessCount = Arrays.copyOf(accessCount, capacity);
            memories = Arrays.copyOf(memories, capacity);
            stored = Arrays.copyOf(stored, capacity);
            cited = Arrays.copyOf(cited, capacity);
            days.grow(capacity);
            terms.grow(capacity);
        }
        return size++;
    }

    /** @return the embedding models of the vectors held (a snapshot) */
    public List<String> models() {
        lock.readLock().lock();
        try {
            return List.copyOf(vectors.models());
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Moves a slot in or out of the ACTIVE statistics (N, total length, df). */
    private void setActive(final int slot, final boolean nowActive) {
        if (active[slot] == nowActive) {
            return;
        }
        active[slot] = nowActive;
        final int sign = nowActive ? 1 : -1;
        activeCount += sign;
        terms.count(slot, sign);
    }

    /**
     * A copy of a memory without its embedding, made without first copying the embedding's boxed floats
     * (Avro's builder deep-copies every field): see {@link #builderSharingEmbedding}.
     *
     * @param memory a memory the calling thread owns (the stream thread's decoded record)
     * @return the copy, with an empty embedding
     */
    public static Memory withoutEmbedding(final Memory memory) {
        return builderSharingEmbedding(memory, List.of()).build();
    }

    /**
     * A builder of a copy of a memory that carries {@code embedding} (the same list, not a copy), made without
     * deep-copying the memory's own embedding: it is set aside while Avro's builder copies the other fields,
     * and put back. Embedding lists are never changed in place once a record is built, so two records may
     * share one.
     *
     * @param memory a memory the calling thread owns (it is changed and restored during the call)
     * @param embedding the copy's embedding, e.g. {@code memory.getEmbedding()} or an empty list
     * @return a builder holding the copy
     */
    public static Memory.Builder builderSharingEmbedding(final Memory memory, final List<Float> embedding) {
        final List<Float> own = memory.getEmbedding();
        memory.setEmbedding(List.of());
        try {
            return Memory.newBuilder(memory).setEmbedding(embedding);
        } finally {
            memory.setEmbedding(own);
        }
    }

    /**
     * The text BM25 indexes for a memory: its display name (the label a user sees: "Assistant
     * recommendation", "Preferred language") and its content, so "what did you recommend?" meets an
     * exchange whose reply recommends without saying the word.
     *
     * @param memory a memory
     * @return display name and content, space-separated (content alone without a display name)
     */
    public static String searchableText(final Memory memory) {
        final String name = memory.getDisplayName();
        return name == null || name.isBlank() ? memory.getContent() : name + " " + memory.getContent();
    }
}
