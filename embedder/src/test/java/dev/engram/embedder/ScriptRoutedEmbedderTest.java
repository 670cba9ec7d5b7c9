package dev.engram.embedder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.port.Embedder;
import org.junit.jupiter.api.Test;

class ScriptRoutedEmbedderTest {

    private final Embedder embedder = ScriptRoutedEmbedder.fromConfig(EngramConfig.defaults());

    @Test
    void shouldMeasureHanShareInCharactersAgainstWords() {
        assertThat(ScriptRoutedEmbedder.hanShare("我住在北京，在华为工作。")).isEqualTo(1.0);
        assertThat(ScriptRoutedEmbedder.hanShare("我用Kotlin写代码")).isCloseTo(5.0 / 6, within(1e-9));
        assertThat(ScriptRoutedEmbedder.hanShare("I love 北京 food")).isCloseTo(2.0 / 5, within(1e-9));
        assertThat(ScriptRoutedEmbedder.hanShare("東京に住んでいます")).isEqualTo(1.0);
        assertThat(ScriptRoutedEmbedder.hanShare("서울에 살아요")).isZero();
        assertThat(ScriptRoutedEmbedder.hanShare("Tôi sống ở Hà Nội")).isZero();
        assertThat(ScriptRoutedEmbedder.hanShare("...")).isZero();
    }

    @Test
    void shouldEmbedEachTextWithTheModelOfItsScriptByDefault() {
        assertThat(embedder.models()).containsExactly("bge-small-en-v15-q", "bge-small-zh-v15-q");
        assertThat(embedder.modelFor("我住在北京，在华为工作。")).isEqualTo("bge-small-zh-v15-q");
        assertThat(embedder.modelFor("東京に住んでいます")).isEqualTo("bge-small-zh-v15-q");
        assertThat(embedder.modelFor("I live in Beijing and work at Huawei.")).isEqualTo("bge-small-en-v15-q");
        assertThat(embedder.modelFor("서울에 살아요")).isEqualTo("bge-small-en-v15-q");
        assertThat(embedder.modelFor("أعيش في القاهرة")).isEqualTo("bge-small-en-v15-q");

        final List<float[]> mixed = embedder.embedAll(List.of("I live in Beijing.", "我住在北京。", "I work at Huawei."));
        assertThat(mixed.get(0)).containsExactly(OnnxEmbedder.shared(OnnxModel.BGE_SMALL_EN).embed("I live in Beijing."));
        assertThat(mixed.get(1)).containsExactly(OnnxEmbedder.shared(OnnxModel.BGE_SMALL_ZH).embed("我住在北京。"));
        assertThat(mixed.get(2)).containsExactly(OnnxEmbedder.shared(OnnxModel.BGE_SMALL_EN).embed("I work at Huawei."));
    }

    @Test
    void shouldEmbedAQueryWithTheModelOfTheVectorsItIsComparedWith() {
        final String query = "在哪里工作？";
        assertThat(embedder.embedQuery(query, "bge-small-zh-v15-q"))
            .containsExactly(OnnxEmbedder.shared(OnnxModel.BGE_SMALL_ZH).embedQuery(query));
        assertThat(embedder.embedQuery(query, "bge-small-en-v15-q"))
            .containsExactly(OnnxEmbedder.shared(OnnxModel.BGE_SMALL_EN).embedQuery(query));
    }

    @Test
    void shouldUseOneModelForEveryTextWhenTheHanModelIsOff() {
        final Embedder single = ScriptRoutedEmbedder.fromConfig(EngramConfig.defaults().with(Map.of(
            CoreConfig.EMBEDDING_MODEL, "all-minilm-l6-v2-q", CoreConfig.EMBEDDING_MODEL_HAN, "")));
        assertThat(single.models()).containsExactly("all-minilm-l6-v2-q");
        assertThat(single.modelFor("我住在北京，在华为工作。")).isEqualTo("all-minilm-l6-v2-q");
    }
}
