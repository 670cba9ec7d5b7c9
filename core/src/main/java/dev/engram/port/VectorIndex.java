package dev.engram.port;

import java.util.List;
import java.util.Objects;

import dev.engram.avro.Memory;
import dev.engram.core.UserKey;

/**
 * Nearest-neighbour search over one user's memories. Every search is scoped to one (tenant, user)
 * by construction of {@link Query}: there is no way to search across users. The scope is applied
 * inside the search, never as a post-filter after top-k.
 *
 * <p>The embedded default searches exactly over the memories in the local state store (so upsert
 * and delete are no-ops there: the store is the index); Qdrant is the production implementation.
 */
public interface VectorIndex {

    /**
     * A scoped query.
     *
     * @param user whose memories (required)
     * @param vector query vector
     * @param limit max hits, ≥ 1
     * @param activeOnly only ACTIVE memories when true
     * @param model only memories embedded by this model ({@code Memory.embeddingModel}), the model of
     *     {@code vector}: vectors of two models are never compared; null = every memory (tests, tools
     *     that hold one model only)
     * @param minCosine a hit with a cosine below it may be left out (the caller reads none: the consolidator's
     *     decisions stop at the first hit below its thresholds), so the hits are those at or above it, the same
     *     prefix of the full answer, or the full answer; {@link Double#NEGATIVE_INFINITY} = every hit
     */
    record Query(UserKey user, float[] vector, int limit, boolean activeOnly, String model, double minCosine) {
        /** @throws NullPointerException without user or vector; IllegalArgumentException if limit < 1 */
        public Query {
            Objects.requireNonNull(user, "user is required: searches are always scoped to one user");
            Objects.requireNonNull(vector, "vector");
            if (limit < 1) {
                throw new IllegalArgumentException("limit must be >= 1");
            }
        }

        /** A query of every hit ({@link #minCosine()} unbounded). */
        public Query(final UserKey user, final float[] vector, final int limit, final boolean activeOnly,
                     final String model) {
            this(user, vector, limit, activeOnly, model, Double.NEGATIVE_INFINITY);
        }

        /** A query over the memories of every model (see {@link #model()}). */
        public Query(final UserKey user, final float[] vector, final int limit, final boolean activeOnly) {
            this(user, vector, limit, activeOnly, null);
        }

        /**
         * @param memoryModel a memory's {@code embeddingModel}
         * @return whether that memory's vector may be compared with this query's
         */
        public boolean accepts(final String memoryModel) {
            return model == null || model.equals(memoryModel);
        }
    }

    /**
     * One hit.
     *
     * @param memory the memory
     * @param similarity cosine similarity, -1..1
     */
    record Hit(Memory memory, double similarity) {
    }

    /**
     * @param query a scoped query
     * @return hits by descending similarity, at most {@code limit}
     */
    List<Hit> search(Query query);

    /** Idempotent insert or replace of one memory keyed by its id. */
    void upsert(Memory memory);

    /** Removes one memory of the user; absent is fine. */
    void delete(UserKey user, String memoryId);

    /** Removes every memory of the user (erasure). */
    void deleteUser(UserKey user);
}
