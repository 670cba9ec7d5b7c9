package dev.engram.scoring;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.engram.port.Embedder;

/**
 * A bounded LRU of query vectors (normalised), keyed by embedding model and query text, so a repeated
 * query is embedded once per model ({@code retrieval.query.cache.size} entries; 0 turns it off).
 *
 * <p>Thread-safe: lookups and inserts hold the map's lock; the embedding itself runs outside it.
 */
public final class QueryVectors {
    private final Embedder embedder;
    private final int capacity;
    private final Map<String, float[]> cache;
    private long hits;
    private long misses;

    QueryVectors(final Embedder embedder, final int capacity) {
        this.embedder = embedder;
        this.capacity = capacity;
        this.cache = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(final Map.Entry<String, float[]> eldest) {
                return size() > QueryVectors.this.capacity;
            }
        };
    }

    /** @return the query's normalised vector by that model, null when the embedder does not hold it */
    float[] get(final String query, final String model) {
        if (model == null || !embedder.models().contains(model)) {
            return null;
        }
        final String key = model + '\n' + query;
        if (capacity > 0) {
            synchronized (cache) {
                final float[] cached = cache.get(key);
                if (cached != null) {
                    hits++;
                    return cached;
                }
                misses++;
            }
        }
        final float[] vector = Vectors.normalized(embedder.embedQuery(query, model));
        if (capacity > 0) {
            synchronized (cache) {
                cache.put(key, vector);
            }
        }
        return vector;
    }

    /** @return cache hits so far */
    public long hits() {
        synchronized (cache) {
            return hits;
        }
    }

    /** @return cache misses so far (queries embedded) */
    public long misses() {
        synchronized (cache) {
            return misses;
        }
    }
}
