package dev.engram.embedder;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import dev.engram.port.Embedder;
import org.junit.jupiter.api.Test;

class KnownVectorsTest {

    @Test
    void shouldAnswerKnownTextsAndEmbedOnlyTheOthersWhenAskedForSeveral() {
        final Embedder model = ScriptRoutedEmbedder.defaults();
        final String observation = "Works as a nurse. Lives in Lisbon.";
        final float[] recorded = model.embed(observation);
        final KnownVectors embedder = new KnownVectors(model,
            Map.of(KnownVectors.key(model.modelFor(observation), observation), recorded));

        final List<float[]> vectors = embedder.embedAll(List.of("Runs every Tuesday.", observation));

        assertThat(vectors.get(0)).containsExactly(model.embed("Runs every Tuesday."));
        assertThat(vectors.get(1)).containsExactly(recorded);
        assertThat(embedder.reused()).isEqualTo(1);
        assertThat(embedder.embedded()).isEqualTo(1);
    }

    @Test
    void shouldEmbedATextAgainWhenItsVectorIsKnownOnlyForAnotherModel() {
        final Embedder model = ScriptRoutedEmbedder.defaults();
        final String text = "Works as a nurse.";
        final KnownVectors embedder = new KnownVectors(model,
            Map.of(KnownVectors.key("all-minilm-l6-v2-q", text), new float[model.dimensions()]));

        assertThat(embedder.embedAll(List.of(text)).get(0)).containsExactly(model.embed(text));
        assertThat(embedder.current().embedAll(List.of(text)).get(0)).containsExactly(model.embed(text));
        assertThat(embedder.reused()).isZero();
        assertThat(embedder.embedded()).isEqualTo(2);
    }
}
