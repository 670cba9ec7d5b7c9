package dev.engram.scoring;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The dense side of a {@link UserMemoryIndex}: each slot's embedding, L2-normalised, in the contiguous array
 * of its embedding model m at {@code vectors(m)[slot·d_m … slot·d_m+d_m)} (d_m = the size of the model's first
 * vector; a vector of another size, or none, leaves the slot without dense relevance). Vectors of two models
 * live in two arrays and are never compared. Not thread-safe: the owning index's lock guards it.
 *
 * <p>Beside each vector v its int8 code ({@link Int8Codes}): {@code codes(m)[slot·d_m …]} = round(v_i / s),
 * s = max_i |v_i| / 127 ({@link #scale}), and ‖v‖₁ ({@link #l1}), a quarter of the bytes, from which the
 * scan bounds v's cosine to a query before it reads the float vector.
 */
final class SlotVectors {

    /** Embedding models seen, in order of first appearance; a slot's model is an index into this list. */
    private final List<String> models = new ArrayList<>();
    private int[] dimensionsOf = new int[0];
    private float[][] vectorsOf = new float[0][];
    private byte[][] codesOf = new byte[0][];
    /** Per slot: the scale of its int8 code and the L1 norm of its normalised vector. */
    private float[] scaleOf = new float[0];
    private float[] l1Of = new float[0];
    /** Per slot: index into {@link #models} of its vector's model, −1 without a usable vector. */
    private int[] modelOf = new int[0];
    private int capacity;

    /** @param capacity slots to make room for */
    void grow(final int capacity) {
        for (int m = 0; m < models.size(); m++) {
            vectorsOf[m] = Arrays.copyOf(vectorsOf[m], capacity * dimensionsOf[m]);
            codesOf[m] = Arrays.copyOf(codesOf[m], capacity * dimensionsOf[m]);
        }
        scaleOf = Arrays.copyOf(scaleOf, capacity);
        l1Of = Arrays.copyOf(l1Of, capacity);
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

    /** @return model m's int8 codes, slot s at s·dimensions(m) */
    byte[] codes(final int model) {
        return codesOf[model];
    }

    /** @return the scale of the slot's int8 code (v_i ≈ scale · code_i) */
    float scale(final int slot) {
        return scaleOf[slot];
    }

    /** @return ‖v‖₁ of the slot's normalised vector */
    float l1(final int slot) {
        return l1Of[slot];
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
            codesOf = Arrays.copyOf(codesOf, m + 1);
            codesOf[m] = new byte[capacity * embedding.size()];
        }
        if (embedding.size() != dimensionsOf[m]) {
            modelOf[slot] = -1;
            return;
        }
        final float[] normalized = Vectors.normalized(Vectors.toArray(embedding));
        System.arraycopy(normalized, 0, vectorsOf[m], slot * dimensionsOf[m], dimensionsOf[m]);
        scaleOf[slot] = Int8Codes.encode(normalized, codesOf[m], slot * dimensionsOf[m]);
        l1Of[slot] = Int8Codes.l1(normalized);
        modelOf[slot] = m;
    }

    /** @return a copy of the slot's normalised vector, null without one */
    float[] copy(final int slot) {
        final int m = modelOf[slot];
        return m < 0 ? null : Arrays.copyOfRange(vectorsOf[m], slot * dimensionsOf[m], (slot + 1) * dimensionsOf[m]);
    }
}
