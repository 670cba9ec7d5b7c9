package dev.engram.qdrant;

import static io.qdrant.client.ConditionFactory.matchKeyword;
import static io.qdrant.client.QueryFactory.nearest;
import static io.qdrant.client.VectorsFactory.vectors;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Optional;
import java.util.List;
import java.util.Objects;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndex;
import dev.engram.port.VectorIndexUnavailableException;
import io.micrometer.core.instrument.MeterRegistry;
import io.qdrant.client.QdrantClient;
import io.qdrant.client.QdrantGrpcClient;
import io.qdrant.client.WithPayloadSelectorFactory;
import io.qdrant.client.WithVectorsSelectorFactory;
import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Common.HasIdCondition;
import io.qdrant.client.grpc.Points.DeletePoints;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.PointsSelector;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.ScoredPoint;
import io.qdrant.client.grpc.Points.UpsertPoints;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production {@link VectorIndex}: Qdrant through {@code io.qdrant:client} (gRPC), one collection per
 * embedding model. Point id = memory id (UUID), vector = the embedding, payload = {@link QdrantPayload}.
 *
 * <ul>
 *   <li><b>Collections.</b> The memories embedded by model M live in collection {@code <base>-M}
 *       ({@link #collectionFor}: {@code base} = {@code qdrant.collection}, M with every character outside
 *       {@code [A-Za-z0-9_.-]} as {@code -}), whose vector size is M's. {@link #ensureCollection()} creates the
 *       deployment's model's collection when absent (size = the embedder's, distance Cosine) with keyword
 *       indexes on {@code tenant_id}, {@code user_id}, {@code status}, {@code type} and datetime indexes on the
 *       lifecycle times; another model's collection is created the same way by the first upsert of a memory of
 *       that model (size = its vector's). An existing collection with another vector size or distance (or named
 *       vectors) is refused with an {@link IllegalStateException} naming the model and both shapes, never
 *       reused. Every operation runs the check first until it has succeeded once, so an app started while
 *       Qdrant is down recovers by itself.</li>
 *   <li><b>The active alias.</b> Qdrant alias {@code base} names the active model's collection: created at
 *       start when absent (to the deployment's model), switched by {@link #switchAlias} with one
 *       {@code UpdateAliases} request (delete + create, which Qdrant applies atomically: no concurrent request
 *       sees neither or both). A search without a model ({@link VectorIndex.Query#model()} null) reads the
 *       alias; every other search names its model's collection, so a query vector is only ever compared with
 *       vectors of its own model whatever the alias says at that instant.</li>
 *   <li><b>Scope.</b> Every search is built by {@link #scopedQuery}: a {@code must} filter on
 *       {@code tenant_id} AND {@code user_id} (and {@code status=ACTIVE} when asked, and
 *       {@code embedding_model}) inside the {@code Query} request, so Qdrant applies it during the
 *       nearest-neighbour search, never after top-k. {@link VectorIndex.Query} cannot be built without a user.</li>
 *   <li><b>Writes.</b> Upserts and deletes set {@code wait=true}: when the call returns the change
 *       is searchable (read-your-own-writes for the consolidator's next candidate); an update whose
 *       status is not {@code Completed} is an error. Re-upserting the same memory replaces the point:
 *       idempotent. A memory upserted under another model than before (a re-embedding) is deleted from the
 *       other model collections this instance knows, so it is found in one collection only. Deletes are scoped
 *       to the user (by id: {@code has_id} AND tenant AND user; by user: tenant AND user) and go to every model
 *       collection of {@code base}, listed again for each delete, so a collection another instance created is
 *       not missed.</li>
 *   <li><b>Wrong vectors.</b> An upsert or a search whose vector size is not its model collection's is an
 *       {@link IllegalArgumentException} naming the model, the collection and both sizes, before any call.</li>
 *   <li><b>Score.</b> Qdrant's Cosine score is the cosine similarity (vectors normalized on
 *       upsert), -1..1, the scale of {@code dedup.*} thresholds. Hits are ordered by descending
 *       score, ties by memory id, as {@code StoreVectorIndex}.</li>
 *   <li><b>Failures.</b> Every call has an explicit deadline ({@code qdrant.timeout.ms}). gRPC
 *       UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, INTERNAL and CANCELLED raise
 *       {@link VectorIndexUnavailableException} (retry later); other codes (NOT_FOUND,
 *       INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, ...) raise {@link QdrantCallException}.
 *       Every call is timed in {@link QdrantMetrics} with its gRPC status ({@link QdrantCalls}).</li>
 * </ul>
 * Thread-safe (the gRPC channel is); one instance serves every task of an app.
 */
public final class QdrantVectorIndex implements VectorIndex, AutoCloseable {

    /** The client library version this adapter is built against (server 1.17–1.19 pass its compatibility check). */
    public static final String CLIENT_VERSION = "1.18.3";

    private static final Logger LOG = LoggerFactory.getLogger(QdrantVectorIndex.class);
    private static final Comparator<Hit> ORDER = Comparator.comparingDouble(Hit::similarity).reversed()
        .thenComparing(hit -> hit.memory().getMemoryId());

    private final QdrantClient client;
    private final String base;
    private final String model;
    private final Duration timeout;
    private final int dimensions;
    private final QdrantCalls calls;
    /** Model collections checked (or created) by this instance → their vector size. */
    private final QdrantCollections collections;
    private volatile boolean collectionReady;

    /**
     * @param client a connected client (owned: closed by {@link #close()})
     * @param base {@code qdrant.collection}: the alias of the active model's collection and the prefix of every
     *     model's collection
     * @param model the deployment's embedding model ({@code embedding.model})
     * @param timeout the deadline of every call
     * @param dimensions the vector size of {@code model} (the embedder's)
     * @param registry where {@link QdrantMetrics} go
     */
    public QdrantVectorIndex(final QdrantClient client, final String base, final String model, final Duration timeout,
                             final int dimensions, final MeterRegistry registry) {
        this.client = Objects.requireNonNull(client, "client");
        this.base = Objects.requireNonNull(base, "base");
        this.model = Objects.requireNonNull(model, "model");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (dimensions < 1) {
            throw new IllegalArgumentException("dimensions must be >= 1");
        }
        this.dimensions = dimensions;
        this.calls = new QdrantCalls(client, base, timeout, new QdrantMetrics(registry));
        this.collections = new QdrantCollections(client, base, model, timeout, dimensions, calls);
    }

    /**
     * Opens a client: TLS and API key exactly as configured (the library's {@code newBuilder(host)}
     * would turn TLS on by default), the configured deadline as the channel default, and no
     * connect-time version check (it would block without a deadline; {@link #ensureCollection()}
     * checks the version with one). Does not contact the server.
     *
     * @param settings host, port, TLS, API key, collection, timeout
     * @param model the deployment's embedding model
     * @param dimensions its vector size (the embedder's)
     * @param registry where metrics go
     * @return the index
     */
    public static QdrantVectorIndex connect(final QdrantSettings settings, final String model, final int dimensions,
                                            final MeterRegistry registry) {
        final QdrantGrpcClient.Builder builder =
            QdrantGrpcClient.newBuilder(settings.host(), settings.port(), settings.tls(), false)
                .withTimeout(settings.timeout());
        if (settings.apiKey() != null) {
            builder.withApiKey(settings.apiKey());
        }
        LOG.info("Qdrant vector index: {}, model {}", settings, model);
        return new QdrantVectorIndex(new QdrantClient(builder.build()), settings.collection(), model,
            settings.timeout(), dimensions, registry);
    }

    /** @return the base name: the active alias and the prefix of the model collections */
    public String collection() {
        return base;
    }

    /**
     * @param base {@code qdrant.collection}
     * @param model an embedding model
     * @return the collection of that model's vectors, {@code <base>-<model>} with every character outside
     *     {@code [A-Za-z0-9_.-]} as {@code -}
     */
    public static String collectionFor(final String base, final String model) {
        return QdrantCollections.collectionFor(base, model);
    }

    /**
     * @param memoryModel a model name
     * @return its collection under this index's base
     */
    public String collectionFor(final String memoryModel) {
        return collections.collectionFor(memoryModel);
    }

    /**
     * Checks the server, the deployment's model collection (created with its payload indexes when absent)
     * and the active alias (created to that collection when absent). Idempotent; safe to race with another
     * instance doing the same.
     *
     * @throws VectorIndexUnavailableException if Qdrant cannot be reached now
     * @throws IllegalStateException if the collection exists with another vector size or distance
     * @throws QdrantCallException if Qdrant refuses a call
     */
    public void ensureCollection() {
        collections.ensureCollection();
        collectionReady = true;
    }

    /**
     * @return the collection the active alias names, if the alias exists
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    public Optional<String> activeCollection() {
        return collections.activeCollection();
    }

    /**
     * Points the active alias at {@code newModel}'s collection in one {@code UpdateAliases} request (delete the
     * alias, create it again to the new collection), which Qdrant applies atomically.
     *
     * @param newModel the model switched to; its collection must exist (the re-embedded memories were written)
     * @throws IllegalStateException if that collection does not exist
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    public void switchAlias(final String newModel) {
        collections.switchAlias(newModel);
    }

    /**
     * Deletes a model's collection (after a re-embedding moved every memory away from it).
     *
     * @param oldModel the model
     * @return whether the collection existed
     * @throws IllegalStateException if the active alias names it
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    public boolean dropModel(final String oldModel) {
        return collections.dropModel(oldModel);
    }

    /**
     * The one place a search request is built: nearest to the query vector, with a {@code must}
     * filter on the query's tenant AND user (AND {@code status=ACTIVE} when {@code activeOnly}, AND
     * {@code embedding_model} = the query's model when it names one)
     * inside the request, limit = the query's limit, payload on, vectors off.
     *
     * @param collection the collection
     * @param query a user-scoped query (cannot exist without a user)
     * @return the request
     */
    static QueryPoints scopedQuery(final String collection, final Query query) {
        return QueryPoints.newBuilder().setCollectionName(collection)
            .setQuery(nearest(query.vector()))
            .setFilter(query.model() == null ? userFilter(query.user(), query.activeOnly())
                : userFilter(query.user(), query.activeOnly()).toBuilder()
                    .addMust(matchKeyword(QdrantPayload.EMBEDDING_MODEL, query.model())).build())
            .setLimit(query.limit())
            .setWithPayload(WithPayloadSelectorFactory.enable(true))
            .setWithVectors(WithVectorsSelectorFactory.enable(false))
            .build();
    }

    /** tenant AND user (AND status = ACTIVE). */
    private static Filter userFilter(final UserKey user, final boolean activeOnly) {
        final Filter.Builder filter = Filter.newBuilder()
            .addMust(matchKeyword(QdrantPayload.TENANT_ID, user.tenantId()))
            .addMust(matchKeyword(QdrantPayload.USER_ID, user.userId()));
        if (activeOnly) {
            filter.addMust(matchKeyword(QdrantPayload.STATUS, MemoryStatus.ACTIVE.name()));
        }
        return filter.build();
    }

    /**
     * @param query a user-scoped query: with a model, searched in that model's collection (no hits when it has
     *     none); without one, in the active alias's
     * @return at most {@code limit} hits by descending cosine (-1..1), ties by memory id; each memory is
     *     rebuilt from the payload ({@link QdrantPayload#toMemory}: no embedding, sources or supersedes)
     * @throws IllegalArgumentException if the query vector's size is not its model collection's
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    @Override
    public List<Hit> search(final Query query) {
        ensureReady();
        final String target;
        if (query.model() == null) {
            target = base;
        } else {
            target = collectionFor(query.model());
            Integer size = collections.checkedSize(target);
            if (size == null) {
                if (!calls.call("collection_exists", () -> client.collectionExistsAsync(target, timeout))) {
                    return List.of(); // no vector of that model was ever written
                }
                collections.ensureModelCollection(query.model(), query.vector().length);
                size = collections.checkedSize(target);
            }
            if (size != query.vector().length) {
                throw QdrantCollections.wrongSize(query.model(), target, size, query.vector().length);
            }
        }
        final QueryPoints request = scopedQuery(target, query);
        final List<ScoredPoint> points = calls.call("search", () -> client.queryAsync(request, timeout));
        final List<Hit> hits = new ArrayList<>(points.size());
        for (final ScoredPoint point : points) {
            hits.add(new Hit(QdrantPayload.toMemory(point.getPayloadMap()), point.getScore()));
        }
        hits.sort(ORDER);
        return List.copyOf(hits);
    }

    /**
     * Inserts or replaces the memory's point in its model's collection (created when absent, with the vector's
     * size) and waits until it is searchable; then deletes it from the other model collections this instance
     * has checked (a re-embedded memory moves).
     *
     * @param memory a memory with an embedding; its {@code embeddingModel} names the collection (blank: the
     *     deployment's model)
     * @throws IllegalArgumentException if the embedding's size is not its model collection's, or the id is not
     *     a UUID
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    @Override
    public void upsert(final Memory memory) {
        final String memoryModel = memory.getEmbeddingModel() == null || memory.getEmbeddingModel().isBlank()
            ? model : memory.getEmbeddingModel();
        if (memoryModel.equals(model) && memory.getEmbedding().size() != dimensions) {
            throw QdrantCollections.wrongSize(memoryModel, collectionFor(memoryModel), dimensions, memory.getEmbedding().size());
        }
        final String target = collectionFor(memoryModel);
        final UpsertPoints request = UpsertPoints.newBuilder().setCollectionName(target).setWait(true)
            .addPoints(PointStruct.newBuilder().setId(QdrantPayload.pointId(memory.getMemoryId()))
                .setVectors(vectors(memory.getEmbedding())).putAllPayload(QdrantPayload.of(memory)))
            .build();
        ensureReady();
        collections.ensureModelCollection(memoryModel, memory.getEmbedding().size());
        calls.update("upsert", () -> client.upsertAsync(request, timeout));
        final UserKey user = new UserKey(memory.getTenantId(), memory.getUserId());
        for (final String other : collections.checkedCollections()) {
            if (!other.equals(target)) {
                deleteIn(other, user, memory.getMemoryId());
            }
        }
    }

    /**
     * Deletes the user's point with that id (absent is fine) from every model collection and waits until it is
     * gone.
     *
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    @Override
    public void delete(final UserKey user, final String memoryId) {
        ensureReady();
        for (final String collection : collections.modelCollections()) {
            deleteIn(collection, user, memoryId);
        }
    }

    private void deleteIn(final String collection, final UserKey user, final String memoryId) {
        final Filter filter = userFilter(user, false).toBuilder()
            .addMust(Condition.newBuilder().setHasId(HasIdCondition.newBuilder()
                .addHasId(QdrantPayload.pointId(memoryId)))).build();
        calls.update("delete", () -> client.deleteAsync(DeletePoints.newBuilder()
            .setCollectionName(collection).setWait(true)
            .setPoints(PointsSelector.newBuilder().setFilter(filter)).build(), timeout));
    }

    /**
     * Deletes every point of the user (filter tenant AND user) from every model collection and waits until they
     * are gone.
     *
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    @Override
    public void deleteUser(final UserKey user) {
        ensureReady();
        for (final String collection : collections.modelCollections()) {
            calls.update("delete_user", () -> client.deleteAsync(DeletePoints.newBuilder()
                .setCollectionName(collection).setWait(true)
                .setPoints(PointsSelector.newBuilder().setFilter(userFilter(user, false))).build(), timeout));
        }
    }

    /**
     * @param user a user
     * @return the exact number of the user's points, any status, over every model collection (for erasure
     *     checks and operators)
     */
    public long count(final UserKey user) {
        ensureReady();
        long n = 0;
        for (final String collection : collections.modelCollections()) {
            n += calls.call("count", () -> client.countAsync(collection, userFilter(user, false), true, timeout));
        }
        return n;
    }

    /** Closes the channel. */
    @Override
    public void close() {
        client.close();
    }

    private void ensureReady() {
        if (!collectionReady) {
            ensureCollection();
        }
    }
}
