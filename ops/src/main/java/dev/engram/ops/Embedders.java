package dev.engram.ops;

import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

import dev.engram.embedder.MiniLmEmbedder;
import dev.engram.port.Embedder;

/** The embedding models {@code reembed} can use: the built-in MiniLM and every {@link EmbedderProvider}. */
public final class Embedders {

    /** The embedded default model name. */
    public static final String DEFAULT_MODEL = MiniLmEmbedder.MODEL_NAME;

    private Embedders() {
    }

    /** @return model name → provider, sorted by name */
    public static Map<String, EmbedderProvider> available() {
        final Map<String, EmbedderProvider> out = new TreeMap<>();
        out.put(DEFAULT_MODEL, new EmbedderProvider() {
            @Override
            public String model() {
                return DEFAULT_MODEL;
            }

            @Override
            public Embedder create() {
                return MiniLmEmbedder.shared();
            }
        });
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
