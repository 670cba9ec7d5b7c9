package dev.engram.port;

import java.util.Map;
import java.util.OptionalInt;

/**
 * The vector sizes of the built-in embedding models, for modules that check vectors without loading a
 * model (the consolidator's candidate checks). The embedder module's {@code OnnxModel} defines the same
 * models; a test there keeps both in agreement.
 */
public final class EmbeddingModels {

    private static final Map<String, Integer> DIMENSIONS = Map.of(
        "bge-small-en-v15-q", 384,
        "bge-small-zh-v15-q", 512,
        "all-minilm-l6-v2-q", 384);

    private EmbeddingModels() {
    }

    /**
     * @param model a model name as recorded on candidates and memories, e.g. {@code bge-small-en-v15-q}
     * @return its vector size when it is a built-in model, else empty (a model served elsewhere)
     */
    public static OptionalInt dimensions(final String model) {
        final Integer size = model == null ? null : DIMENSIONS.get(model);
        return size == null ? OptionalInt.empty() : OptionalInt.of(size);
    }
}
