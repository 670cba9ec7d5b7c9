package dev.engram.qdrant;

import static io.qdrant.client.ConditionFactory.matchKeyword;
import static io.qdrant.client.QueryFactory.nearest;
import static io.qdrant.client.VectorsFactory.vectors;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndex;
import dev.engram.port.VectorIndexUnavailableException;
import io.grpc.Status;
import io.micrometer.core.instrument.MeterRegistry;
import io.qdrant.client.QdrantClient;
import io.qdrant.client.QdrantGrpcClient;
import io.qdrant.client.VersionsCompatibilityChecker;
import io.qdrant.client.WithPayloadSelectorFactory;
import io.qdrant.client.WithVectorsSelectorFactory;
import io.qdrant.client.grpc.Collections.CollectionInfo;
import io.qdrant.client.grpc.Collections.CreateCollection;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.PayloadSchemaInfo;
import io.qdrant.client.grpc.Collections.PayloadSchemaType;
import io.qdrant.client.grpc.Collections.VectorParams;
import io.qdrant.client.grpc.Collections.VectorsConfig;
import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Common.HasIdCondition;
import io.qdrant.client.grpc.Points.CreateFieldIndexCollection;
import io.qdrant.client.grpc.Points.DeletePoints;
import io.qdrant.client.grpc.Points.FieldType;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.PointsSelector;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.ScoredPoint;
import io.qdrant.client.grpc.Points.UpsertPoints;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production {@link VectorIndex}: one Qdrant collection of memories through {@code io.qdrant:client}
 * (gRPC). Point id = memory id (UUID), vector = the embedding, payload = {@link QdrantPayload}.
 *
 * <ul>
 *   <li><b>Collection.</b> {@link #ensureCollection()} creates it when absent (vector size = the
 *       embedder's, distance Cosine) with keyword indexes on {@code tenant_id}, {@code user_id},
 *       {@code status}, {@code type} and datetime indexes on the lifecycle times; an existing
 *       collection with another vector size or distance (or named vectors) is refused with an
 *       {@link IllegalStateException} naming both, never reused. Every operation runs it first until
 *       it has succeeded once, so an app started while Qdrant is down recovers by itself.</li>
 *   <li><b>Scope.</b> Every search is built by {@link #scopedQuery}: a {@code must} filter on
 *       {@code tenant_id} AND {@code user_id} (and {@code status=ACTIVE} when asked) inside the
 *       {@code Query} request, so Qdrant applies it during the nearest-neighbour search, never after
 *       top-k. {@link VectorIndex.Query} cannot be built without a user.</li>
 *   <li><b>Writes.</b> Upserts and deletes set {@code wait=true}: when the call returns the change
 *       is searchable (read-your-own-writes for the consolidator's next candidate); an update whose
 *       status is not {@code Completed} is an error. Re-upserting the same memory replaces the point:
 *       idempotent. Deletes are scoped to the user (by id: {@code has_id} AND tenant AND user; by
 *       user: tenant AND user).</li>
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
    private final String collection;
    private final Duration timeout;
    private final int dimensions;
    private final QdrantCalls calls;
    private volatile boolean collectionReady;

    /**
     * @param client a connected client (owned: closed by {@link #close()})
     * @param collection the collection name
     * @param timeout the deadline of every call
     * @param dimensions the vector size (the embedder's)
     * @param registry where {@link QdrantMetrics} go
     */
    public QdrantVectorIndex(final QdrantClient client, final String collection, final Duration timeout,
                             final int dimensions, final MeterRegistry registry) {
        this.client = Objects.requireNonNull(client, "client");
        this.collection = Objects.requireNonNull(collection, "collection");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (dimensions < 1) {
            throw new IllegalArgumentException("dimensions must be >= 1");
        }
        this.dimensions = dimensions;
        this.calls = new QdrantCalls(client, collection, timeout, new QdrantMetrics(registry));
    }

    /**
     * Opens a client: TLS and API key exactly as configured (the library's {@code newBuilder(host)}
     * would turn TLS on by default), the configured deadline as the channel default, and no
     * connect-time version check (it would block without a deadline; {@link #ensureCollection()}
     * checks the version with one). Does not contact the server.
     *
     * @param settings host, port, TLS, API key, collection, timeout
     * @param dimensions the vector size (the embedder's)
     * @param registry where metrics go
     * @return the index
     */
    public static QdrantVectorIndex connect(final QdrantSettings settings, final int dimensions,
                                            final MeterRegistry registry) {
        final QdrantGrpcClient.Builder builder =
            QdrantGrpcClient.newBuilder(settings.host(), settings.port(), settings.tls(), false)
                .withTimeout(settings.timeout());
        if (settings.apiKey() != null) {
            builder.withApiKey(settings.apiKey());
        }
        LOG.info("Qdrant vector index: {}", settings);
        return new QdrantVectorIndex(new QdrantClient(builder.build()), settings.collection(), settings.timeout(),
            dimensions, registry);
    }

    /** @return the collection name */
    public String collection() {
        return collection;
    }

    /**
     * Checks the server and the collection, creating the collection and its payload indexes when absent.
     * Idempotent; safe to race with another instance doing the same.
     *
     * @throws VectorIndexUnavailableException if Qdrant cannot be reached now
     * @throws IllegalStateException if the collection exists with another vector size or distance
     * @throws QdrantCallException if Qdrant refuses a call
     */
    public void ensureCollection() {
        final String version = calls.call("health", () -> client.healthCheckAsync(timeout)).getVersion();
        if (!VersionsCompatibilityChecker.isCompatible(CLIENT_VERSION, version)) {
            LOG.warn("Qdrant server {} may not be compatible with client {} (supported: same major, minor within 1)",
                version, CLIENT_VERSION);
        }
        if (!calls.call("collection_exists", () -> client.collectionExistsAsync(collection, timeout))) {
            try {
                calls.call("create_collection", () -> client.createCollectionAsync(CreateCollection.newBuilder()
                    .setCollectionName(collection)
                    .setVectorsConfig(VectorsConfig.newBuilder().setParams(
                        VectorParams.newBuilder().setSize(dimensions).setDistance(Distance.Cosine)))
                    .build(), timeout));
                LOG.info("Created Qdrant collection '{}' ({} dimensions, Cosine)", collection, dimensions);
            } catch (QdrantCallException e) {
                if (!Status.Code.ALREADY_EXISTS.name().equals(e.status())) {
                    throw e;
                }
                // another instance created it in between: validate what it created
            }
        }
        final CollectionInfo info = calls.call("get_collection", () -> client.getCollectionInfoAsync(collection, timeout));
        final VectorsConfig vectors = info.getConfig().getParams().getVectorsConfig();
        if (vectors.getConfigCase() != VectorsConfig.ConfigCase.PARAMS) {
            throw new IllegalStateException("Qdrant collection '" + collection + "' uses named vectors ("
                + vectors.getParamsMap().getMapMap().keySet() + "); Engram needs one unnamed vector of size "
                + dimensions + " with Cosine distance. Set qdrant.collection to another name or drop that collection.");
        }
        final VectorParams params = vectors.getParams();
        if (params.getSize() != dimensions || params.getDistance() != Distance.Cosine) {
            throw new IllegalStateException("Qdrant collection '" + collection + "' has vectors of size "
                + params.getSize() + " with " + params.getDistance() + " distance; Engram needs size " + dimensions
                + " with Cosine distance (the embedder's vector size). Set qdrant.collection to another name or drop "
                + "that collection; it is never reused with another shape.");
        }
        final Map<String, PayloadSchemaInfo> schema = info.getPayloadSchemaMap();
        for (final String field : QdrantPayload.KEYWORD_FIELDS) {
            ensureIndex(schema, field, PayloadSchemaType.Keyword, FieldType.FieldTypeKeyword);
        }
        for (final String field : QdrantPayload.TIME_FIELDS) {
            ensureIndex(schema, field, PayloadSchemaType.Datetime, FieldType.FieldTypeDatetime);
        }
        collectionReady = true;
    }

    private void ensureIndex(final Map<String, PayloadSchemaInfo> schema, final String field,
                             final PayloadSchemaType type, final FieldType fieldType) {
        final PayloadSchemaInfo existing = schema.get(field);
        if (existing != null) {
            if (existing.getDataType() != type) {
                LOG.warn("Qdrant collection '{}' indexes {} as {}, expected {}", collection, field,
                    existing.getDataType(), type);
            }
            return;
        }
        calls.update("create_index", () -> client.createPayloadIndexAsync(
            CreateFieldIndexCollection.newBuilder().setCollectionName(collection).setWait(true)
                .setFieldName(field).setFieldType(fieldType).build(), timeout));
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
     * @param query a user-scoped query
     * @return at most {@code limit} hits by descending cosine (-1..1), ties by memory id; each memory is
     *     rebuilt from the payload ({@link QdrantPayload#toMemory}: no embedding, sources or supersedes)
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    @Override
    public List<Hit> search(final Query query) {
        ensureReady();
        final QueryPoints request = scopedQuery(collection, query);
        final List<ScoredPoint> points = calls.call("search", () -> client.queryAsync(request, timeout));
        final List<Hit> hits = new ArrayList<>(points.size());
        for (final ScoredPoint point : points) {
            hits.add(new Hit(QdrantPayload.toMemory(point.getPayloadMap()), point.getScore()));
        }
        hits.sort(ORDER);
        return List.copyOf(hits);
    }

    /**
     * Inserts or replaces the memory's point and waits until it is searchable.
     *
     * @param memory a memory with an embedding of {@code dimensions} floats
     * @throws IllegalArgumentException if the embedding has another size or the id is not a UUID
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    @Override
    public void upsert(final Memory memory) {
        if (memory.getEmbedding().size() != dimensions) {
            throw new IllegalArgumentException("memory " + memory.getMemoryId() + " has an embedding of "
                + memory.getEmbedding().size() + " dimensions; the Qdrant collection has " + dimensions);
        }
        final UpsertPoints request = UpsertPoints.newBuilder().setCollectionName(collection).setWait(true)
            .addPoints(PointStruct.newBuilder().setId(QdrantPayload.pointId(memory.getMemoryId()))
                .setVectors(vectors(memory.getEmbedding())).putAllPayload(QdrantPayload.of(memory)))
            .build();
        ensureReady();
        calls.update("upsert", () -> client.upsertAsync(request, timeout));
    }

    /**
     * Deletes the user's point with that id (absent is fine) and waits until it is gone.
     *
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    @Override
    public void delete(final UserKey user, final String memoryId) {
        final Filter filter = userFilter(user, false).toBuilder()
            .addMust(Condition.newBuilder().setHasId(HasIdCondition.newBuilder()
                .addHasId(QdrantPayload.pointId(memoryId)))).build();
        ensureReady();
        calls.update("delete", () -> client.deleteAsync(DeletePoints.newBuilder()
            .setCollectionName(collection).setWait(true)
            .setPoints(PointsSelector.newBuilder().setFilter(filter)).build(), timeout));
    }

    /**
     * Deletes every point of the user (filter tenant AND user) and waits until they are gone.
     *
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    @Override
    public void deleteUser(final UserKey user) {
        ensureReady();
        calls.update("delete_user", () -> client.deleteAsync(DeletePoints.newBuilder()
            .setCollectionName(collection).setWait(true)
            .setPoints(PointsSelector.newBuilder().setFilter(userFilter(user, false))).build(), timeout));
    }

    /**
     * @param user a user
     * @return the exact number of the user's points, any status (for erasure checks and operators)
     */
    public long count(final UserKey user) {
        ensureReady();
        return calls.call("count", () -> client.countAsync(collection, userFilter(user, false), true, timeout));
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

    /** Qdrant refused a call for a reason a retry does not fix (gRPC status in {@link #status()}). */
    public static final class QdrantCallException extends IllegalStateException {
        private static final long serialVersionUID = 1L;
        private final String operation;
        private final String status;

        QdrantCallException(final String operation, final String status, final String message, final Throwable cause) {
            super(message, cause);
            this.operation = operation;
            this.status = status;
        }

        /** @return the failed operation */
        public String operation() {
            return operation;
        }

        /** @return the gRPC status code name, e.g. {@code NOT_FOUND} */
        public String status() {
            return status;
        }
    }
}
