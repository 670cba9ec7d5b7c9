package dev.engram.scoring;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;

import dev.engram.port.Embedder;

/**
 * A bounded LRU of query vectors (normalised), keyed by embedding model and query text, so a repeated
 * query is embedded once per model ({@code retrieval.query.cache.size} entries; 0 turns it off).
 *
 * <p>At most {@code embedding.threads} queries (one per core by default) are embedded at once; the others wait their
 * turn, first come first served. Each request thread runs its query's ONNX inference itself (one intra-op thread), so
 * without the gate every request in flight (up to the HTTP server's pool) embedded at once and the two cores were
 * shared among all of them: each took as long as all of them, and the open-loop tail grew with the queue. In turn, a
 * query's embedding takes its own time and the waiting ones keep their arrival order.
 *
 * <p>Thread-safe: lookups and inserts hold the map's lock; the embedding itself runs outside it.
 */
public final class QueryVectors {
    private final Embedder embedder;
    private final int capacity;
    private final Map<String, float[]> cache;
    private final Semaphore embedding;
    private long hits;
    private long misses;

    QueryVectors(final Embedder embedder, final int capacity, final int concurrency) {
        this.embedder = embedder;
        this.capacity = capacity;
        this.embedding = new Semaphore(Math.max(1, concurrency), true);
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
        final float[] vector;
        embedding.acquireUninterruptibly();
        try {
            vector = Vectors.normalized(embedder.embedQuery(query, model));
        } finally {
            embedding.release();
        }
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
