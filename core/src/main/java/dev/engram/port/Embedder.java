package dev.engram.port;

import java.util.List;

/**
 * Turns text into dense vectors. The embedded default is all-MiniLM-L6-v2 in-process (384
 * dimensions, L2-normalized, so cosine equals the dot product).
 */
public interface Embedder extends AutoCloseable {

    /** @return the model name recorded on every candidate and memory, e.g. {@code all-minilm-l6-v2-q} */
    String modelName();

    /** @return the vector size */
    int dimensions();

    /**
     * @param text any text
     * @return its vector, length {@link #dimensions()}
     */
    default float[] embed(final String text) {
        return embedAll(List.of(text)).get(0);
    }

    /**
     * Embeds a batch; implementations spread it over the available cores.
     *
     * @param texts texts, in order
     * @return one vector per text, same order
     */
    List<float[]> embedAll(List<String> texts);

    @Override
    default void close() {
    }
}
