package dev.engram.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.core.UserKey;
import dev.engram.embedder.OnnxEmbedder;
import dev.engram.embedder.OnnxModel;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.port.VectorIndex;
import dev.engram.scoring.Vectors;
import dev.engram.serde.AvroSerdes;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StoreVectorIndexTest {

    private static final Instant T = Instant.parse("2025-02-03T09:12:00Z");
    private static final UserKey MIRA = new UserKey("t1", "u-mira");
    private final Embedder embedder = ScriptRoutedEmbedder.defaults();
    private KeyValueStore<String, Memory> store;
    private StoreVectorIndex index;

    @BeforeEach
    void setUp() {
        store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("memories-by-user-store"),
            Serdes.String(), AvroSerdes.serde(Memory.class)).withLoggingDisabled().build();
        final MockProcessorContext<String, Memory> context = new MockProcessorContext<>();
        store.init(context.getStateStoreContext(), store);
        index = new StoreVectorIndex(store);
    }

    private void put(final UserKey user, final String id, final String content, final MemoryStatus status) {
        store.put(user.storeKey(id), Memory.newBuilder().setMemoryId(id).setTenantId(user.tenantId())
            .setUserId(user.userId()).setType(MemoryType.EPISODIC).setContent(content).setImportance(0.5)
            .setConfidence(0.9).setSource(MemorySource.EXPLICIT).setStatus(status).setCreatedAt(T).setUpdatedAt(T)
            .setLastAccessedAt(T).setLastConfirmedAt(T).setValidFrom(T).setSources(List.of())
            .setEmbedding(Vectors.toList(embedder.embed(content))).setEmbeddingModel(embedder.modelName()).build());
    }

    @Test
    void shouldOnlyReturnTheQueriedUsersMemoriesWhenOthersMatchBetter() {
        final String text = "These days I write almost everything in Kotlin.";
        put(MIRA, "m-1", "Enjoys climbing on weekends.", MemoryStatus.ACTIVE);
        // Same text for other users, including one whose wire form extends Mira's ("u-mira2").
        put(new UserKey("t1", "u-mira2"), "m-2", text, MemoryStatus.ACTIVE);
        put(new UserKey("t2", "u-mira"), "m-3", text, MemoryStatus.ACTIVE);

        final List<VectorIndex.Hit> hits = index.search(new VectorIndex.Query(MIRA, embedder.embed(text), 10, false));
        assertThat(hits).extracting(h -> h.memory().getMemoryId()).containsExactly("m-1");
    }

    @Test
    void shouldSkipArchivedMemoriesWhenActiveOnly() {
        put(MIRA, "m-active", "Lives in Nantes.", MemoryStatus.ACTIVE);
        put(MIRA, "m-archived", "Lives in Lyon.", MemoryStatus.ARCHIVED);
        final float[] query = embedder.embed("Where does she live?");
        assertThat(index.search(new VectorIndex.Query(MIRA, query, 10, true)))
            .extracting(h -> h.memory().getMemoryId()).containsExactly("m-active");
        assertThat(index.search(new VectorIndex.Query(MIRA, query, 10, false))).hasSize(2);
    }

    @Test
    void shouldRankByCosineThenIdAndHonourLimit() {
        put(MIRA, "m-b", "Uses IntelliJ for everything.", MemoryStatus.ACTIVE);
        put(MIRA, "m-a", "Uses IntelliJ for everything.", MemoryStatus.ACTIVE);
        put(MIRA, "m-c", "Has a cat called Miso.", MemoryStatus.ACTIVE);
        final float[] query = embedder.embed("Which IDE does she use?");
        final List<VectorIndex.Hit> hits = index.search(new VectorIndex.Query(MIRA, query, 3, true));
        assertThat(hits).extracting(h -> h.memory().getMemoryId()).containsExactly("m-a", "m-b", "m-c");
        assertThat(hits.get(0).similarity()).isEqualTo(hits.get(1).similarity()).isGreaterThan(hits.get(2).similarity());
        assertThat(index.search(new VectorIndex.Query(MIRA, query, 1, true)))
            .extracting(h -> h.memory().getMemoryId()).containsExactly("m-a");
    }

    @Test
    void shouldSeeStoreWritesWithoutUpsert() {
        final float[] query = embedder.embed("Kotlin");
        assertThat(index.search(new VectorIndex.Query(MIRA, query, 5, true))).isEmpty();
        put(MIRA, "m-1", "Writes Kotlin.", MemoryStatus.ACTIVE);
        assertThat(index.search(new VectorIndex.Query(MIRA, query, 5, true))).hasSize(1);
    }

    @Test
    void shouldNeverCompareVectorsOfTwoModelsWhenTheQueryNamesItsModel() {
        final String text = "These days I write almost everything in Kotlin.";
        put(MIRA, "m-bge", text, MemoryStatus.ACTIVE);
        final Memory other = store.get(MIRA.storeKey("m-bge"));
        store.put(MIRA.storeKey("m-minilm"), Memory.newBuilder(other).setMemoryId("m-minilm")
            .setEmbedding(Vectors.toList(OnnxEmbedder.shared(OnnxModel.MINILM).embed(text)))
            .setEmbeddingModel(OnnxModel.MINILM.name()).build());
        final float[] query = embedder.embedQuery("Which programming language?");

        assertThat(index.search(new VectorIndex.Query(MIRA, query, 10, true, embedder.modelName())))
            .extracting(h -> h.memory().getMemoryId()).containsExactly("m-bge");
        assertThat(index.search(new VectorIndex.Query(MIRA,
                OnnxEmbedder.shared(OnnxModel.MINILM).embedQuery("Which programming language?"), 10, true,
                OnnxModel.MINILM.name())))
            .extracting(h -> h.memory().getMemoryId()).containsExactly("m-minilm");
    }

    @Test
    void shouldRefuseAQueryVectorOfAnotherSizeThanItsOwnModelsMemoriesNamingTheModel() {
        put(MIRA, "m-1", "Enjoys climbing on weekends.", MemoryStatus.ACTIVE);
        final float[] shortVector = new float[embedder.dimensions() / 2];
        shortVector[0] = 1;
        assertThatThrownBy(() -> index.search(new VectorIndex.Query(MIRA, shortVector, 10, true, embedder.modelName())))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(embedder.modelName())
            .hasMessageContaining(shortVector.length + " dimensions").hasMessageContaining("m-1");
        // another model's query (its vectors are never compared with these) still finds nothing, without error
        assertThat(index.search(new VectorIndex.Query(MIRA, shortVector, 10, true, "another-model"))).isEmpty();
    }

    /**
     * The consolidator's search with a least cosine and the task's unit vectors (its float filter) against the full
     * exact search: random users of near-duplicate and unrelated vectors, random bounds around the cosines found
     * (exact ties and values just below included), memories rewritten between searches (the cached unit vector of the
     * old record must not be used): the hits are always the full answer's hits at or above the bound, in its order.
     */
    @Test
    void shouldReturnTheFullAnswersHitsAtOrAboveTheLeastCosineWhenTheUnitVectorFilterRuns() {
        final java.util.Random random = new java.util.Random(11);
        final UnitVectors units = new UnitVectors();
        int compared = 0;
        for (int round = 0; round < 200; round++) {
            final float[] topic = gaussian(random, 384, 1.0);
            final List<Memory> memories = new java.util.ArrayList<>();
            final int size = 5 + random.nextInt(60);
            for (int i = 0; i < size; i++) {
                final float[] v = random.nextBoolean() ? plus(topic, gaussian(random, 384, 0.1 + random.nextDouble()))
                    : gaussian(random, 384, 1.0);
                memories.add(memory("m-" + (round % 7) + "-" + i, v, random.nextInt(8) == 0 ? MemoryStatus.ARCHIVED
                    : MemoryStatus.ACTIVE));
            }
            if (round % 3 == 0) { // rewritten records of the same ids: new vectors the cache must not take as the old
                memories.replaceAll(m -> random.nextBoolean() ? m
                    : Memory.newBuilder(m).setEmbedding(Vectors.toList(gaussian(random, 384, 1.0))).build());
            }
            final float[] query = plus(topic, gaussian(random, 384, 0.2 * random.nextDouble()));
            final List<VectorIndex.Hit> full = StoreVectorIndex.search(memories,
                new VectorIndex.Query(MIRA, query, 10_000, true, "m"));
            final double least = random.nextInt(4) == 0 ? full.get(random.nextInt(full.size())).similarity() // a tie
                : full.get(random.nextInt(full.size())).similarity() - random.nextDouble() * 2e-3; // just below one
            final int limit = 1 + random.nextInt(12);
            final List<VectorIndex.Hit> expected = full.stream().filter(h -> h.similarity() >= least).limit(limit).toList();

            final List<VectorIndex.Hit> filtered = StoreVectorIndex.search(memories,
                new VectorIndex.Query(MIRA, query, limit, true, "m", least), units);

            assertThat(filtered).as("round %d", round).isEqualTo(expected);
            assertThat(StoreVectorIndex.search(memories, new VectorIndex.Query(MIRA, query, limit, true, "m", least)))
                .isEqualTo(expected);
            compared += expected.size();
        }
        assertThat(compared).as("hits compared").isGreaterThan(500);
    }

    private static Memory memory(final String id, final float[] vector, final MemoryStatus status) {
        return Memory.newBuilder().setMemoryId(id).setTenantId(MIRA.tenantId()).setUserId(MIRA.userId())
            .setType(MemoryType.EPISODIC).setContent(id).setImportance(0.5).setConfidence(0.9)
            .setSource(MemorySource.EXPLICIT).setStatus(status).setCreatedAt(T).setUpdatedAt(T).setLastAccessedAt(T)
            .setLastConfirmedAt(T).setValidFrom(T).setSources(List.of()).setEmbedding(Vectors.toList(vector))
            .setEmbeddingModel("m").build();
    }

    private static float[] gaussian(final java.util.Random random, final int size, final double scale) {
        final float[] v = new float[size];
        for (int i = 0; i < size; i++) {
            v[i] = (float) (random.nextGaussian() * scale);
        }
        return v;
    }

    private static float[] plus(final float[] a, final float[] b) {
        final float[] out = new float[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i] + b[i];
        }
        return out;
    }
}
