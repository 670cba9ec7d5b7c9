package dev.engram.embedder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;

import org.junit.jupiter.api.Test;

class MiniLmEmbedderTest {

    private final MiniLmEmbedder embedder = MiniLmEmbedder.shared();

    @Test
    void shouldEmbedNormalizedVectorsOfModelDimension() {
        final float[] v = embedder.embed("I prefer GCP for my side projects.");
        assertThat(v).hasSize(384);
        assertThat(dot(v, v)).isCloseTo(1.0, within(1e-3));
    }

    @Test
    void shouldRankParaphraseAboveUnrelatedSentence() {
        final List<float[]> v = embedder.embedAll(List.of(
            "These days I write almost everything in Kotlin.",
            "Kotlin is my main programming language.",
            "My gym locker code is 4417."));
        assertThat(cosine(v.get(0), v.get(1))).isGreaterThan(cosine(v.get(0), v.get(2)) + 0.2);
    }

    @Test
    void shouldGiveIdenticalVectorsInBatchAndAlone() {
        final String text = "Started eating fish again; being vegan wasn't working for me.";
        final float[] alone = embedder.embed(text);
        final float[] batched = embedder.embedAll(List.of("something else", text)).get(1);
        assertThat(batched).containsExactly(alone);
    }

    private static double dot(final float[] a, final float[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }

    private static double cosine(final float[] a, final float[] b) {
        return dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b));
    }
}
