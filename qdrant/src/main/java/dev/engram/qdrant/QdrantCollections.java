package dev.engram.qdrant;

import static io.qdrant.client.VectorsFactory.vectors;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.port.VectorIndexUnavailableException;
import io.grpc.Status;
import io.qdrant.client.QdrantClient;
import io.qdrant.client.VersionsCompatibilityChecker;
import io.qdrant.client.grpc.Collections.AliasDescription;
import io.qdrant.client.grpc.Collections.AliasOperations;
import io.qdrant.client.grpc.Collections.CollectionInfo;
import io.qdrant.client.grpc.Collections.CreateAlias;
import io.qdrant.client.grpc.Collections.DeleteAlias;
import io.qdrant.client.grpc.Collections.CreateCollection;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.PayloadSchemaInfo;
import io.qdrant.client.grpc.Collections.PayloadSchemaType;
import io.qdrant.client.grpc.Collections.VectorParams;
import io.qdrant.client.grpc.Collections.VectorsConfig;
import io.qdrant.client.grpc.Points.CreateFieldIndexCollection;
import io.qdrant.client.grpc.Points.FieldType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Qdrant collections and the alias of one deployment: one collection per embedding model
 * ({@code <base>-<model>}, created with that model's vector size and the payload indexes on first use), and the alias
 * {@code <base>} naming the active model's collection. The sizes already checked are kept, so a write or a search checks
 * a collection's shape once. Thread-safe; every call races safely with another instance doing the same.
 */
final class QdrantCollections {

    private static final Logger LOG = LoggerFactory.getLogger(QdrantCollections.class);

    private final QdrantClient client;
    private final String base;
    private final String model;
    private final Duration timeout;
    private final int dimensions;
    private final QdrantCalls calls;
    private final Map<String, Integer> checked = new ConcurrentHashMap<>();

    QdrantCollections(final QdrantClient client, final String base, final String model, final Duration timeout,
                      final int dimensions, final QdrantCalls calls) {
        this.client = client;
        this.base = base;
        this.model = model;
        this.timeout = timeout;
        this.dimensions = dimensions;
        this.calls = calls;
    }

    /**
     * @param collection a model collection
     * @return its vector size, if this instance checked or created it
     */
    Integer checkedSize(final String collection) {
        return checked.get(collection);
    }

    /** @return the model collections this instance checked or created */
    java.util.Set<String> checkedCollections() {
        return checked.keySet();
    }

    /**
     * @param base {@code qdrant.collection}
     * @param model an embedding model
     * @return the collection of that model's vectors, {@code <base>-<model>} with every character outside
     *     {@code [A-Za-z0-9_.-]} as {@code -}
     */
    public static String collectionFor(final String base, final String model) {
        return base + "-" + model.replaceAll("[^A-Za-z0-9_.-]", "-").toLowerCase(Locale.ROOT);
    }

    /**
     * @param memoryModel a model name
     * @return its collection under this index's base
     */
    String collectionFor(final String memoryModel) {
        return collectionFor(base, memoryModel);
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
    void ensureCollection() {
        final String version = calls.call("health", () -> client.healthCheckAsync(timeout)).getVersion();
        if (!VersionsCompatibilityChecker.isCompatible(QdrantVectorIndex.CLIENT_VERSION, version)) {
            LOG.warn("Qdrant server {} may not be compatible with client {} (supported: same major, minor within 1)",
                version, QdrantVectorIndex.CLIENT_VERSION);
        }
        ensureModelCollection(model, dimensions);
        if (activeCollection().isEmpty()) {
            if (calls.call("list_collections", () -> client.listCollectionsAsync(timeout)).contains(base)) {
                LOG.warn("Qdrant collection '{}' is a collection, not the alias of the active model's collection that "
                    + "Engram now keeps under that name; its points are not read. Rebuild the consolidator "
                    + "(bin/engram rebuild --app consolidator) to write every memory into '{}', then drop '{}'",
                    base, collectionFor(model), base);
            } else {
                createAlias(collectionFor(model));
            }
        }
    }

    private void createAlias(final String target) {
        try {
            calls.call("update_aliases", () -> client.updateAliasesAsync(List.of(AliasOperations.newBuilder()
                .setCreateAlias(CreateAlias.newBuilder().setCollectionName(target).setAliasName(base)).build()), timeout));
            LOG.info("Created Qdrant alias '{}' -> '{}'", base, target);
        } catch (QdrantCallException e) {
            if (!Status.Code.ALREADY_EXISTS.name().equals(e.status())) {
                throw e;
            }
        }
    }

    /**
     * @return the collection the active alias names, if the alias exists
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    Optional<String> activeCollection() {
        for (final AliasDescription alias : calls.call("list_aliases", () -> client.listAliasesAsync(timeout))) {
            if (alias.getAliasName().equals(base)) {
                return Optional.of(alias.getCollectionName());
            }
        }
        return Optional.empty();
    }

    /**
     * Points the active alias at {@code newModel}'s collection in one {@code UpdateAliases} request (delete the
     * alias, create it again to the new collection), which Qdrant applies atomically.
     *
     * @param newModel the model switched to; its collection must exist (the re-embedded memories were written)
     * @throws IllegalStateException if that collection does not exist
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    void switchAlias(final String newModel) {
        final String target = collectionFor(newModel);
        if (!calls.call("collection_exists", () -> client.collectionExistsAsync(target, timeout))) {
            throw new IllegalStateException("cannot switch Qdrant alias '" + base + "' to model " + newModel
                + ": its collection '" + target + "' does not exist (no memory of that model was written)");
        }
        calls.call("update_aliases", () -> client.updateAliasesAsync(List.of(
            AliasOperations.newBuilder().setDeleteAlias(DeleteAlias.newBuilder().setAliasName(base)).build(),
            AliasOperations.newBuilder().setCreateAlias(CreateAlias.newBuilder().setCollectionName(target)
                .setAliasName(base)).build()), timeout));
        LOG.info("Qdrant alias '{}' now names '{}' (model {})", base, target, newModel);
    }

    /**
     * Deletes a model's collection (after a re-embedding moved every memory away from it).
     *
     * @param oldModel the model
     * @return whether the collection existed
     * @throws IllegalStateException if the active alias names it
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     */
    boolean dropModel(final String oldModel) {
        final String target = collectionFor(oldModel);
        if (activeCollection().filter(target::equals).isPresent()) {
            throw new IllegalStateException("Qdrant collection '" + target + "' of model " + oldModel
                + " is the active one (alias '" + base + "'): switch to another model before dropping it");
        }
        checked.remove(target);
        return calls.call("delete_collection", () -> client.deleteCollectionAsync(target, timeout)).getResult();
    }

    /**
     * Checks (or creates) one model's collection: size {@code size}, Cosine, the payload indexes.
     *
     * @throws IllegalStateException if it exists with another shape
     */
    void ensureModelCollection(final String memoryModel, final int size) {
        final String collection = collectionFor(memoryModel);
        final Integer known = checked.get(collection);
        if (known != null) {
            if (known != size) {
                throw wrongSize(memoryModel, collection, known, size);
            }
            return;
        }
        if (!calls.call("collection_exists", () -> client.collectionExistsAsync(collection, timeout))) {
            try {
                calls.call("create_collection", () -> client.createCollectionAsync(CreateCollection.newBuilder()
                    .setCollectionName(collection)
                    .setVectorsConfig(VectorsConfig.newBuilder().setParams(
                        VectorParams.newBuilder().setSize(size).setDistance(Distance.Cosine)))
                    .build(), timeout));
                LOG.info("Created Qdrant collection '{}' of model {} ({} dimensions, Cosine)", collection, memoryModel,
                    size);
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
                + size + " with Cosine distance for model " + memoryModel + ". Drop that collection or set "
                + "qdrant.collection to another name.");
        }
        final VectorParams params = vectors.getParams();
        if (params.getSize() != size || params.getDistance() != Distance.Cosine) {
            throw new IllegalStateException("Qdrant collection '" + collection + "' has vectors of size "
                + params.getSize() + " with " + params.getDistance() + " distance; Engram needs size " + size
                + " with Cosine distance (model " + memoryModel + "'s vector size). Drop that collection or set "
                + "qdrant.collection to another name; it is never reused with another shape.");
        }
        final Map<String, PayloadSchemaInfo> schema = info.getPayloadSchemaMap();
        for (final String field : QdrantPayload.KEYWORD_FIELDS) {
            ensureIndex(collection, schema, field, PayloadSchemaType.Keyword, FieldType.FieldTypeKeyword);
        }
        for (final String field : QdrantPayload.TIME_FIELDS) {
            ensureIndex(collection, schema, field, PayloadSchemaType.Datetime, FieldType.FieldTypeDatetime);
        }
        checked.put(collection, size);
    }

    static IllegalArgumentException wrongSize(final String memoryModel, final String collection,
                                                      final int held, final int got) {
        return new IllegalArgumentException("a vector of model " + memoryModel + " has " + got
            + " dimensions, but Qdrant collection '" + collection + "' of " + memoryModel + " holds " + held
            + ": the vector was not made by " + memoryModel);
    }

    private void ensureIndex(final String collection, final Map<String, PayloadSchemaInfo> schema, final String field,
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

    /** @return every model collection under the base, as Qdrant lists them now */
    List<String> modelCollections() {
        final String prefix = base + "-";
        return calls.call("list_collections", () -> client.listCollectionsAsync(timeout)).stream()
            .filter(name -> name.startsWith(prefix)).sorted().toList();
    }

}
