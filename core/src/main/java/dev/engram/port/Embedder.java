package dev.engram.port;

import java.util.List;

/**
 * Turns text into dense vectors. The embedded default is bge-small-en-v1.5 in-process (384
 * dimensions, L2-normalized, so cosine equals the dot product); see {@code embedding.model}.
 *
 * <p>Every vector belongs to the model that made it ({@link #modelFor(String)}, recorded on every
 * candidate and memory as {@code embeddingModel}); vectors of two models are never compared. An
 * embedder may hold several models and choose one per text (by script, {@code embedding.model.han});
 * a query is then embedded once per model of the vectors it is compared with
 * ({@link #embedQuery(String, String)}).
 */
public interface Embedder extends AutoCloseable {

    /** @return the default model's name, recorded on candidates and memories, e.g. {@code bge-small-en-v15-q} */
    String modelName();

    /** @return the vector size (the same for every model this embedder holds) */
    int dimensions();

    /** @return every model this embedder can embed with, the default ({@link #modelName()}) first */
    default List<String> models() {
        return List.of(modelName());
    }

    /**
     * @param text a text to be stored (a memory's content)
     * @return the model {@link #embedAll(List)} embeds it with
     */
    default String modelFor(final String text) {
        return modelName();
    }

    /**
     * @param text any text, embedded as a passage (a memory's content)
     * @return its vector, length {@link #dimensions()}
     */
    default float[] embed(final String text) {
        return embedAll(List.of(text)).get(0);
    }

    /**
     * Embeds a batch of passages, each with its {@link #modelFor(String) model}; implementations
     * spread it over the available cores.
     *
     * @param texts texts, in order
     * @return one vector per text, same order
     */
    List<float[]> embedAll(List<String> texts);

    /**
     * Embeds texts that are always embedded together, e.g. the distinct contents of one conversation's
     * candidates: an implementation may run several of them through one inference, so a text's vector may
     * differ from {@link #embedAll}'s within the implementation's stated tolerance, but it must be a function of
     * the set of texts given (not of their order, the machine, or other calls in flight), so that embedding the
     * same set again (a replay, {@code bin/engram rebuild --re-extract}) gives the same vectors. The default is
     * {@link #embedAll}.
     *
     * @param texts texts, in order
     * @return one vector per text, each of its {@link #modelFor(String) model}, same order
     */
    default List<float[]> embedGroup(final List<String> texts) {
        return embedAll(texts);
    }

    /**
     * Embeds a search query for comparison with passages of the default model. Models trained with
     * a query instruction (bge) prepend it here, never to passages.
     *
     * @param query the query text
     * @return its vector, length {@link #dimensions()}
     */
    default float[] embedQuery(final String query) {
        return embedQuery(query, modelName());
    }

    /**
     * Embeds a search query with a given model, to be compared only with passages of that model.
     *
     * @param query the query text
     * @param model one of {@link #models()}
     * @return its vector, length {@link #dimensions()}
     * @throws IllegalArgumentException if this embedder does not hold {@code model}
     */
    default float[] embedQuery(final String query, final String model) {
        if (!modelName().equals(model)) {
            throw new IllegalArgumentException("Embedder " + modelName() + " cannot embed with model " + model);
        }
        return embed(query);
    }

    /**
     * The embedder to use for one batch: this one, or, for an embedder whose model can switch while it runs
     * ({@code ActiveModelEmbedder}), the one it holds now, so that a batch's vectors and the model recorded with
     * them ({@link #modelFor}) come from the same model even when a switch happens in between.
     *
     * @return an embedder whose model does not change
     */
    default Embedder current() {
        return this;
    }

    @Override
    default void close() {
    }
}
