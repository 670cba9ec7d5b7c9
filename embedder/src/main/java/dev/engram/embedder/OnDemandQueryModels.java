package dev.engram.embedder;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import dev.engram.port.Embedder;

/**
 * The retriever's embedder: the configured one for passages and for queries compared with its models'
 * vectors, and every other built-in model ({@link OnnxModel#BUILT_IN}) for queries compared with vectors of
 * that model, loaded the first time such a query comes ({@link OnnxEmbedder#shared(OnnxModel)}). So after
 * {@code bin/engram reembed --model M} the memories carrying M's vectors are ranked with a query embedded
 * by M at once, before (and whether or not) the retriever's {@code embedding.model} is changed, and while a
 * re-embedding is half done the memories of both models are ranked, each against its own model's query
 * vector. Vectors of two models are never compared: a memory of a model no embedder here holds gets no
 * dense score ({@code QueryVectors} returns null for it).
 *
 * <p>Thread-safe as the embedders it delegates to.
 */
public final class OnDemandQueryModels implements Embedder {

    private final Embedder configured;

    /** @param configured the deployment's embedder ({@link ScriptRoutedEmbedder#fromConfig}) */
    public OnDemandQueryModels(final Embedder configured) {
        this.configured = Objects.requireNonNull(configured, "configured");
    }

    @Override
    public String modelName() {
        return configured.modelName();
    }

    @Override
    public int dimensions() {
        return configured.dimensions();
    }

    /** @return the configured models first, then every other built-in model */
    @Override
    public List<String> models() {
        final List<String> models = new ArrayList<>(configured.models());
        OnnxModel.names().stream().filter(name -> !models.contains(name)).forEach(models::add);
        return List.copyOf(models);
    }

    @Override
    public String modelFor(final String text) {
        return configured.modelFor(text);
    }

    @Override
    public List<float[]> embedAll(final List<String> texts) {
        return configured.embedAll(texts);
    }

    @Override
    public List<float[]> embedGroup(final List<String> texts) {
        return configured.embedGroup(texts);
    }

    /**
     * @param query a search query
     * @param model one of {@link #models()}
     * @return the query's vector by that model (with the model's query instruction)
     * @throws IllegalArgumentException for a model that is neither configured nor built in
     */
    @Override
    public float[] embedQuery(final String query, final String model) {
        if (configured.models().contains(model)) {
            return configured.embedQuery(query, model);
        }
        return OnnxEmbedder.shared(model).embedQuery(query, model);
    }

    @Override
    public void close() {
        configured.close();
    }
}
