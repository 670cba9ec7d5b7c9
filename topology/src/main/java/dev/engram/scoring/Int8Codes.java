package dev.engram.scoring;

/**
 * Int8 codes of normalised vectors and a rigorous bound on the cosine they approximate, so the kept-index scan
 * reads a quarter of the bytes for every memory and the float vector only for the memories whose bound can
 * still reach the candidates (scalar quantisation, as e.g. Lucene's int8 HNSW vectors; here only a filter:
 * every candidate's cosine is the float kernel's, {@link Vectors#dot(float[], float[], int)}).
 *
 * <p>A vector v is coded as c_i = round(v_i / s), s = max_i |v_i| / 127, so |v_i − s·c_i| ≤ s/2. For a query
 * q coded likewise (scale t, q̂ = t·c(q)) the approximation a = t·s·Σ c(q)_i·c_i satisfies
 * <pre>
 *   |q·v − a| = |(q − q̂)·v + q̂·(v − v̂)| ≤ t/2 · ‖v‖₁ + s/2 · ‖q̂‖₁
 * </pre>
 * (Hölder, ‖x‖_∞·‖y‖₁), plus {@link #MARGIN} for the float kernel's own rounding (≤ γ_n·‖q‖·‖v‖ ≈ 6·10⁻⁶
 * for 384 dimensions; Higham, "Accuracy and Stability of Numerical Algorithms", §3.1) and the arithmetic
 * of the bound. For unit 384-dimensional vectors the bound is ~0.02–0.03 in cosine.
 */
final class Int8Codes {

    /** Added to every bound: covers the float kernel's rounding and the bound's own arithmetic. */
    static final double MARGIN = 1e-4;

    private Int8Codes() {
    }

    /**
     * Codes a vector into {@code codes[offset … offset + v.length)}.
     *
     * @param v a vector (normalised)
     * @param codes where the codes go
     * @param offset where v's codes start
     * @return the scale s (0 for a zero vector, whose codes are 0)
     */
    static float encode(final float[] v, final byte[] codes, final int offset) {
        float max = 0;
        for (final float x : v) {
            max = Math.max(max, Math.abs(x));
        }
        final float scale = max / 127f;
        for (int i = 0; i < v.length; i++) {
            codes[offset + i] = scale == 0 ? 0 : (byte) Math.max(-127, Math.min(127, Math.round(v[i] / (double) scale)));
        }
        return scale;
    }

    /**
     * @param v a vector
     * @return Σ |v_i|
     */
    static float l1(final float[] v) {
        double sum = 0;
        for (final float x : v) {
            sum += Math.abs(x);
        }
        return (float) sum;
    }

    /**
     * @param a codes of length n
     * @param b a code array
     * @param offset where b's codes start
     * @return Σ a_i·b[offset+i], exact in int (|sum| ≤ n·127², n ≤ 133,000)
     */
    static int dot(final byte[] a, final byte[] b, final int offset) {
        int sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[offset + i];
        }
        return sum;
    }

    /**
     * A query coded once per request.
     *
     * @param codes the query's codes
     * @param scale its scale t
     * @param l1 ‖q̂‖₁ = t·Σ|c(q)_i|
     */
    record Query(byte[] codes, double scale, double l1) {

        /**
         * @param vector the query's normalised vector
         * @return its codes
         */
        static Query of(final float[] vector) {
            final byte[] codes = new byte[vector.length];
            final float scale = encode(vector, codes, 0);
            long sum = 0;
            for (final byte c : codes) {
                sum += Math.abs(c);
            }
            return new Query(codes, scale, (double) scale * sum);
        }

        /**
         * @param slotCodes a model's codes
         * @param offset the slot's codes' start
         * @param slotScale the slot's scale s
         * @return the approximate cosine a
         */
        double approx(final byte[] slotCodes, final int offset, final float slotScale) {
            return scale * slotScale * dot(codes, slotCodes, offset);
        }

        /**
         * @param slotScale the slot's scale s
         * @param slotL1 ‖v‖₁ of the slot's vector
         * @return the bound on |q·v − a| (the float kernel's result included)
         */
        double error(final float slotScale, final float slotL1) {
            return scale / 2 * slotL1 + slotScale / 2.0 * l1 + MARGIN;
        }
    }
}
