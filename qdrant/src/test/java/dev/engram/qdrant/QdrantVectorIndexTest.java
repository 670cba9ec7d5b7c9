package dev.engram.qdrant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndex;
import dev.engram.port.VectorIndexUnavailableException;
import dev.engram.qdrant.testing.QdrantDouble;
import dev.engram.scoring.Vectors;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.qdrant.client.QdrantClient;
import io.qdrant.client.grpc.Collections.ChangeAliases;
import io.qdrant.client.grpc.Collections.CreateCollection;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.PayloadSchemaType;
import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Points.CreateFieldIndexCollection;
import io.qdrant.client.grpc.Points.DeletePoints;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.UpsertPoints;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Qdrant-specific behaviour of {@link QdrantVectorIndex}, checked on the wire through {@link QdrantDouble}. */
class QdrantVectorIndexTest {

    static {
        dev.engram.serde.AvroSerdes.trustGeneratedRecords();
    }

    private static final String COLLECTION = "engram-memories";
    private static final String MODEL = "all-minilm-l6-v2-q";
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final UserKey ANA = new UserKey("t1", "u-ana");
    private static final Instant T = Instant.parse("2025-04-01T07:00:00Z");

    private QdrantDouble qdrant;
    private SimpleMeterRegistry registry;
    private QdrantVectorIndex index;

    @BeforeEach
    void setUp() {
        qdrant = QdrantDouble.start();
        registry = new SimpleMeterRegistry();
        index = new QdrantVectorIndex(qdrant.client(TIMEOUT), COLLECTION, MODEL, TIMEOUT, 4, registry);
    }

    @AfterEach
    void tearDown() {
        index.close();
        qdrant.close();
    }

    @Test
    void shouldPutTheTenantAndUserFilterInsideTheQueryWhenSearching() {
        index.upsert(memory("m-1", MemoryStatus.ACTIVE, 1, 0, 0, 0));
        qdrant.clearCalls();

        index.search(new VectorIndex.Query(ANA, new float[] {1, 0, 0, 0}, 7, true));
        index.search(new VectorIndex.Query(ANA, new float[] {1, 0, 0, 0}, 3, false));

        final List<QueryPoints> queries = qdrant.requests(QueryPoints.class);
        assertThat(queries).hasSize(2);
        final QueryPoints active = queries.get(0);
        assertThat(active.getQuery().getNearest().getDense().getDataList()).containsExactly(1f, 0f, 0f, 0f);
        assertThat(active.getLimit()).isEqualTo(7);
        assertThat(active.getFilter().getShouldCount() + active.getFilter().getMustNotCount()).isZero();
        assertThat(active.getFilter().getMustList()).extracting(QdrantVectorIndexTest::keyword).containsExactlyInAnyOrder(
            "tenant_id=t1", "user_id=u-ana", "status=ACTIVE");
        assertThat(queries.get(1).getFilter().getMustList()).extracting(QdrantVectorIndexTest::keyword)
            .containsExactlyInAnyOrder("tenant_id=t1", "user_id=u-ana");
        assertThat(queries.get(1).getLimit()).isEqualTo(3);
    }

    @Test
    void shouldCreateTheCollectionWithCosineAndPayloadIndexesWhenAbsent() {
        index.ensureCollection();
        index.ensureCollection(); // idempotent: no second create

        final List<CreateCollection> creates = qdrant.requests(CreateCollection.class);
        assertThat(creates).hasSize(1);
        assertThat(creates.get(0).getVectorsConfig().getParams().getSize()).isEqualTo(4);
        assertThat(creates.get(0).getVectorsConfig().getParams().getDistance()).isEqualTo(Distance.Cosine);
        assertThat(qdrant.payloadSchema(COLLECTION)).containsEntry("tenant_id", PayloadSchemaType.Keyword)
            .containsEntry("user_id", PayloadSchemaType.Keyword).containsEntry("status", PayloadSchemaType.Keyword)
            .containsEntry("type", PayloadSchemaType.Keyword).containsEntry("updated_at", PayloadSchemaType.Datetime)
            .containsEntry("expires_at", PayloadSchemaType.Datetime);
        assertThat(qdrant.requests(CreateFieldIndexCollection.class)).hasSize(8)
            .allSatisfy(r -> assertThat(r.getWait()).isTrue());
    }

    @Test
    void shouldRefuseAnExistingCollectionWhenItsVectorSizeOrDistanceDiffers() {
        qdrant.createCollection(QdrantVectorIndex.collectionFor(COLLECTION, MODEL), 512, Distance.Cosine);
        assertThatThrownBy(index::ensureCollection).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("'" + COLLECTION + "-" + MODEL + "'").hasMessageContaining(MODEL).hasMessageContaining("size 512")
            .hasMessageContaining("needs size 4 with Cosine");

        qdrant.createCollection(QdrantVectorIndex.collectionFor("dot-collection", MODEL), 4, Distance.Dot);
        final QdrantVectorIndex dot = new QdrantVectorIndex(qdrant.client(TIMEOUT), "dot-collection", MODEL, TIMEOUT, 4,
            registry);
        assertThatThrownBy(dot::ensureCollection).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("Dot distance");
        assertThatThrownBy(() -> dot.upsert(memory("m-1", MemoryStatus.ACTIVE, 1, 0, 0, 0)))
            .isInstanceOf(IllegalStateException.class);
        dot.close();
        assertThat(qdrant.requests(UpsertPoints.class)).isEmpty();
    }

    @Test
    void shouldWaitForEveryWriteAndSetADeadlineOnEveryCall() {
        index.upsert(memory("m-1", MemoryStatus.ACTIVE, 1, 0, 0, 0));
        index.upsert(memory("m-2", MemoryStatus.ACTIVE, 0, 1, 0, 0));
        index.delete(ANA, id("m-1"));
        index.deleteUser(ANA);
        index.search(new VectorIndex.Query(ANA, new float[] {1, 0, 0, 0}, 5, true));
        assertThat(index.count(ANA)).isZero();

        assertThat(qdrant.requests(UpsertPoints.class)).hasSize(2).allSatisfy(r -> assertThat(r.getWait()).isTrue());
        assertThat(qdrant.requests(DeletePoints.class)).hasSize(2).allSatisfy(r -> assertThat(r.getWait()).isTrue());
        assertThat(qdrant.pendingOperations()).isZero();
        assertThat(qdrant.calls()).isNotEmpty().allSatisfy(c -> assertThat(c.hadDeadline())
            .as("deadline on %s", c.method()).isTrue());
    }

    @Test
    void shouldNotReadAWriteSentWithoutWaitWhenTheDoubleFollowsQdrant() throws Exception {
        // The double's wait semantics, so that the test above means something.
        index.ensureCollection();
        final QdrantClient raw = qdrant.client(TIMEOUT);
        raw.upsertAsync(UpsertPoints.newBuilder().setCollectionName(COLLECTION)
            .addPoints(PointStruct.newBuilder().setId(QdrantPayload.pointId(id("m-1")))
                .setVectors(io.qdrant.client.VectorsFactory.vectors(1f, 0f, 0f, 0f))
                .putAllPayload(QdrantPayload.of(memory("m-1", MemoryStatus.ACTIVE, 1, 0, 0, 0))))
            .build(), TIMEOUT).get();
        raw.close();

        assertThat(index.search(new VectorIndex.Query(ANA, new float[] {1, 0, 0, 0}, 5, true))).isEmpty();
        assertThat(qdrant.pendingOperations()).isEqualTo(1);
        qdrant.applyPending();
        assertThat(index.search(new VectorIndex.Query(ANA, new float[] {1, 0, 0, 0}, 5, true))).hasSize(1);
    }

    @Test
    void shouldRoundTripWhatRetrievalNeedsThroughThePayload() {
        final Memory m = Memory.newBuilder(memory("m-1", MemoryStatus.ARCHIVED, 1, 0, 0, 0))
            .setArchiveReason(ArchiveReason.SUPERSEDED).setSupersededBy(id("m-2")).setValidTo(T.plusSeconds(60))
            .setDisplayName("Preferred language").setAccessCount(3).setExpiresAt(T.plusSeconds(3600)).build();
        index.upsert(m);

        final Memory back = index.search(new VectorIndex.Query(ANA, new float[] {1, 0, 0, 0}, 5, false)).get(0).memory();
        final Memory expected = Memory.newBuilder(m).setSources(List.of()).setSupersedes(List.of())
            .setEmbedding(List.of()).build();
        assertThat(back).isEqualTo(expected);
    }

    @Test
    void shouldCarryTheOldValuesOfAnOutdatedMemoryAsAListOfStringsInThePayload() {
        // an ACTIVE episode marked by two changes: a reader of the collection tells which part is past, as the API does
        final Memory episode = Memory.newBuilder(memory("m-3", MemoryStatus.ACTIVE, 0, 1, 0, 0)).setKey(null)
            .setValue(null).setCategory(null).setType(MemoryType.EPISODIC)
            .setContent("Big week: I moved to Lisbon, I work at Hooli now; it is sunny there.")
            .setValidTo(T.plusSeconds(60)).setSupersededBy(id("m-4")).setOutdatedValues(List.of("Lisbon", "Hooli")).build();
        final Memory current = memory("m-5", MemoryStatus.ACTIVE, 0, 0, 1, 0);
        index.upsert(episode);
        index.upsert(current);

        // on the wire: a payload list of strings (Qdrant's JSON array), left out of a current memory's payload
        final Map<String, Map<String, io.qdrant.client.grpc.JsonWithInt.Value>> sent = new java.util.HashMap<>();
        qdrant.requests(UpsertPoints.class).forEach(r -> r.getPointsList()
            .forEach(p -> sent.put(p.getId().getUuid(), p.getPayloadMap())));
        assertThat(sent.get(id("m-3")).get(QdrantPayload.OUTDATED_VALUES).getListValue().getValuesList())
            .extracting(io.qdrant.client.grpc.JsonWithInt.Value::getStringValue).containsExactly("Lisbon", "Hooli");
        assertThat(sent.get(id("m-5"))).as("left out while current").doesNotContainKey(QdrantPayload.OUTDATED_VALUES);
        assertThat(index.search(new VectorIndex.Query(ANA, new float[] {0, 1, 0, 0}, 1, true)).get(0).memory()
            .getOutdatedValues()).containsExactly("Lisbon", "Hooli");
        assertThat(index.search(new VectorIndex.Query(ANA, new float[] {0, 0, 1, 0}, 1, true)).get(0).memory()
            .getOutdatedValues()).isEmpty();
    }

    @Test
    void shouldRaiseUnavailableCountTheErrorAndRecoverWhenQdrantIsDownThenBack() {
        index.upsert(memory("m-1", MemoryStatus.ACTIVE, 1, 0, 0, 0));
        qdrant.stop();

        assertThatThrownBy(() -> index.search(new VectorIndex.Query(ANA, new float[] {1, 0, 0, 0}, 5, true)))
            .isInstanceOf(VectorIndexUnavailableException.class)
            .satisfies(e -> assertThat(((VectorIndexUnavailableException) e).status()).isEqualTo("UNAVAILABLE"));
        assertThat(registry.get("engram.qdrant.errors").tag("operation", "search").tag("status", "UNAVAILABLE")
            .counter().count()).isEqualTo(1.0);

        qdrant.startServer();
        // the channel reconnects with gRPC's backoff (about 1 s first): poll with a deadline
        final long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        List<VectorIndex.Hit> hits = null;
        while (hits == null && System.nanoTime() < deadline) {
            try {
                hits = index.search(new VectorIndex.Query(ANA, new float[] {1, 0, 0, 0}, 5, true));
            } catch (VectorIndexUnavailableException stillDown) {
                java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L); // poll again shortly
            }
        }
        assertThat(hits).hasSize(1);
        assertThat(registry.get("engram.qdrant.requests").tag("operation", "search").tag("status", "OK")
            .timer().count()).isEqualTo(1);
    }

    @Test
    void shouldSendTheApiKeyOverPlainTcpWhenConnectedFromSettings() {
        final int port = qdrant.startTcp();
        qdrant.requireApiKey("s3cret");
        try (QdrantVectorIndex remote = QdrantVectorIndex.connect(
            new QdrantSettings("localhost", port, false, "s3cret", COLLECTION, TIMEOUT), MODEL, 4, registry);
             QdrantVectorIndex noKey = QdrantVectorIndex.connect(
                 new QdrantSettings("localhost", port, false, null, COLLECTION, TIMEOUT), MODEL, 4, registry)) {
            remote.upsert(memory("m-1", MemoryStatus.ACTIVE, 1, 0, 0, 0));
            assertThat(remote.search(new VectorIndex.Query(ANA, new float[] {1, 0, 0, 0}, 5, true))).hasSize(1);
            assertThat(qdrant.calls()).allSatisfy(c -> assertThat(c.apiKey()).isEqualTo("s3cret"));
            assertThatThrownBy(noKey::ensureCollection).isInstanceOf(QdrantCallException.class)
                .hasMessageContaining("UNAUTHENTICATED");
        }
    }

    @Test
    void shouldKeepEachModelsVectorsInItsOwnCollectionAndSwitchTheAliasInOneRequest() {
        index.upsert(memory("m-1", MemoryStatus.ACTIVE, 1, 0, 0, 0));
        final String oldCollection = QdrantVectorIndex.collectionFor(COLLECTION, MODEL);
        assertThat(qdrant.aliases()).containsEntry(COLLECTION, oldCollection);

        // a re-embedding to a model of another size: its own collection, created by the first upsert
        final Memory moved = Memory.newBuilder(memory("m-1", MemoryStatus.ACTIVE, 0, 1, 0, 0, 0, 0))
            .setEmbeddingModel("bge-small-zh-v15-q").build();
        index.upsert(moved);
        final String newCollection = QdrantVectorIndex.collectionFor(COLLECTION, "bge-small-zh-v15-q");
        assertThat(qdrant.pointCount(newCollection)).isEqualTo(1);
        assertThat(qdrant.pointCount(oldCollection)).as("moved, not copied").isZero();
        assertThat(index.search(new VectorIndex.Query(ANA, new float[] {0, 1, 0, 0, 0, 0}, 5, true,
            "bge-small-zh-v15-q"))).extracting(h -> h.memory().getEmbeddingModel()).containsExactly("bge-small-zh-v15-q");
        assertThat(index.search(new VectorIndex.Query(ANA, new float[] {1, 0, 0, 0}, 5, true, MODEL))).isEmpty();
        assertThat(index.search(new VectorIndex.Query(ANA, new float[] {1, 0, 0, 0}, 5, true, "never-written")))
            .isEmpty();

        qdrant.clearCalls();
        index.switchAlias("bge-small-zh-v15-q");
        assertThat(qdrant.aliases()).containsEntry(COLLECTION, newCollection);
        final List<ChangeAliases> switches = qdrant.requests(ChangeAliases.class);
        assertThat(switches).hasSize(1); // delete + create in one request: Qdrant applies it atomically
        assertThat(switches.get(0).getActionsList()).extracting(a -> a.getActionCase().name())
            .containsExactly("DELETE_ALIAS", "CREATE_ALIAS");
        assertThat(index.activeCollection()).hasValue(newCollection);
        // a search without a model reads the alias: now the new model's collection
        assertThat(index.search(new VectorIndex.Query(ANA, new float[] {0, 1, 0, 0, 0, 0}, 5, true))).hasSize(1);

        assertThatThrownBy(() -> index.dropModel("bge-small-zh-v15-q")).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("active");
        assertThat(index.dropModel(MODEL)).isTrue();
        assertThat(qdrant.collectionNames()).containsExactly(newCollection);
        assertThatThrownBy(() -> index.switchAlias(MODEL)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining(oldCollection).hasMessageContaining("does not exist");
        assertThat(qdrant.aliases()).containsEntry(COLLECTION, newCollection);
    }

    @Test
    void shouldRefuseAVectorOfAnotherSizeThanItsModelsCollectionNamingTheModel() {
        index.upsert(memory("m-1", MemoryStatus.ACTIVE, 1, 0, 0, 0));
        assertThatThrownBy(() -> index.upsert(memory("m-2", MemoryStatus.ACTIVE, 1, 0, 0, 0, 0, 0)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(MODEL)
            .hasMessageContaining("6 dimensions").hasMessageContaining("holds 4");
        assertThatThrownBy(() -> index.search(new VectorIndex.Query(ANA, new float[] {1, 0, 0}, 5, true, MODEL)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(MODEL)
            .hasMessageContaining("3 dimensions");
        assertThat(qdrant.pointCount(COLLECTION)).isEqualTo(1);
    }

    @Test
    void shouldEraseAUserFromEveryModelsCollectionEvenOneAnotherInstanceCreated() {
        index.upsert(memory("m-1", MemoryStatus.ACTIVE, 1, 0, 0, 0));
        try (QdrantVectorIndex other = new QdrantVectorIndex(qdrant.client(TIMEOUT), COLLECTION, MODEL, TIMEOUT, 4,
            registry)) {
            other.upsert(Memory.newBuilder(memory("m-2", MemoryStatus.ACTIVE, 0, 1, 0, 0, 0, 0))
                .setEmbeddingModel("bge-small-zh-v15-q").build());
        }
        assertThat(index.count(ANA)).isEqualTo(2);
        index.deleteUser(ANA);
        assertThat(index.count(ANA)).isZero();
        assertThat(qdrant.pointCount(QdrantVectorIndex.collectionFor(COLLECTION, "bge-small-zh-v15-q"))).isZero();
    }

    private static String keyword(final Condition c) {
        return c.getField().getKey() + "=" + c.getField().getMatch().getKeyword();
    }

    private static String id(final String name) {
        return UUID.nameUUIDFromBytes(name.getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString();
    }

    private static Memory memory(final String name, final MemoryStatus status, final float... vector) {
        return Memory.newBuilder().setMemoryId(id(name)).setTenantId(ANA.tenantId()).setUserId(ANA.userId())
            .setType(MemoryType.SEMANTIC).setCategory(FactCategory.TECHNICAL).setKey("preferred_language")
            .setValue("Kotlin").setContent("Prefers Kotlin.").setImportance(0.7).setConfidence(0.9)
            .setSource(MemorySource.EXPLICIT).setStatus(status).setCreatedAt(T).setUpdatedAt(T.plusSeconds(5))
            .setLastAccessedAt(T.plusSeconds(7)).setLastConfirmedAt(T.plusSeconds(5)).setValidFrom(T)
            .setReinforcementCount(2).setSources(List.of()).setEmbedding(Vectors.toList(vector))
            .setEmbeddingModel("all-minilm-l6-v2-q").build();
    }
}
