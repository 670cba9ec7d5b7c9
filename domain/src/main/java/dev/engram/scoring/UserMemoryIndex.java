package dev.engram.scoring;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
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
 *   <li>what ranking needs as primitives ({@link SlotRecords}): ACTIVE or not, importance, lastAccessedAt (epoch ms) and access
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
    private final SlotRecords records = new SlotRecords();
    /** Retrieval hits by memory id, of memories held or not yet held (the join waits for the memory). */
    private final Map<String, AccessCounts> hits = new HashMap<>();
    private final SlotDays days = new SlotDays();

    private int activeCount;

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
                contentChanged = !searchableText(records.memories[slot]).equals(searchableText(memory));
                previousEvent = SlotRecords.eventTime(records.memories[slot]);
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
            records.put(s, memory, hits);
            days.set(s, memory);
            setActive(s, memory.getStatus() == MemoryStatus.ACTIVE);
            records.moved(s, previousEvent);
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
            records.release(slot);
            days.clear(slot);
            vectors.clear(slot);
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
                records.accessed(slot, hits);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * @param memoryId a memory id
     * @return the memory held under that id (any status), without its embedding, its counters joined with its hits;
     *     null when absent
     */
    public Memory memory(final String memoryId) {
        return locked(() -> {
            final Integer slot = slotById.get(memoryId);
            return slot == null ? null : records.memories[slot];
        });
    }

    /**
     * @return memory slots allocated (vectors, priors), ≥ {@link #count()}: doubles when full, starting at 2, so a
     *     user with one memory costs two vectors, not sixteen (10,000 such users: ~6 MB, not ~250 MB)
     */
    int capacity() {
        return locked(records::capacity);
    }

    /** @return how many memories (any status) the index holds */
    public int count() {
        return locked(slotById::size);
    }

    /**
     * Runs a read under the read lock (the arrays do not change meanwhile).
     *
     * @param reader what to do with a consistent view
     * @param <T> the result type
     * @return the reader's result
     */
    public <T> T read(final java.util.function.Function<View, T> reader) {
        return locked(() -> reader.apply(view));
    }

    /** The supplier's result, computed under the read lock. */
    private <T> T locked(final Supplier<T> supplier) {
        lock.readLock().lock();
        try {
            return supplier.get();
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
            return records.size();
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
            return records.active[slot];
        }

        /**
         * @param slot a slot
         * @return its memory (without the embedding), null for a free slot
         */
        public Memory memory(final int slot) {
            return records.memories[slot];
        }

        /**
         * @param slot a slot
         * @return the messages its EPISODIC memory cites ({@link MemoryIds#citedMessages}, unmodifiable), null for
         *     another type
         */
        @SuppressWarnings("unchecked")
        Set<String> cited(final int slot) {
            return (Set<String>) records.cited[slot];
        }

        /**
         * @param slot a slot (not free)
         * @return its memory's text as {@link ObservationLift} reads it, kept while the slot holds that memory
         */
        LiftText liftText(final int slot) {
            return records.lift[slot];
        }

        /**
         * @param slot a slot (not free)
         * @return whether it holds an observation or topic list ({@link ObservationLift#lifts})
         */
        boolean observation(final int slot) {
            return records.observation[slot];
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
            return records.importance[slot];
        }

        /**
         * @param slot a slot
         * @return lastAccessedAt in epoch ms, Long.MIN_VALUE when unknown
         */
        public long lastAccessed(final int slot) {
            return records.lastAccessed[slot];
        }

        /**
         * @param slot a slot
         * @return its access count
         */
        public int accessCount(final int slot) {
            return records.accessCount[slot];
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
            final long newest = records.newestEvent();
            return newest == Long.MIN_VALUE ? Instant.EPOCH : Instant.ofEpochMilli(newest);
        }

        /**
         * @param term an analyzed term
         * @return its postings, null when no memory holds it
         */
        Postings postings(final String term) {
            return terms.postings(term);
        }
    }

    /** A slot for a new memory: a freed one, else the next (every per-slot structure grows with the records). */
    private int allocate() {
        final int before = records.capacity();
        final int slot = records.allocate();
        final int capacity = records.capacity();
        if (capacity != before) {
            vectors.grow(capacity);
            days.grow(capacity);
            terms.grow(capacity);
        }
        return slot;
    }

    /** @return the embedding models of the vectors held (a snapshot) */
    public List<String> models() {
        return locked(() -> List.copyOf(vectors.models()));
    }

    /** Moves a slot in or out of the ACTIVE statistics (N, total length, df). */
    private void setActive(final int slot, final boolean nowActive) {
        if (records.active[slot] == nowActive) {
            return;
        }
        records.active[slot] = nowActive;
        final int sign = nowActive ? 1 : -1;
        activeCount += sign;
        terms.count(slot, sign);
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
