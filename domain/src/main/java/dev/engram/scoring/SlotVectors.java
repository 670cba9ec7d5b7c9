package dev.engram.scoring;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The dense side of a {@link UserMemoryIndex}: each slot's embedding, L2-normalised, in the contiguous array
 * of its embedding model m at {@code vectors(m)[slot·d_m … slot·d_m+d_m)} (d_m = the size of the model's first
 * vector; a vector of another size, or none, leaves the slot without dense relevance). Vectors of two models
 * live in two arrays and are never compared. Not thread-safe: the owning index's lock guards it.
 */
final class SlotVectors {

    /** Embedding models seen, in order of first appearance; a slot's model is an index into this list. */
    private final List<String> models = new ArrayList<>();
    private int[] dimensionsOf = new int[0];
    private float[][] vectorsOf = new float[0][];
    /** Per slot: index into {@link #models} of its vector's model, −1 without a usable vector. */
    private int[] modelOf = new int[0];
    private int capacity;

    /** @param capacity slots to make room for */
    void grow(final int capacity) {
        for (int m = 0; m < models.size(); m++) {
            vectorsOf[m] = Arrays.copyOf(vectorsOf[m], capacity * dimensionsOf[m]);
        }
        final int old = modelOf.length;
        modelOf = Arrays.copyOf(modelOf, capacity);
        Arrays.fill(modelOf, old, capacity, -1);
        this.capacity = capacity;
    }

    /** @return the models seen (the live list: copy it before the lock is released) */
    List<String> models() {
        return models;
    }

    /** @return model m's vector size */
    int dimensions(final int model) {
        return dimensionsOf[model];
    }

    /** @return model m's vectors, slot s at s·dimensions(m) */
    float[] vectors(final int model) {
        return vectorsOf[model];
    }

    /** @return the slot's model number, −1 without a usable vector */
    int model(final int slot) {
        return modelOf[slot];
    }

    /** Forgets a slot's vector. */
    void clear(final int slot) {
        modelOf[slot] = -1;
    }

    /**
     * Stores a slot's vector, normalised.
     *
     * @param slot the slot
     * @param model the vector's embedding model (null = "")
     * @param embedding the stored embedding, empty or null for none
     */
    void store(final int slot, final String model, final List<Float> embedding) {
        if (embedding == null || embedding.isEmpty()) {
            modelOf[slot] = -1;
            return;
        }
        final String name = model == null ? "" : model;
        int m = models.indexOf(name);
        if (m < 0) {
            m = models.size();
            models.add(name);
            dimensionsOf = Arrays.copyOf(dimensionsOf, m + 1);
            dimensionsOf[m] = embedding.size();
            vectorsOf = Arrays.copyOf(vectorsOf, m + 1);
            vectorsOf[m] = new float[capacity * embedding.size()];
        }
        if (embedding.size() != dimensionsOf[m]) {
            modelOf[slot] = -1;
            return;
        }
        final float[] normalized = Vectors.normalized(Vectors.toArray(embedding));
        System.arraycopy(normalized, 0, vectorsOf[m], slot * dimensionsOf[m], dimensionsOf[m]);
        modelOf[slot] = m;
    }
}
