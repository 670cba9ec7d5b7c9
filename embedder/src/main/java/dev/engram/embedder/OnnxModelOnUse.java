package dev.engram.embedder;

import java.util.List;
import java.util.Objects;

import dev.engram.port.Embedder;

/**
 * A built-in model that is loaded when it first embeds: its name and vector size are known without ONNX Runtime, its
 * inference is the JVM-wide {@link OnnxEmbedder#shared(OnnxModel)} instance, created on the first call that needs it.
 * For an app that routes texts by model ({@link Embedder#modelFor}) but seldom or never embeds: the consolidator, whose
 * observation vectors are their statements' centroids, loaded both built-in models (about a second each, and their
 * sessions' memory) at every start, {@code bin/engram rebuild} included, to use neither. Thread-safe.
 */
final class OnnxModelOnUse implements Embedder {

    private final OnnxModel spec;

    /** @param spec the model */
    OnnxModelOnUse(final OnnxModel spec) {
        this.spec = Objects.requireNonNull(spec, "spec");
    }

    /** @return whether the model is loaded in this JVM (by this or any other user of the shared instance) */
    boolean loaded() {
        return OnnxEmbedder.isShared(spec);
    }

    @Override
    public String modelName() {
        return spec.name();
    }

    @Override
    public int dimensions() {
        return spec.dimensions();
    }

    @Override
    public List<float[]> embedAll(final List<String> texts) {
        return OnnxEmbedder.shared(spec).embedAll(texts);
    }

    @Override
    public List<float[]> embedGroup(final List<String> texts) {
        return OnnxEmbedder.shared(spec).embedGroup(texts);
    }

    @Override
    public float[] embedQuery(final String query, final String model) {
        return OnnxEmbedder.shared(spec).embedQuery(query, model);
    }
}
