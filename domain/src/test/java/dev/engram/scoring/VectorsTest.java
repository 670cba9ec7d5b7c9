package dev.engram.scoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Random;

import org.apache.avro.Schema;
import org.apache.avro.generic.PrimitivesArrays;
import org.junit.jupiter.api.Test;

/** {@link Vectors}: the one-pass cosine against a stored Avro list gives the two-array cosine's double exactly. */
class VectorsTest {

    private static final Schema FLOATS = Schema.createArray(Schema.create(Schema.Type.FLOAT));

    private static float[] random(final Random random, final int size) {
        final float[] v = new float[size];
        for (int i = 0; i < size; i++) {
            v[i] = (float) random.nextGaussian();
        }
        return v;
    }

    @Test
    void shouldGiveTheSameDoubleAsTheArrayCosineWhenTheListIsAvrosOrPlain() {
        final Random random = new Random(42);
        for (int trial = 0; trial < 200; trial++) {
            final float[] query = random(random, 384);
            final float[] stored = random(random, 384);
            final List<Float> plain = Vectors.toList(stored);
            final List<Float> avro = new PrimitivesArrays.FloatArray(FLOATS, plain);
            final double norm = Math.sqrt(Vectors.dot(query, query));
            final double expected = Vectors.cosine(query, stored);
            assertThat(Vectors.cosine(query, norm, avro)).isEqualTo(expected);
            assertThat(Vectors.cosine(query, norm, plain)).isEqualTo(expected);
        }
    }

    /**
     * The merge pass's filter (MemoryMerges) compares the four-lane float dot product of unit vectors with the least
     * cosine less 1e-3: it must stay within that margin of the exact double cosine, also for the near-duplicates a merge
     * is about (cosine 0.8–1) and for vectors of uneven magnitudes.
     */
    @Test
    void shouldStayWithinAThousandthOfTheDoubleCosineWhenUnitVectorsAreDottedInFloat() {
        final Random random = new Random(7);
        double worst = 0;
        for (int trial = 0; trial < 2_000; trial++) {
            final int size = trial % 2 == 0 ? 384 : 1_024;
            final float[] a = random(random, size);
            final float[] b = trial % 3 == 0 ? random(random, size) : a.clone();
            for (int i = 0; i < size; i++) {
                b[i] += (float) (random.nextGaussian() * 0.3 * (trial % 7) / 7);
                if (trial % 5 == 0) {
                    a[i] *= i % 2 == 0 ? 1e3f : 1e-3f;
                    b[i] *= i % 2 == 0 ? 1e3f : 1e-3f;
                }
            }
            final double exact = Vectors.cosine(a, b);
            final double filter = Vectors.dot(Vectors.normalized(a), Vectors.normalized(b), 0);
            worst = Math.max(worst, Math.abs(filter - exact));
        }
        assertThat(worst).isLessThan(1e-4);
    }

    @Test
    void shouldAnswerZeroForAZeroVectorAndRefuseAnotherSize() {
        final float[] query = {1f, 2f, 3f};
        assertThat(Vectors.cosine(query, Math.sqrt(14), List.of(0f, 0f, 0f))).isZero();
        assertThat(Vectors.cosine(new float[3], 0, List.of(1f, 0f, 0f))).isZero();
        assertThatThrownBy(() -> Vectors.cosine(query, Math.sqrt(14), List.of(1f, 2f)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 vs 2");
    }
}
