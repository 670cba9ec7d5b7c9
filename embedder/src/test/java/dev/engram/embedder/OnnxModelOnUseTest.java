package dev.engram.embedder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.port.Embedder;
import org.junit.jupiter.api.Test;

/**
 * Models loaded when they first embed ({@link OnnxModelOnUse}, {@link ScriptRoutedEmbedder#loadingOnUse},
 * {@link ActiveModelEmbedder#loadingOnUse}): the names and routing of the loaded ones, the same vectors, nothing loaded
 * before.
 */
class OnnxModelOnUseTest {

    private static final String TEXT = "These days I write almost everything in Kotlin.";
    /** A model whose files are not on the class path: loading it fails, so a load shows. */
    private static final OnnxModel ABSENT = new OnnxModel("absent-model-q", "absent-model-q.onnx",
        "absent-model-q-tokenizer.json", OnnxModel.BGE_SMALL_EN.pooling(), "", 256);

    @Test
    void shouldKnowTheModelWithoutLoadingItAndLoadItAtTheFirstEmbedding() {
        final OnnxModelOnUse model = new OnnxModelOnUse(ABSENT);

        assertThat(model.modelName()).isEqualTo(ABSENT.name());
        assertThat(model.dimensions()).isEqualTo(256);
        assertThat(model.modelFor(TEXT)).isEqualTo(ABSENT.name());
        assertThat(model.loaded()).isFalse();
        assertThatThrownBy(() -> model.embedAll(List.of(TEXT))).as("loaded here, not before")
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("missing from the classpath");
    }

    @Test
    void shouldRouteAsTheLoadedModelsAndEmbedTheSameVectors() {
        final EngramConfig config = EngramConfig.defaults();
        final Embedder loaded = ScriptRoutedEmbedder.fromConfig(config);
        final Embedder onUse = ScriptRoutedEmbedder.loadingOnUse(config);

        assertThat(onUse.models()).isEqualTo(loaded.models());
        assertThat(onUse.dimensions()).isEqualTo(loaded.dimensions());
        for (final String text : List.of(TEXT, "我住在北京", "I love 北京 food", "")) {
            assertThat(onUse.modelFor(text)).as(text).isEqualTo(loaded.modelFor(text));
        }
        assertThat(onUse.embedAll(List.of(TEXT, "我住在北京"))).containsExactlyElementsOf(loaded.embedAll(List.of(TEXT, "我住在北京")));
    }

    @Test
    void shouldSwitchToAModelLoadedOnUseToo() {
        final EngramConfig config = new EngramConfig(Map.of(CoreConfig.EMBEDDING_MODEL, OnnxModel.MINILM.name(),
            CoreConfig.EMBEDDING_DIMENSIONS, OnnxModel.MINILM.dimensions()));
        final ActiveModelEmbedder embedder = ActiveModelEmbedder.loadingOnUse(config);
        assertThat(embedder.modelName()).isEqualTo(OnnxModel.MINILM.name());

        assertThat(embedder.switchTo(OnnxModel.BGE_SMALL_EN.name())).isTrue();

        assertThat(embedder.modelFor(TEXT)).isEqualTo(OnnxModel.BGE_SMALL_EN.name());
        assertThat(embedder.modelFor("我住在北京")).as("Han text keeps embedding.model.han").isEqualTo(OnnxModel.BGE_SMALL_ZH.name());
        assertThat(embedder.embed(TEXT)).isEqualTo(OnnxEmbedder.shared(OnnxModel.BGE_SMALL_EN).embed(TEXT));
    }
}
