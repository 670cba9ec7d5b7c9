package dev.engram.embedder;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.port.Embedder;
import org.junit.jupiter.api.Test;

/** {@link ActiveModelEmbedder} with the real models: what a switch changes, and what a batch keeps. */
class ActiveModelEmbedderTest {

    private static final String TEXT = "These days I write almost everything in Kotlin.";

    @Test
    void shouldEmbedWithTheSwitchedModelKeepingTheHanRouteAndIgnoringAnUnknownModel() {
        final EngramConfig config = new EngramConfig(Map.of(CoreConfig.EMBEDDING_MODEL, OnnxModel.MINILM.name(),
            CoreConfig.EMBEDDING_DIMENSIONS, OnnxModel.MINILM.dimensions()));
        final ActiveModelEmbedder embedder = ActiveModelEmbedder.fromConfig(config);
        assertThat(embedder.modelName()).isEqualTo(OnnxModel.MINILM.name());
        final Embedder before = embedder.current();

        assertThat(embedder.switchTo("text-embedding-3-small")).as("not built in: kept").isFalse();
        assertThat(embedder.switchTo(OnnxModel.MINILM.name())).as("already held").isFalse();
        assertThat(embedder.switchTo(OnnxModel.BGE_SMALL_EN.name())).isTrue();

        assertThat(embedder.modelName()).isEqualTo(OnnxModel.BGE_SMALL_EN.name());
        assertThat(embedder.modelFor(TEXT)).isEqualTo(OnnxModel.BGE_SMALL_EN.name());
        assertThat(embedder.embed(TEXT)).isEqualTo(OnnxEmbedder.shared(OnnxModel.BGE_SMALL_EN).embed(TEXT));
        assertThat(embedder.modelFor("我住在北京")).as("Han text keeps embedding.model.han")
            .isEqualTo(OnnxModel.BGE_SMALL_ZH.name());
        // a batch taken before the switch stays on its model: its vectors and its recorded model agree
        assertThat(before.modelFor(TEXT)).isEqualTo(OnnxModel.MINILM.name());
        assertThat(before.embedAll(List.of(TEXT)).get(0)).isEqualTo(OnnxEmbedder.shared(OnnxModel.MINILM).embed(TEXT));
    }
}
