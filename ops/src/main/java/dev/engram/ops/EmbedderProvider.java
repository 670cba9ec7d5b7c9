package dev.engram.ops;

import dev.engram.port.Embedder;

/**
 * A pluggable embedding model for {@code bin/engram reembed}, found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/dev.engram.ops.EmbedderProvider}). The built-in ones are those of
 * {@link dev.engram.embedder.OnnxModel#BUILT_IN} (the default: {@link Embedders#DEFAULT_MODEL}).
 */
public interface EmbedderProvider {

    /** @return the model name, as recorded in {@code Memory.embeddingModel} */
    String model();

    /** @return a ready embedder of that model; closed by the caller */
    Embedder create();
}
