package dev.engram.ops;

import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.OnnxEmbedder;
import dev.engram.embedder.OnnxModel;
import dev.engram.port.Embedder;

/**
 * The embedding models {@code reembed} can use: the built-in ones ({@link OnnxModel#BUILT_IN}:
 * bge-small-en-v15-q, bge-small-zh-v15-q, all-minilm-l6-v2-q) and every {@link EmbedderProvider}.
 */
public final class Embedders {

    /** The embedded default model name ({@code embedding.model}'s default). */
    public static final String DEFAULT_MODEL = EngramConfig.defaults().getString(CoreConfig.EMBEDDING_MODEL);

    private Embedders() {
    }

    /** @return model name → provider, sorted by name */
    public static Map<String, EmbedderProvider> available() {
        final Map<String, EmbedderProvider> out = new TreeMap<>();
        for (final OnnxModel model : OnnxModel.BUILT_IN) {
            out.put(model.name(), new EmbedderProvider() {
                @Override
                public String model() {
                    return model.name();
                }

                @Override
                public Embedder create() {
                    return OnnxEmbedder.shared(model);
                }
            });
        }
        for (final EmbedderProvider provider : ServiceLoader.load(EmbedderProvider.class)) {
            out.put(provider.model(), provider);
        }
        return out;
    }

    /**
     * @param model a model name
     * @return its provider
     * @throws IllegalArgumentException if no provider has that name (the message lists those that do)
     */
    public static EmbedderProvider named(final String model) {
        final EmbedderProvider provider = available().get(model);
        if (provider == null) {
            throw new IllegalArgumentException("Unknown embedding model " + model + "; available: " + available().keySet());
        }
        return provider;
    }
}
