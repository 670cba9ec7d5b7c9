package dev.engram.qdrant.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.google.protobuf.Message;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.qdrant.client.QdrantClient;
import io.qdrant.client.QdrantGrpcClient;
import io.qdrant.client.grpc.Collections.AliasDescription;
import io.qdrant.client.grpc.Collections.AliasOperations;
import io.qdrant.client.grpc.Collections.ChangeAliases;
import io.qdrant.client.grpc.Collections.CollectionConfig;
import io.qdrant.client.grpc.Collections.CollectionDescription;
import io.qdrant.client.grpc.Collections.CollectionExists;
import io.qdrant.client.grpc.Collections.CollectionExistsRequest;
import io.qdrant.client.grpc.Collections.CollectionExistsResponse;
import io.qdrant.client.grpc.Collections.CollectionInfo;
import io.qdrant.client.grpc.Collections.CollectionOperationResponse;
import io.qdrant.client.grpc.Collections.CollectionParams;
import io.qdrant.client.grpc.Collections.CollectionStatus;
import io.qdrant.client.grpc.Collections.CreateCollection;
import io.qdrant.client.grpc.Collections.DeleteCollection;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.GetCollectionInfoRequest;
import io.qdrant.client.grpc.Collections.GetCollectionInfoResponse;
import io.qdrant.client.grpc.Collections.ListAliasesRequest;
import io.qdrant.client.grpc.Collections.ListAliasesResponse;
import io.qdrant.client.grpc.Collections.ListCollectionAliasesRequest;
import io.qdrant.client.grpc.Collections.ListCollectionsRequest;
import io.qdrant.client.grpc.Collections.ListCollectionsResponse;
import io.qdrant.client.grpc.Collections.PayloadSchemaInfo;
import io.qdrant.client.grpc.Collections.PayloadSchemaType;
import io.qdrant.client.grpc.Collections.VectorParams;
import io.qdrant.client.grpc.Collections.VectorsConfig;
import io.qdrant.client.grpc.CollectionsGrpc;
import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Common.FieldCondition;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Common.Match;
import io.qdrant.client.grpc.Common.PointId;
import io.qdrant.client.grpc.JsonWithInt.Value;
import io.qdrant.client.grpc.Points.CountPoints;
import io.qdrant.client.grpc.Points.CountResponse;
import io.qdrant.client.grpc.Points.CountResult;
import io.qdrant.client.grpc.Points.CreateFieldIndexCollection;
import io.qdrant.client.grpc.Points.DeletePoints;
import io.qdrant.client.grpc.Points.DenseVector;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.PointsOperationResponse;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.QueryResponse;
import io.qdrant.client.grpc.Points.ScoredPoint;
import io.qdrant.client.grpc.Points.UpdateResult;
import io.qdrant.client.grpc.Points.UpdateStatus;
import io.qdrant.client.grpc.Points.UpsertPoints;
import io.qdrant.client.grpc.Points.Vector;
import io.qdrant.client.grpc.Points.VectorOutput;
import io.qdrant.client.grpc.Points.VectorsOutput;
import io.qdrant.client.grpc.PointsGrpc;
import io.qdrant.client.grpc.QdrantGrpc;
import io.qdrant.client.grpc.QdrantOuterClass.HealthCheckReply;
import io.qdrant.client.grpc.QdrantOuterClass.HealthCheckRequest;

/**
 * A wire-level Qdrant double for tests: Qdrant's own gRPC services ({@code QdrantImplBase},
 * {@code CollectionsImplBase}, {@code PointsImplBase} from the client jar) served in-process (and,
 * on request, on a TCP port), implementing Qdrant's documented behaviour for the calls Engram makes:
 *
 * <ul>
 *   <li>{@code HealthCheck} → title and version {@value #VERSION};</li>
 *   <li>{@code Collections.CollectionExists / Get / Create}: NOT_FOUND for an unknown collection,
 *       ALREADY_EXISTS for a second create, INVALID_ARGUMENT without single-vector params;
 *       {@code Collections.List} (the collections, not their aliases), {@code Collections.Delete} (result false
 *       for an unknown collection; its aliases go with it);</li>
 *   <li>aliases as Qdrant documents them ("Collection aliases" in the collections concepts page):
 *       {@code Collections.UpdateAliases} applies its {@code create_alias} / {@code delete_alias} /
 *       {@code rename_alias} actions in order and atomically (all or none, no request in between sees a
 *       partial state): create needs an existing collection (NOT_FOUND otherwise) and re-points an existing
 *       alias, delete removes the alias if it exists, rename needs the old alias (NOT_FOUND otherwise);
 *       {@code ListAliases}, {@code ListCollectionAliases}; every collection name in a request may be an
 *       alias, resolved to its collection;</li>
 *   <li>{@code Points.CreateFieldIndex}: recorded in the collection's payload schema;</li>
 *   <li>{@code Points.Upsert / Delete} (by ids or by filter): with {@code wait=true} applied before the
 *       answer (status Completed); without it only acknowledged (status Acknowledged) and applied
 *       later, at the next waited write or {@link #applyPending()} — so a caller that forgets
 *       {@code wait} does not read its own writes. Vectors of another size → INVALID_ARGUMENT; ids
 *       must be UUIDs or integers; Cosine collections store normalized vectors;</li>
 *   <li>{@code Points.Query} with a {@code nearest} dense vector: the filter is evaluated on every
 *       point BEFORE top-k (must / should / must_not, keyword/integer/bool/keywords match, has_id,
 *       nested filters), score = cosine similarity (dot of normalized vectors), order by score then
 *       id, {@code limit} (default 10), {@code offset}, {@code score_threshold}, payload and vectors
 *       as selected;</li>
 *   <li>{@code Points.Count} with a filter, exact.</li>
 * </ul>
 * Nothing is silently ignored: any field or variant it does not implement (prefetch, named vectors,
 * range/geo/datetime conditions, shard keys, update filters, ...) is answered UNIMPLEMENTED, and every
 * other RPC is UNIMPLEMENTED through the stubs' defaults. With {@link #requireApiKey} a call without
 * that {@code api-key} header is UNAUTHENTICATED. Every call is recorded ({@link #calls()}) with its
 * request, whether it carried a deadline, and its api-key.
 *
 * <p>{@link #stop()} takes the server down (calls fail UNAVAILABLE) and {@link #start()} brings it back
 * with the same data, to test outages.
 */
public final class QdrantDouble implements AutoCloseable {

    /** The server version the double reports. */
    public static final String VERSION = "1.18.0";

    private static final Context.Key<String> API_KEY = Context.key("api-key");
    private static final Metadata.Key<String> API_KEY_HEADER = Metadata.Key.of("api-key", Metadata.ASCII_STRING_MARSHALLER);

    /** One recorded call. */
    public record Call(String method, Message request, boolean hadDeadline, String apiKey) {
    }

    private record Point(String id, PointId pointId, float[] vector, Map<String, Value> payload) {
    }

    private static final class Collection {
        final int size;
        final Distance distance;
        final Map<String, Point> points = new LinkedHashMap<>();
        final Map<String, PayloadSchemaType> schema = new LinkedHashMap<>();

        Collection(final int size, final Distance distance) {
            this.size = size;
            this.distance = distance;
        }
    }

    private final String name = "qdrant-double-" + UUID.randomUUID();
    private final Map<String, Collection> collections = new ConcurrentHashMap<>();
    /** alias → collection name; replaced as a whole by an UpdateAliases request. */
    private volatile Map<String, String> aliases = Map.of();
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final List<Runnable> pending = new ArrayList<>();
    private volatile String requiredApiKey;
    private Server server;
    private Server tcpServer;
    private int tcpPort;

    private QdrantDouble() {
    }

    /** @return a started double (in-process only) */
    public static QdrantDouble start() {
        final QdrantDouble d = new QdrantDouble();
        d.startServer();
        return d;
    }

    /** Starts the server again (after {@link #stop()}), with the same data; TCP on the same port if it had one. */
    public synchronized void startServer() {
        if (server != null) {
            return;
        }
        try {
            server = InProcessServerBuilder.forName(name)
                .addService(ServerInterceptors.intercept(new Health().bindService(), new Recorder()))
                .addService(ServerInterceptors.intercept(new Collections().bindService(), new Recorder()))
                .addService(ServerInterceptors.intercept(new Points().bindService(), new Recorder()))
                .build().start();
            if (tcpPort > 0 && tcpServer == null) {
                tcpServer = tcp(tcpPort);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Server tcp(final int port) throws IOException {
        return ServerBuilder.forPort(port)
            .addService(ServerInterceptors.intercept(new Health().bindService(), new Recorder()))
            .addService(ServerInterceptors.intercept(new Collections().bindService(), new Recorder()))
            .addService(ServerInterceptors.intercept(new Points().bindService(), new Recorder()))
            .build().start();
    }

    /**
     * Also serves on a TCP port of the loopback interface (plaintext), for clients built from a host
     * and port.
     *
     * @return the port
     */
    public synchronized int startTcp() {
        if (tcpServer == null) {
            try {
                tcpServer = tcp(0);
                tcpPort = tcpServer.getPort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return tcpPort;
    }

    /** Takes the server down (in-process and TCP): calls fail with UNAVAILABLE until {@link #startServer()}. */
    public synchronized void stop() {
        if (tcpServer != null) {
            tcpServer.shutdownNow();
            try {
                tcpServer.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            tcpServer = null;
        }
        if (server != null) {
            server.shutdownNow();
            try {
                server.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            server = null;
        }
    }

    /** @param key the api-key every call must carry from now on (null: none) */
    public void requireApiKey(final String key) {
        this.requiredApiKey = key;
    }

    /** @return a channel to the in-process server (the caller closes it, e.g. through the client) */
    public ManagedChannel channel() {
        return InProcessChannelBuilder.forName(name).build();
    }

    /**
     * @param timeout the client's default deadline
     * @return a Qdrant client on {@link #channel()} that shuts the channel down when closed
     */
    public QdrantClient client(final Duration timeout) {
        return new QdrantClient(QdrantGrpcClient.newBuilder(channel(), true, false).withTimeout(timeout).build());
    }

    /** @return every call so far, in order */
    public List<Call> calls() {
        return List.copyOf(calls);
    }

    /**
     * @param type a request type, e.g. {@code QueryPoints.class}
     * @param <T> the type
     * @return the recorded requests of that type, in order
     */
    public <T extends Message> List<T> requests(final Class<T> type) {
        final List<T> out = new ArrayList<>();
        for (final Call call : calls) {
            if (type.isInstance(call.request())) {
                out.add(type.cast(call.request()));
            }
        }
        return out;
    }

    /** Forgets the recorded calls. */
    public void clearCalls() {
        calls.clear();
    }

    /**
     * Creates a collection directly (as if someone else had), e.g. with a shape Engram must refuse.
     *
     * @param collection name
     * @param size vector size
     * @param distance distance
     */
    public void createCollection(final String collection, final int size, final Distance distance) {
        collections.put(collection, new Collection(size, distance));
    }

    /**
     * @param collection a collection
     * @return its number of points (applied writes only)
     */
    public synchronized int pointCount(final String collection) {
        final Collection c = collections.get(aliases.getOrDefault(collection, collection));
        return c == null ? 0 : c.points.size();
    }

    /**
     * @param collection a collection
     * @return its payload indexes: field → type
     */
    public synchronized Map<String, PayloadSchemaType> payloadSchema(final String collection) {
        return Map.copyOf(collections.get(aliases.getOrDefault(collection, collection)).schema);
    }

    /** @return alias → collection, as the aliases stand now */
    public Map<String, String> aliases() {
        return Map.copyOf(aliases);
    }

    /** @return the names of the collections (not their aliases) */
    public java.util.Set<String> collectionNames() {
        return java.util.Set.copyOf(collections.keySet());
    }

    /** @return writes acknowledged without {@code wait} and not applied yet */
    public synchronized int pendingOperations() {
        return pending.size();
    }

    /** Applies the writes acknowledged without {@code wait}. */
    public synchronized void applyPending() {
        final List<Runnable> ops = new ArrayList<>(pending);
        pending.clear();
        ops.forEach(Runnable::run);
    }

    @Override
    public synchronized void close() {
        stop();
    }

    /** Records every call, checks the api-key, puts the api-key into the call's context. */
    private final class Recorder implements ServerInterceptor {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(final ServerCall<Q, R> call, final Metadata headers,
                                                           final ServerCallHandler<Q, R> next) {
            final String key = headers.get(API_KEY_HEADER);
            final String required = requiredApiKey;
            if (required != null && !required.equals(key)) {
                call.close(Status.UNAUTHENTICATED.withDescription("Invalid api-key"), new Metadata());
                return new ServerCall.Listener<>() { };
            }
            return Contexts.interceptCall(Context.current().withValue(API_KEY, key), call, headers, next);
        }
    }

    private void record(final String method, final Message request) {
        final Deadline deadline = Context.current().getDeadline();
        calls.add(new Call(method, request, deadline != null, API_KEY.get()));
    }

    private static <R> void answer(final StreamObserver<R> observer, final Supplier<R> body) {
        final R response;
        try {
            response = body.get();
        } catch (StatusRuntimeException e) {
            observer.onError(e);
            return;
        }
        observer.onNext(response);
        observer.onCompleted();
    }

    private static StatusRuntimeException unimplemented(final String what) {
        return Status.UNIMPLEMENTED.withDescription("the Qdrant double does not implement " + what).asRuntimeException();
    }

    private Collection collection(final String collection) {
        final Collection c = collections.get(aliases.getOrDefault(collection, collection));
        if (c == null) {
            throw Status.NOT_FOUND.withDescription("Not found: Collection `" + collection + "` doesn't exist!")
                .asRuntimeException();
        }
        return c;
    }

    private final class Health extends QdrantGrpc.QdrantImplBase {
        @Override
        public void healthCheck(final HealthCheckRequest request, final StreamObserver<HealthCheckReply> observer) {
            record("HealthCheck", request);
            answer(observer, () -> HealthCheckReply.newBuilder().setTitle("qdrant - vector search engine")
                .setVersion(VERSION).build());
        }
    }

    private final class Collections extends CollectionsGrpc.CollectionsImplBase {
        @Override
        public void collectionExists(final CollectionExistsRequest request,
                                     final StreamObserver<CollectionExistsResponse> observer) {
            record("CollectionExists", request);
            answer(observer, () -> CollectionExistsResponse.newBuilder().setResult(CollectionExists.newBuilder()
                .setExists(collections.containsKey(aliases.getOrDefault(request.getCollectionName(),
                    request.getCollectionName())))).build());
        }

        @Override
        public void list(final ListCollectionsRequest request, final StreamObserver<ListCollectionsResponse> observer) {
            record("ListCollections", request);
            answer(observer, () -> {
                final ListCollectionsResponse.Builder out = ListCollectionsResponse.newBuilder();
                collections.keySet().stream().sorted()
                    .forEach(name -> out.addCollections(CollectionDescription.newBuilder().setName(name)));
                return out.build();
            });
        }

        @Override
        public void delete(final DeleteCollection request, final StreamObserver<CollectionOperationResponse> observer) {
            record("DeleteCollection", request);
            answer(observer, () -> {
                synchronized (QdrantDouble.this) {
                    final String name = aliases.getOrDefault(request.getCollectionName(), request.getCollectionName());
                    final boolean existed = collections.remove(name) != null;
                    final Map<String, String> next = new LinkedHashMap<>(aliases);
                    next.values().removeIf(name::equals);
                    aliases = Map.copyOf(next);
                    return CollectionOperationResponse.newBuilder().setResult(existed).build();
                }
            });
        }

        @Override
        public void updateAliases(final ChangeAliases request, final StreamObserver<CollectionOperationResponse> observer) {
            record("UpdateAliases", request);
            answer(observer, () -> {
                synchronized (QdrantDouble.this) {
                    // applied to a copy in order, published at once: all or none, never half
                    final Map<String, String> next = new LinkedHashMap<>(aliases);
                    for (final AliasOperations action : request.getActionsList()) {
                        switch (action.getActionCase()) {
                            case CREATE_ALIAS -> {
                                final String target = action.getCreateAlias().getCollectionName();
                                if (!collections.containsKey(target)) {
                                    throw Status.NOT_FOUND.withDescription("Not found: Collection `" + target
                                        + "` doesn't exist!").asRuntimeException();
                                }
                                next.put(action.getCreateAlias().getAliasName(), target);
                            }
                            case DELETE_ALIAS -> next.remove(action.getDeleteAlias().getAliasName());
                            case RENAME_ALIAS -> {
                                final String target = next.remove(action.getRenameAlias().getOldAliasName());
                                if (target == null) {
                                    throw Status.NOT_FOUND.withDescription("Not found: Alias `"
                                        + action.getRenameAlias().getOldAliasName() + "` doesn't exist!").asRuntimeException();
                                }
                                next.put(action.getRenameAlias().getNewAliasName(), target);
                            }
                            default -> throw Status.INVALID_ARGUMENT.withDescription("Wrong input: empty alias action")
                                .asRuntimeException();
                        }
                    }
                    aliases = Map.copyOf(next);
                    return CollectionOperationResponse.newBuilder().setResult(true).build();
                }
            });
        }

        @Override
        public void listAliases(final ListAliasesRequest request, final StreamObserver<ListAliasesResponse> observer) {
            record("ListAliases", request);
            answer(observer, () -> aliasList(null));
        }

        @Override
        public void listCollectionAliases(final ListCollectionAliasesRequest request,
                                          final StreamObserver<ListAliasesResponse> observer) {
            record("ListCollectionAliases", request);
            answer(observer, () -> {
                collection(request.getCollectionName());
                return aliasList(request.getCollectionName());
            });
        }

        private ListAliasesResponse aliasList(final String collection) {
            final ListAliasesResponse.Builder out = ListAliasesResponse.newBuilder();
            new java.util.TreeMap<>(aliases).forEach((alias, target) -> {
                if (collection == null || collection.equals(target)) {
                    out.addAliases(AliasDescription.newBuilder().setAliasName(alias).setCollectionName(target));
                }
            });
            return out.build();
        }

        @Override
        public void get(final GetCollectionInfoRequest request, final StreamObserver<GetCollectionInfoResponse> observer) {
            record("GetCollection", request);
            answer(observer, () -> {
                synchronized (QdrantDouble.this) {
                    final Collection c = collection(request.getCollectionName());
                    final CollectionInfo.Builder info = CollectionInfo.newBuilder().setStatus(CollectionStatus.Green)
                        .setPointsCount(c.points.size()).setSegmentsCount(1)
                        .setConfig(CollectionConfig.newBuilder().setParams(CollectionParams.newBuilder()
                            .setVectorsConfig(VectorsConfig.newBuilder().setParams(
                                VectorParams.newBuilder().setSize(c.size).setDistance(c.distance)))));
                    c.schema.forEach((field, type) -> info.putPayloadSchema(field,
                        PayloadSchemaInfo.newBuilder().setDataType(type).setPoints(c.points.size()).build()));
                    return GetCollectionInfoResponse.newBuilder().setResult(info).build();
                }
            });
        }

        @Override
        public void create(final CreateCollection request, final StreamObserver<CollectionOperationResponse> observer) {
            record("CreateCollection", request);
            answer(observer, () -> {
                if (request.getVectorsConfig().getConfigCase() != VectorsConfig.ConfigCase.PARAMS) {
                    throw unimplemented("collections without one unnamed dense vector");
                }
                final VectorParams params = request.getVectorsConfig().getParams();
                if (params.getSize() < 1 || params.getDistance() == Distance.UnknownDistance) {
                    throw Status.INVALID_ARGUMENT.withDescription("Wrong input: vector size and distance are required")
                        .asRuntimeException();
                }
                if (collections.putIfAbsent(request.getCollectionName(),
                    new Collection((int) params.getSize(), params.getDistance())) != null) {
                    throw Status.ALREADY_EXISTS.withDescription("Wrong input: Collection `"
                        + request.getCollectionName() + "` already exists!").asRuntimeException();
                }
                return CollectionOperationResponse.newBuilder().setResult(true).build();
            });
        }
    }

    private final class Points extends PointsGrpc.PointsImplBase {
        @Override
        public void createFieldIndex(final CreateFieldIndexCollection request,
                                     final StreamObserver<PointsOperationResponse> observer) {
            record("CreateFieldIndex", request);
            answer(observer, () -> {
                synchronized (QdrantDouble.this) {
                    final Collection c = collection(request.getCollectionName());
                    if (!request.hasFieldType() || request.hasFieldIndexParams()) {
                        throw unimplemented("payload indexes without a field type or with index params");
                    }
                    final PayloadSchemaType type = switch (request.getFieldType()) {
                        case FieldTypeKeyword -> PayloadSchemaType.Keyword;
                        case FieldTypeInteger -> PayloadSchemaType.Integer;
                        case FieldTypeFloat -> PayloadSchemaType.Float;
                        case FieldTypeBool -> PayloadSchemaType.Bool;
                        case FieldTypeDatetime -> PayloadSchemaType.Datetime;
                        case FieldTypeUuid -> PayloadSchemaType.Uuid;
                        default -> throw unimplemented("field type " + request.getFieldType());
                    };
                    c.schema.put(request.getFieldName(), type);
                    return completed(true);
                }
            });
        }

        @Override
        public void upsert(final UpsertPoints request, final StreamObserver<PointsOperationResponse> observer) {
            record("Upsert", request);
            answer(observer, () -> {
                synchronized (QdrantDouble.this) {
                    final Collection c = collection(request.getCollectionName());
                    if (request.hasUpdateFilter() || request.hasUpdateMode() || request.hasShardKeySelector()
                        || request.hasOrdering()) {
                        throw unimplemented("update filters, update modes, shard keys and write ordering");
                    }
                    final List<Point> points = new ArrayList<>();
                    for (final PointStruct p : request.getPointsList()) {
                        final float[] v = denseVector(p.getVectors().hasVector() ? p.getVectors().getVector() : null);
                        if (v.length != c.size) {
                            throw Status.INVALID_ARGUMENT.withDescription("Wrong input: Vector dimension error: "
                                + "expected dim: " + c.size + ", got " + v.length).asRuntimeException();
                        }
                        final PointId id = canonical(p.getId());
                        points.add(new Point(key(id), id, c.distance == Distance.Cosine ? normalize(v) : v,
                            Map.copyOf(p.getPayloadMap())));
                    }
                    return write(request.getWait(), () -> points.forEach(p -> c.points.put(p.id(), p)));
                }
            });
        }

        @Override
        public void delete(final DeletePoints request, final StreamObserver<PointsOperationResponse> observer) {
            record("Delete", request);
            answer(observer, () -> {
                synchronized (QdrantDouble.this) {
                    final Collection c = collection(request.getCollectionName());
                    if (request.hasShardKeySelector() || request.hasOrdering()) {
                        throw unimplemented("shard keys and write ordering");
                    }
                    final Runnable op = switch (request.getPoints().getPointsSelectorOneOfCase()) {
                        case POINTS -> {
                            final List<String> ids = new ArrayList<>();
                            request.getPoints().getPoints().getIdsList().forEach(id -> ids.add(key(canonical(id))));
                            yield () -> ids.forEach(c.points::remove);
                        }
                        case FILTER -> {
                            final Filter filter = request.getPoints().getFilter();
                            validate(filter);
                            yield () -> c.points.values().removeIf(p -> matches(filter, p));
                        }
                        default -> throw Status.INVALID_ARGUMENT.withDescription("Wrong input: no points selector")
                            .asRuntimeException();
                    };
                    return write(request.getWait(), op);
                }
            });
        }

        @Override
        public void query(final QueryPoints request, final StreamObserver<QueryResponse> observer) {
            record("Query", request);
            answer(observer, () -> {
                synchronized (QdrantDouble.this) {
                    final Collection c = collection(request.getCollectionName());
                    if (request.getPrefetchCount() > 0 || request.hasUsing() || request.hasParams()
                        || request.hasShardKeySelector() || request.hasLookupFrom() || request.hasReadConsistency()) {
                        throw unimplemented("prefetch, named vectors, search params, shard keys, lookup and read consistency");
                    }
                    if (!request.hasQuery() || !request.getQuery().hasNearest()
                        || !request.getQuery().getNearest().hasDense()) {
                        throw unimplemented("queries other than nearest to a dense vector");
                    }
                    final float[] q = toArray(request.getQuery().getNearest().getDense());
                    if (q.length != c.size) {
                        throw Status.INVALID_ARGUMENT.withDescription("Wrong input: Vector dimension error: expected dim: "
                            + c.size + ", got " + q.length).asRuntimeException();
                    }
                    if (request.hasFilter()) {
                        validate(request.getFilter());
                    }
                    final float[] query = c.distance == Distance.Cosine ? normalize(q) : q;
                    final List<ScoredPoint> scored = new ArrayList<>();
                    for (final Point p : c.points.values()) {
                        if (request.hasFilter() && !matches(request.getFilter(), p)) {
                            continue; // the filter applies during the search, before top-k
                        }
                        final float score = c.distance == Distance.Cosine || c.distance == Distance.Dot ? dot(query, p.vector())
                            : unsupportedDistance(c.distance);
                        if (request.hasScoreThreshold() && score < request.getScoreThreshold()) {
                            continue;
                        }
                        final ScoredPoint.Builder sp = ScoredPoint.newBuilder().setId(p.pointId()).setScore(score).setVersion(0);
                        if (request.hasWithPayload() && request.getWithPayload().hasEnable()
                            && request.getWithPayload().getEnable()) {
                            sp.putAllPayload(p.payload());
                        } else if (request.hasWithPayload() && !request.getWithPayload().hasEnable()) {
                            throw unimplemented("payload include/exclude selectors");
                        }
                        if (request.hasWithVectors() && request.getWithVectors().hasEnable()
                            && request.getWithVectors().getEnable()) {
                            sp.setVectors(VectorsOutput.newBuilder().setVector(VectorOutput.newBuilder()
                                .setDense(DenseVector.newBuilder().addAllData(toList(p.vector())))));
                        } else if (request.hasWithVectors() && !request.getWithVectors().hasEnable()) {
                            throw unimplemented("vector include selectors");
                        }
                        scored.add(sp.build());
                    }
                    scored.sort(Comparator.comparingDouble((ScoredPoint sp) -> -sp.getScore())
                        .thenComparing(sp -> key(sp.getId())));
                    final int offset = (int) Math.min(scored.size(), request.getOffset());
                    final int limit = (int) (request.hasLimit() ? request.getLimit() : 10);
                    return QueryResponse.newBuilder()
                        .addAllResult(scored.subList(offset, Math.min(scored.size(), offset + limit))).build();
                }
            });
        }

        @Override
        public void count(final CountPoints request, final StreamObserver<CountResponse> observer) {
            record("Count", request);
            answer(observer, () -> {
                synchronized (QdrantDouble.this) {
                    final Collection c = collection(request.getCollectionName());
                    if (request.hasShardKeySelector() || request.hasReadConsistency()) {
                        throw unimplemented("shard keys and read consistency");
                    }
                    validate(request.getFilter());
                    final long n = c.points.values().stream().filter(p -> matches(request.getFilter(), p)).count();
                    return CountResponse.newBuilder().setResult(CountResult.newBuilder().setCount(n)).build();
                }
            });
        }
    }

    /** Applies now (wait) or acknowledges and queues; a waited write first applies what is queued. */
    private PointsOperationResponse write(final boolean wait, final Runnable op) {
        if (!wait) {
            pending.add(op);
            return completed(false);
        }
        applyPending();
        op.run();
        return completed(true);
    }

    private static PointsOperationResponse completed(final boolean done) {
        return PointsOperationResponse.newBuilder().setResult(UpdateResult.newBuilder().setOperationId(0)
            .setStatus(done ? UpdateStatus.Completed : UpdateStatus.Acknowledged)).build();
    }

    private static float unsupportedDistance(final Distance distance) {
        throw unimplemented("distance " + distance);
    }

    /** Rejects anything {@link #matches} would not evaluate. */
    private static void validate(final Filter filter) {
        if (filter.hasMinShould()) {
            throw unimplemented("min_should");
        }
        final List<Condition> all = new ArrayList<>(filter.getMustList());
        all.addAll(filter.getShouldList());
        all.addAll(filter.getMustNotList());
        for (final Condition c : all) {
            switch (c.getConditionOneOfCase()) {
                case HAS_ID -> c.getHasId().getHasIdList().forEach(QdrantDouble::canonical);
                case FILTER -> validate(c.getFilter());
                case FIELD -> {
                    final FieldCondition f = c.getField();
                    if (!f.hasMatch() || f.hasRange() || f.hasGeoBoundingBox() || f.hasGeoRadius() || f.hasGeoPolygon()
                        || f.hasValuesCount() || f.hasDatetimeRange() || f.hasIsEmpty() || f.hasIsNull()) {
                        throw unimplemented("field conditions other than match (key " + f.getKey() + ")");
                    }
                    switch (f.getMatch().getMatchValueCase()) {
                        case KEYWORD, INTEGER, BOOLEAN, KEYWORDS -> { }
                        default -> throw unimplemented("match " + f.getMatch().getMatchValueCase());
                    }
                }
                default -> throw unimplemented("condition " + c.getConditionOneOfCase());
            }
        }
    }

    private static boolean matches(final Filter filter, final Point p) {
        for (final Condition c : filter.getMustList()) {
            if (!matches(c, p)) {
                return false;
            }
        }
        for (final Condition c : filter.getMustNotList()) {
            if (matches(c, p)) {
                return false;
            }
        }
        if (filter.getShouldCount() > 0) {
            return filter.getShouldList().stream().anyMatch(c -> matches(c, p));
        }
        return true;
    }

    private static boolean matches(final Condition c, final Point p) {
        return switch (c.getConditionOneOfCase()) {
            case HAS_ID -> c.getHasId().getHasIdList().stream().anyMatch(id -> key(canonical(id)).equals(p.id()));
            case FILTER -> matches(c.getFilter(), p);
            case FIELD -> matches(c.getField().getMatch(), p.payload().get(c.getField().getKey()));
            default -> throw unimplemented("condition " + c.getConditionOneOfCase());
        };
    }

    /** Qdrant matches a value, or any element of an array value. */
    private static boolean matches(final Match match, final Value value) {
        if (value == null) {
            return false;
        }
        if (value.hasListValue()) {
            return value.getListValue().getValuesList().stream().anyMatch(v -> matches(match, v));
        }
        return switch (match.getMatchValueCase()) {
            case KEYWORD -> value.hasStringValue() && value.getStringValue().equals(match.getKeyword());
            case KEYWORDS -> value.hasStringValue() && match.getKeywords().getStringsList().contains(value.getStringValue());
            case INTEGER -> value.hasIntegerValue() && value.getIntegerValue() == match.getInteger();
            case BOOLEAN -> value.hasBoolValue() && value.getBoolValue() == match.getBoolean();
            default -> throw unimplemented("match " + match.getMatchValueCase());
        };
    }

    private static PointId canonical(final PointId id) {
        switch (id.getPointIdOptionsCase()) {
            case NUM:
                return id;
            case UUID:
                try {
                    return PointId.newBuilder().setUuid(UUID.fromString(id.getUuid()).toString()).build();
                } catch (IllegalArgumentException e) {
                    throw Status.INVALID_ARGUMENT.withDescription("Unable to parse UUID: " + id.getUuid()).asRuntimeException();
                }
            default:
                throw Status.INVALID_ARGUMENT.withDescription("Wrong input: point id is required").asRuntimeException();
        }
    }

    private static String key(final PointId id) {
        return id.hasNum() ? "n:" + id.getNum() : "u:" + id.getUuid();
    }

    private static float[] denseVector(final Vector vector) {
        if (vector == null) {
            throw unimplemented("points without one unnamed vector");
        }
        if (vector.hasDense()) {
            return toArray(vector.getDense());
        }
        if (vector.getVectorCase() == Vector.VectorCase.VECTOR_NOT_SET && vector.getDataCount() > 0
            && !vector.hasIndices() && !vector.hasVectorsCount()) {
            final float[] out = new float[vector.getDataCount()];
            for (int i = 0; i < out.length; i++) {
                out[i] = vector.getData(i);
            }
            return out;
        }
        throw unimplemented("vector kind " + vector.getVectorCase());
    }

    private static float[] toArray(final DenseVector dense) {
        final float[] out = new float[dense.getDataCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = dense.getData(i);
        }
        return out;
    }

    private static List<Float> toList(final float[] v) {
        final List<Float> out = new ArrayList<>(v.length);
        for (final float f : v) {
            out.add(f);
        }
        return out;
    }

    private static float[] normalize(final float[] v) {
        double norm = 0;
        for (final float f : v) {
            norm += (double) f * f;
        }
        norm = Math.sqrt(norm);
        final float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = norm == 0 ? 0 : (float) (v[i] / norm);
        }
        return out;
    }

    private static float dot(final float[] a, final float[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += (double) a[i] * b[i];
        }
        return (float) sum;
    }

    @Override
    public String toString() {
        return "QdrantDouble[" + name + ", collections=" + collections.keySet() + "]";
    }
}
