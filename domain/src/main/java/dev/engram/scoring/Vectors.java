package dev.engram.scoring;

/** Vector arithmetic on float embeddings, accumulated in double. */
public final class Vectors {

    private Vectors() {
    }

    /**
     * @param a a vector
     * @param b a vector of the same length
     * @return the dot product
     * @throws IllegalArgumentException if the lengths differ
     */
    public static double dot(final float[] a, final float[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("vector sizes differ: " + a.length + " vs " + b.length);
        }
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += (double) a[i] * b[i];
        }
        return sum;
    }

    /**
     * @param a a vector
     * @param b a vector of the same length
     * @return cosine similarity, -1..1; 0 when either vector is zero
     */
    public static double cosine(final float[] a, final float[] b) {
        final double na = Math.sqrt(dot(a, a));
        final double nb = Math.sqrt(dot(b, b));
        if (na == 0 || nb == 0) {
            return 0;
        }
        return dot(a, b) / (na * nb);
    }

    /**
     * {@link #cosine(float[], float[])} of a vector whose norm is known with an Avro float list, in one pass over the
     * list and without copying it: the same sums in the same order, so the same double. For a search that compares one
     * query with many stored vectors (copying each to an array and summing the query's norm again per memory was a
     * tenth of the consolidator's CPU in {@code bench ingest}).
     *
     * @param a a vector
     * @param normA {@code Math.sqrt(dot(a, a))}
     * @param b a vector of the same length, as an Avro float list ({@link #toArray} reads it the same way)
     * @return cosine similarity, -1..1; 0 when either vector is zero
     * @throws IllegalArgumentException if the lengths differ
     */
    public static double cosine(final float[] a, final double normA, final java.util.List<Float> b) {
        if (a.length != b.size()) {
            throw new IllegalArgumentException("vector sizes differ: " + a.length + " vs " + b.size());
        }
        double ab = 0;
        double bb = 0;
        if (b instanceof org.apache.avro.generic.PrimitivesArrays.FloatArray primitive) {
            for (int i = 0; i < a.length; i++) {
                final float x = primitive.getFloat(i);
                ab += (double) a[i] * x;
                bb += (double) x * x;
            }
        } else {
            for (int i = 0; i < a.length; i++) {
                final float x = b.get(i);
                ab += (double) a[i] * x;
                bb += (double) x * x;
            }
        }
        final double nb = Math.sqrt(bb);
        if (normA == 0 || nb == 0) {
            return 0;
        }
        return ab / (normA * nb);
    }

    /**
     * The dot product of {@code a} with {@code b[offset … offset + a.length)}, accumulated in float,
     * four lanes (the kernel of every dense score, exhaustive or indexed, so both agree to the bit).
     *
     * @param a a vector
     * @param b a vector array
     * @param offset where b's vector starts
     * @return Σ a[i]·b[offset+i]
     */
    public static float dot(final float[] a, final float[] b, final int offset) {
        float s0 = 0;
        float s1 = 0;
        float s2 = 0;
        float s3 = 0;
        final int n = a.length;
        final int upper = n & ~3;
        int i = 0;
        for (; i < upper; i += 4) {
            s0 += a[i] * b[offset + i];
            s1 += a[i + 1] * b[offset + i + 1];
            s2 += a[i + 2] * b[offset + i + 2];
            s3 += a[i + 3] * b[offset + i + 3];
        }
        for (; i < n; i++) {
            s0 += a[i] * b[offset + i];
        }
        return (s0 + s1) + (s2 + s3);
    }

    /**
     * @param v a vector
     * @return v / |v| (a new array); a zero vector stays zero
     */
    public static float[] normalized(final float[] v) {
        final double norm = Math.sqrt(dot(v, v));
        final float[] out = new float[v.length];
        if (norm == 0) {
            return out;
        }
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) (v[i] / norm);
        }
        return out;
    }

    /**
     * @param list an Avro float array: a decoded record's is Avro's primitive-backed
     *     {@link org.apache.avro.generic.PrimitivesArrays.FloatArray}, read without boxing a {@link Float} per value
     * @return the same values as a primitive array
     */
    public static float[] toArray(final java.util.List<Float> list) {
        final float[] out = new float[list.size()];
        if (list instanceof org.apache.avro.generic.PrimitivesArrays.FloatArray primitive) {
            for (int i = 0; i < out.length; i++) {
                out[i] = primitive.getFloat(i);
            }
            return out;
        }
        for (int i = 0; i < out.length; i++) {
            out[i] = list.get(i);
        }
        return out;
    }

    /**
     * @param vector a primitive vector
     * @return the values as a list for Avro
     */
    public static java.util.List<Float> toList(final float[] vector) {
        final java.util.List<Float> out = new java.util.ArrayList<>(vector.length);
        for (final float v : vector) {
            out.add(v);
        }
        return out;
    }
}
