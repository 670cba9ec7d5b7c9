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
     * @param list an Avro float array
     * @return the same values as a primitive array
     */
    public static float[] toArray(final java.util.List<Float> list) {
        final float[] out = new float[list.size()];
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
