package dev.engram.embedder;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import dev.engram.port.Embedder;

/**
 * An embedder that answers a text whose vector it already holds, by model and text, and embeds only the others with
 * the embedder it wraps: what lets {@code bin/engram rebuild} re-run the consolidator without embedding its
 * observations again (their vectors are on {@code memory-updated}, written by the run being rebuilt).
 *
 * <p>Exact, not approximate: {@link #embedAll} of the wrapped embedder gives every text the vector of that text alone
 * (one inference per text, {@link OnnxEmbedder}), so a vector recorded for (model, text) is the vector the wrapped
 * embedder would compute again, and a rebuild finds the same memories. {@link #embedGroup}, whose vectors depend on
 * the group, is passed through untouched. Thread-safe when the map is not changed after construction.
 */
public final class KnownVectors implements Embedder {

    private final Embedder embedder;
    private final Map<String, float[]> known;
    private final LongAdder reused;
    private final LongAdder embedded;

    /**
     * @param embedder the embedder of the texts not known
     * @param known {@link #key(String, String)} → vector
     */
    public KnownVectors(final Embedder embedder, final Map<String, float[]> known) {
        this(embedder, known, new LongAdder(), new LongAdder());
    }

    private KnownVectors(final Embedder embedder, final Map<String, float[]> known, final LongAdder reused,
                         final LongAdder embedded) {
        this.embedder = embedder;
        this.known = known;
        this.reused = reused;
        this.embedded = embedded;
    }

    /**
     * @param model an embedding model's name
     * @param text a passage
     * @return the key of the text's vector of that model
     */
    public static String key(final String model, final String text) {
        return model + '\0' + text;
    }

    /** @return texts answered from the known vectors so far */
    public long reused() {
        return reused.sum();
    }

    /** @return texts given to the wrapped embedder so far */
    public long embedded() {
        return embedded.sum();
    }

    @Override
    public List<float[]> embedAll(final List<String> texts) {
        final Embedder now = embedder.current(); // one model for the lookups and the misses
        final List<float[]> out = new ArrayList<>(texts.size());
        final List<String> missing = new ArrayList<>();
        final List<Integer> at = new ArrayList<>();
        for (final String text : texts) {
            final float[] vector = text == null ? null : known.get(key(now.modelFor(text), text));
            if (vector == null) {
                at.add(out.size());
                missing.add(text);
            }
            out.add(vector == null ? null : vector.clone());
        }
        reused.add(texts.size() - missing.size());
        if (!missing.isEmpty()) {
            embedded.add(missing.size());
            final List<float[]> vectors = now.embedAll(missing);
            for (int i = 0; i < missing.size(); i++) {
                out.set(at.get(i), vectors.get(i));
            }
        }
        return out;
    }

    @Override
    public List<float[]> embedGroup(final List<String> texts) {
        return embedder.embedGroup(texts);
    }

    @Override
    public Embedder current() {
        final Embedder now = embedder.current();
        return now == embedder ? this : new KnownVectors(now, known, reused, embedded);
    }

    @Override
    public String modelName() {
        return embedder.modelName();
    }

    @Override
    public int dimensions() {
        return embedder.dimensions();
    }

    @Override
    public List<String> models() {
        return embedder.models();
    }

    @Override
    public String modelFor(final String text) {
        return embedder.modelFor(text);
    }

    @Override
    public float[] embedQuery(final String query, final String model) {
        return embedder.embedQuery(query, model);
    }

    /** Closes the wrapped embedder. */
    @Override
    public void close() {
        embedder.close();
    }
}
