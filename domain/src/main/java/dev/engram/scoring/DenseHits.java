package dev.engram.scoring;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.core.UserKey;
import dev.engram.port.Embedder;
import dev.engram.port.VectorIndex;

/** The dense candidates of {@link HybridScorer} when a vector index (Qdrant) holds the vectors. */
final class DenseHits {

    private DenseHits() {
    }

    /**
     * The dense index's hits, one index query per embedding model with the query embedded by that model.
     *
     * @param index the vector index
     * @param user the user scope of the index queries
     * @param models the embedding models to query
     * @param queryByModel model → the query's normalised vector (null: that model is skipped)
     * @param fetch hits per model
     * @return memory id → cosine (the first model's when two models hold the same memory)
     * @throws dev.engram.port.VectorIndexUnavailableException when the index cannot answer now
     */
    static Map<String, Double> of(final VectorIndex index, final UserKey user, final List<String> models,
                                  final Function<String, float[]> queryByModel, final int fetch) {
        final Map<String, Double> out = new HashMap<>();
        for (final String model : models) {
            final float[] vector = queryByModel.apply(model);
            if (vector == null) {
                continue;
            }
            for (final VectorIndex.Hit hit : index.search(new VectorIndex.Query(user, vector, fetch, true, model))) {
                out.putIfAbsent(hit.memory().getMemoryId(), hit.similarity());
            }
        }
        return out;
    }

    /**
     * @param embedder the embedder (its models)
     * @param userMemories one user's memories
     * @return the embedding models of the user's ACTIVE memories the embedder holds, the default first
     */
    static List<String> modelsOf(final Embedder embedder, final Collection<Memory> userMemories) {
        final Set<String> models = new LinkedHashSet<>();
        models.add(embedder.modelName());
        for (final Memory m : userMemories) {
            if (m.getStatus() == MemoryStatus.ACTIVE && embedder.models().contains(m.getEmbeddingModel())) {
                models.add(m.getEmbeddingModel());
            }
        }
        return List.copyOf(models);
    }
}
