package dev.engram.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;

import dev.engram.scoring.Vectors;
import org.junit.jupiter.api.Test;

class MiniLmEmbedderTest {

    private final MiniLmEmbedder embedder = MiniLmEmbedder.shared();

    @Test
    void shouldEmbedNormalizedVectorsOfModelDimension() {
        final float[] v = embedder.embed("I prefer GCP for my side projects.");
        assertThat(v).hasSize(384);
        assertThat(Vectors.dot(v, v)).isCloseTo(1.0, within(1e-3));
    }

    @Test
    void shouldRankParaphraseAboveUnrelatedSentence() {
        final List<float[]> v = embedder.embedAll(List.of(
            "These days I write almost everything in Kotlin.",
            "Kotlin is my main programming language.",
            "My gym locker code is 4417."));
        assertThat(Vectors.cosine(v.get(0), v.get(1))).isGreaterThan(Vectors.cosine(v.get(0), v.get(2)) + 0.2);
    }

    @Test
    void shouldGiveIdenticalVectorsInBatchAndAlone() {
        final String text = "Started eating fish again; being vegan wasn't working for me.";
        final float[] alone = embedder.embed(text);
        final float[] batched = embedder.embedAll(List.of("something else", text)).get(1);
        assertThat(batched).containsExactly(alone);
    }
}
