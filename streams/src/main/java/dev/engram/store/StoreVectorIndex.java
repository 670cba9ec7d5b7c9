package dev.engram.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndex;
import dev.engram.scoring.Vectors;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The embedded {@link VectorIndex}: exact cosine search over one user's memories held in a Kafka
 * Streams key-value store keyed {@code <user key>\0<memory id>} (see {@link UserKey#storeKey}).
 *
 * <p>The user scope is the store's prefix scan ({@link UserKey#storePrefix()}), so only that user's
 * memories are ever read: scoping is part of the query, never a filter applied after top-k. The
 * {@code activeOnly} filter is applied during the scan as well. Results are ordered by descending
 * cosine, ties by ascending memory id, so the same store gives the same hits. Memories of another
 * model than the query's are skipped; a memory of the query's own model whose embedding has another size
 * than the query vector is an {@link IllegalArgumentException} naming the model and both sizes (never a
 * silent skip: one of the two vectors was not made by that model).
 *
 * <p>{@link #upsert}, {@link #delete} and {@link #deleteUser} do nothing: the store is the index, so
 * whatever the owning processor writes to the store is searchable by its next {@link #search}
 * (read-your-own-writes). Cost: O(memories of the user × dimensions) per search, which suits the
 * per-user sizes of a chatbot memory; Qdrant is the choice for larger ones.
 *
 * <p>Not thread-safe beyond the store's own guarantees: use it from the task that owns the store.
 */
public final class StoreVectorIndex implements VectorIndex {

    private static final StringSerializer PREFIX_SERIALIZER = new StringSerializer();
    private static final Comparator<Hit> ORDER = Comparator.comparingDouble(Hit::similarity).reversed()
        .thenComparing(hit -> hit.memory().getMemoryId());

    private final ReadOnlyKeyValueStore<String, Memory> store;

    /** @param store a store keyed {@code <user key>\0<memory id>} */
    public StoreVectorIndex(final ReadOnlyKeyValueStore<String, Memory> store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * @param query a user-scoped query
     * @return at most {@code limit} hits by descending cosine (-1..1), ties by memory id
     */
    @Override
    public List<Hit> search(final Query query) {
        final List<Memory> memories = new ArrayList<>();
        try (KeyValueIterator<String, Memory> it = store.prefixScan(query.user().storePrefix(), PREFIX_SERIALIZER)) {
            while (it.hasNext()) {
                memories.add(it.next().value);
            }
        }
        return search(memories, query);
    }

    /**
     * The same search over memories already read from the store (the consolidator reads the user's
     * memories once per candidate for its own rules; searching them again from the store would decode
     * every memory, with its embedding, a second time).
     *
     * @param userMemories every memory of the query's user, as {@link #search(Query)} would scan them
     * @param query a user-scoped query
     * @return at most {@code limit} hits by descending cosine, ties by memory id
     */
    public static List<Hit> search(final List<Memory> userMemories, final Query query) {
        return search(userMemories, query, null);
    }

    /**
     * How far below {@link Query#minCosine()} the filter of {@link #search(List, Query, UnitVectors)} still lets a
     * memory through: the float dot product of two unit vectors of n ≤ 1,024 dimensions is within {@code n · 2⁻²⁴}
     * (≤ 6.1e-5) of their exact cosine (the argument and the test of the merge pass's filter, {@code VectorsTest}).
     */
    static final double FILTER_MARGIN = 1e-3;

    /**
     * {@link #search(List, Query)}, leaving out the hits below {@link Query#minCosine()}: with {@code units}, a
     * memory whose unit vector's float dot product with the query's lies more than {@link #FILTER_MARGIN} below it is
     * rejected before its exact cosine (the consolidator searches every memory of the user for every candidate, and
     * its decisions read only the hits at or above its thresholds); every other memory is scored exactly as before
     * and kept when its exact cosine is at or above it. So the hits are the full answer's hits at or above it, in its
     * order (a prefix of it), whether a filter ran or not.
     *
     * @param userMemories every memory of the query's user
     * @param query a user-scoped query
     * @param units the task's unit vectors; null = no filter (the exact bound alone)
     * @return at most {@code limit} hits at or above the query's least cosine, by descending cosine, ties by memory id
     */
    static List<Hit> search(final List<Memory> userMemories, final Query query, final UnitVectors units) {
        final List<Hit> hits = new ArrayList<>(userMemories.size());
        final double queryNorm = Math.sqrt(Vectors.dot(query.vector(), query.vector()));
        final double least = query.minCosine();
        final float[] queryUnit = units == null || least == Double.NEGATIVE_INFINITY ? null : Vectors.normalized(query.vector());
        for (final Memory memory : userMemories) {
            if (memory != null && query.model() != null && query.model().equals(memory.getEmbeddingModel())
                && !memory.getEmbedding().isEmpty() && memory.getEmbedding().size() != query.vector().length) {
                throw new IllegalArgumentException("a query vector of model " + query.model() + " has "
                    + query.vector().length + " dimensions, but memory " + memory.getMemoryId() + " of "
                    + query.model() + " has " + memory.getEmbedding().size() + ": one of them was not made by "
                    + query.model());
            }
            if (memory == null || query.activeOnly() && memory.getStatus() != MemoryStatus.ACTIVE
                || memory.getEmbedding().size() != query.vector().length
                || !query.accepts(memory.getEmbeddingModel())
                || !memory.getTenantId().equals(query.user().tenantId()) || !memory.getUserId().equals(query.user().userId())) {
                continue;
            }
            if (queryUnit != null && Vectors.dot(queryUnit, units.of(memory), 0) < least - FILTER_MARGIN) {
                continue;
            }
            final double cosine = Vectors.cosine(query.vector(), queryNorm, memory.getEmbedding());
            if (cosine >= least) {
                hits.add(new Hit(memory, cosine));
            }
        }
        hits.sort(ORDER);
        return hits.size() > query.limit() ? List.copyOf(hits.subList(0, query.limit())) : List.copyOf(hits);
    }

    /**
     * @param userMemories one user's memories, read once
     * @return a read-only index over them (upsert and delete do nothing, as on the store)
     */
    public static VectorIndex over(final List<Memory> userMemories) {
        return over(userMemories, null);
    }

    /**
     * @param userMemories one user's memories, read once
     * @param units the task's unit vectors, for the filter of {@link #search(List, Query, UnitVectors)}; null = none
     * @return a read-only index over them (upsert and delete do nothing, as on the store)
     */
    public static VectorIndex over(final List<Memory> userMemories, final UnitVectors units) {
        return new VectorIndex() {
            @Override
            public List<Hit> search(final Query query) {
                return StoreVectorIndex.search(userMemories, query, units);
            }

            @Override
            public void upsert(final Memory memory) {
            }

            @Override
            public void delete(final UserKey user, final String memoryId) {
            }

            @Override
            public void deleteUser(final UserKey user) {
            }
        };
    }

    /** No-op: the store is the index; the memory is searchable as soon as the store holds it. */
    @Override
    public void upsert(final Memory memory) {
    }

    /** No-op: the store is the index. */
    @Override
    public void delete(final UserKey user, final String memoryId) {
    }

    /** No-op: the store is the index. */
    @Override
    public void deleteUser(final UserKey user) {
    }
}
