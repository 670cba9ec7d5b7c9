package dev.engram.store;

import java.util.HashMap;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.scoring.Vectors;

/**
 * One consolidator task's memory vectors scaled to unit length, by memory id, each kept with the decoded memory it was
 * made from: a memory rewritten (a new record, as every change builds one) is a miss, and its new vector is made then.
 * For the candidate search's filter ({@link StoreVectorIndex#over(java.util.List, UnitVectors)}), which runs for every
 * memory of the user for every candidate: making the unit vector there cost what the exact cosine costs. Derived,
 * never a source of truth; bounded (cleared at {@link #MAX_ENTRIES}); not thread-safe (a task runs on one thread).
 */
public final class UnitVectors {

    /** Entries kept at most (about 1.6 KB each with a 384-float vector); cleared when reached. */
    static final int MAX_ENTRIES = 20_000;

    private record Entry(Memory memory, float[] unit) {
    }

    private final Map<String, Entry> entries = new HashMap<>();

    /**
     * @param memory a decoded memory with an embedding
     * @return its embedding scaled to unit length (all zeros for a zero vector)
     */
    float[] of(final Memory memory) {
        final Entry entry = entries.get(memory.getMemoryId());
        if (entry != null && entry.memory() == memory) {
            return entry.unit();
        }
        if (entries.size() >= MAX_ENTRIES) {
            entries.clear();
        }
        final float[] unit = Vectors.normalized(Vectors.toArray(memory.getEmbedding()));
        entries.put(memory.getMemoryId(), new Entry(memory, unit));
        return unit;
    }
}
