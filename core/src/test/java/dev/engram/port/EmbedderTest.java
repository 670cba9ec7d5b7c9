package dev.engram.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** What an embedder that implements only its batch call gets from the port's default methods. */
class EmbedderTest {

    /** Vectors of the text's length, recording every batch it is given. */
    private static final class LengthEmbedder implements Embedder {
        final List<List<String>> batches = new ArrayList<>();

        @Override
        public String modelName() {
            return "length-v1";
        }

        @Override
        public int dimensions() {
            return 2;
        }

        @Override
        public List<float[]> embedAll(final List<String> texts) {
            batches.add(List.copyOf(texts));
            return texts.stream().map(t -> new float[] {t.length(), 1}).toList();
        }
    }

    @Test
    void shouldEmbedOneTextAsABatchOfOneWithTheDefaultModelWhenOnlyTheBatchCallIsImplemented() {
        final LengthEmbedder embedder = new LengthEmbedder();

        assertThat(embedder.embed("abc")).containsExactly(3f, 1f);
        assertThat(embedder.batches).containsExactly(List.of("abc"));
        assertThat(embedder.models()).containsExactly("length-v1");
        assertThat(embedder.modelFor("任何文本")).isEqualTo("length-v1");
        assertThat(embedder.current()).isSameAs(embedder);
    }

    @Test
    void shouldEmbedAQueryLikeAPassageOfItsOwnModelAndRefuseAModelItDoesNotHold() {
        final LengthEmbedder embedder = new LengthEmbedder();

        assertThat(embedder.embedQuery("four")).containsExactly(4f, 1f);
        assertThat(embedder.embedQuery("four", "length-v1")).containsExactly(4f, 1f);
        assertThatThrownBy(() -> embedder.embedQuery("four", "bge-small-zh-v15-q"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("Embedder length-v1 cannot embed with model bge-small-zh-v15-q");
        assertThat(embedder.batches).hasSize(2);
    }

    @Test
    void shouldKnowTheBuiltInModelsSizesAndNothingElse() {
        assertThat(EmbeddingModels.dimensions("bge-small-en-v15-q")).hasValue(384);
        assertThat(EmbeddingModels.dimensions("bge-small-zh-v15-q")).hasValue(512);
        assertThat(EmbeddingModels.dimensions("all-minilm-l6-v2-q")).hasValue(384);
        assertThat(EmbeddingModels.dimensions("text-embedding-3-small")).isEmpty();
        assertThat(EmbeddingModels.dimensions(null)).isEmpty();
    }
}
