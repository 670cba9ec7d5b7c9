package dev.engram.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.core.UserKey;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.port.VectorIndex;
import dev.engram.scoring.Vectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link VectorIndex} contract, run against every implementation (the embedded
 * {@code StoreVectorIndex} in this module, {@code QdrantVectorIndex} in the qdrant module): tenant/user
 * isolation inside the query (case-05, and a top-k that a post-filter would leave short), idempotent
 * re-writes, delete by id and by user (the vector part of case-07), cosine scores on the scale of the
 * 0.7 / 0.9 dedup thresholds, ordering and limit.
 *
 * <p>A subject is written the way the consolidation processor writes it: the owner's store first
 * (the embedded index reads it), then {@link VectorIndex#upsert} / {@link VectorIndex#delete} /
 * {@link VectorIndex#deleteUser} (Qdrant holds its own copy). Ids are UUIDs, as memory ids are.
 */
public abstract class VectorIndexContract {

    static {
        // Builders deep-copy enums through Avro's class allow-list; trust our package before any copy.
        dev.engram.serde.AvroSerdes.trustGeneratedRecords();
    }

    /** The vector size of every subject. */
    protected static final int DIMENSIONS = ScriptRoutedEmbedder.defaults().dimensions();
    private static final Instant T = Instant.parse("2025-04-01T07:00:00Z");
    private static final UserKey ANA = new UserKey("t1", "u-ana");
    private static final UserKey BEN = new UserKey("t1", "u-ben");
    private static final UserKey CARA = new UserKey("t1", "u-cara");

    /** An index under test together with its owner's write path. */
    protected interface Subject extends AutoCloseable {
        /** @return the index under test */
        VectorIndex index();

        /** @param memory written as the processor writes it: owner's store, then {@code upsert} */
        void write(Memory memory);

        /** @param user the user @param memoryId removed from the owner's store, then {@code delete} */
        void remove(UserKey user, String memoryId);

        /** @param user every memory removed from the owner's store, then {@code deleteUser} */
        void removeUser(UserKey user);

        @Override
        default void close() {
        }
    }

    /** @return a fresh, empty subject of {@link #DIMENSIONS} dimensions */
    protected abstract Subject subject();

    private Subject subject;

    @BeforeEach
    void openSubject() {
        subject = subject();
    }

    @AfterEach
    void closeSubject() throws Exception {
        subject.close();
    }

    @Test
    void shouldReturnOnlyTheUsersMemoriesWhenOtherTenantsAndUsersHoldTheSameVector() {
        final float[] v = axis(10);
        subject.write(memory(ANA, "ana-1", "Prefers Kotlin.", v, MemoryStatus.ACTIVE));
        subject.write(memory(BEN, "ben-1", "Prefers Kotlin.", v, MemoryStatus.ACTIVE));
        subject.write(memory(new UserKey("t2", "u-ana"), "t2-ana-1", "Prefers Kotlin.", v, MemoryStatus.ACTIVE));
        subject.write(memory(new UserKey("t1", "u-ana2"), "ana2-1", "Prefers Kotlin.", v, MemoryStatus.ACTIVE));

        assertThat(ids(search(ANA, v, 10, false))).containsExactly(id("ana-1"));
        assertThat(ids(search(BEN, v, 10, false))).containsExactly(id("ben-1"));
        assertThat(ids(search(new UserKey("t2", "u-ana"), v, 10, false))).containsExactly(id("t2-ana-1"));
        assertThat(search(new UserKey("t3", "u-ana"), v, 10, false)).isEmpty();
    }

    @Test
    void shouldFindNothingForBenWhenOnlyAnaToldHerLockerCode() {
        // case-05: same tenant, colliding conversation ids; only Ana's statement became a memory
        final Embedder embedder = ScriptRoutedEmbedder.defaults();
        subject.write(memory(ANA, "ana-locker", "My gym locker code is 4417.",
            embedder.embed("My gym locker code is 4417."), MemoryStatus.ACTIVE));
        final float[] query = embedder.embed("locker code");

        assertThat(search(BEN, query, 5, true)).isEmpty();
        final List<VectorIndex.Hit> ana = search(ANA, query, 5, true);
        assertThat(ids(ana)).containsExactly(id("ana-locker"));
        assertThat(ana.get(0).memory().getContent()).contains("4417");
        assertThat(ana.get(0).memory().getUserId()).isEqualTo("u-ana");
    }

    @Test
    void shouldFillTheTopKFromTheUserWhenOtherUsersHaveCloserVectors() {
        // A post-filter after top-k would keep Ben's 30 nearer points and return nothing for Ana.
        for (int i = 0; i < 30; i++) {
            subject.write(memory(BEN, "ben-" + i, "Ben " + i, axis(i * 0.1), MemoryStatus.ACTIVE));
        }
        subject.write(memory(ANA, "ana-40", "Ana 40", axis(40), MemoryStatus.ACTIVE));
        subject.write(memory(ANA, "ana-50", "Ana 50", axis(50), MemoryStatus.ACTIVE));
        subject.write(memory(ANA, "ana-60", "Ana 60", axis(60), MemoryStatus.ACTIVE));

        final List<VectorIndex.Hit> hits = search(ANA, axis(0), 3, true);
        assertThat(ids(hits)).containsExactly(id("ana-40"), id("ana-50"), id("ana-60"));
        assertThat(hits).allSatisfy(h -> assertThat(h.memory().getUserId()).isEqualTo("u-ana"));
    }

    @Test
    void shouldSkipArchivedMemoriesWhenActiveOnlyAndReturnThemOtherwise() {
        subject.write(memory(ANA, "ana-porto", "Lives in Porto.", axis(5), MemoryStatus.ACTIVE));
        subject.write(memory(ANA, "ana-lyon", "Lives in Lyon.", axis(6), MemoryStatus.ARCHIVED));

        assertThat(ids(search(ANA, axis(0), 10, true))).containsExactly(id("ana-porto"));
        assertThat(ids(search(ANA, axis(0), 10, false))).containsExactly(id("ana-porto"), id("ana-lyon"));
    }

    @Test
    void shouldKeepOneEntryWhenTheSameMemoryIsWrittenAgain() {
        final Memory m = memory(ANA, "ana-ide", "Uses IntelliJ.", axis(3), MemoryStatus.ACTIVE);
        subject.write(m);
        subject.write(m);
        assertThat(ids(search(ANA, axis(0), 10, false))).containsExactly(id("ana-ide"));

        subject.write(Memory.newBuilder(m).setStatus(MemoryStatus.ARCHIVED).setReinforcementCount(2).build());
        assertThat(search(ANA, axis(0), 10, true)).isEmpty();
        final List<VectorIndex.Hit> all = search(ANA, axis(0), 10, false);
        assertThat(ids(all)).containsExactly(id("ana-ide"));
        assertThat(all.get(0).memory().getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
        assertThat(all.get(0).memory().getReinforcementCount()).isEqualTo(2);
    }

    @Test
    void shouldNeverReturnTheCityAgainWhenCaraDeletesIt() {
        // case-07, action 1: the vector index has no entry with that memory id any more
        subject.write(memory(CARA, "cara-band", "Favourite band is The Lanterns.", axis(30), MemoryStatus.ACTIVE));
        subject.write(memory(CARA, "cara-city", "Lives in Porto.", axis(1), MemoryStatus.ACTIVE));
        subject.write(memory(CARA, "cara-hike", "Hiked in Geres on 2025-05-01.", axis(45), MemoryStatus.ACTIVE));

        subject.remove(CARA, id("cara-city"));
        subject.remove(CARA, id("never-existed"));

        assertThat(ids(search(CARA, axis(1), 10, false))).containsExactly(id("cara-band"), id("cara-hike"));
        subject.write(memory(CARA, "cara-diet", "Is vegetarian.", axis(2), MemoryStatus.ACTIVE));
        assertThat(ids(search(CARA, axis(1), 10, false))).doesNotContain(id("cara-city")).contains(id("cara-diet"));
    }

    @Test
    void shouldReturnNothingForTheUserAndKeepOthersWhenTheUserIsErased() {
        // case-07, action 2: erase-all leaves 0 entries for (t1, u-cara) and touches nobody else
        subject.write(memory(CARA, "cara-band", "Favourite band is The Lanterns.", axis(30), MemoryStatus.ACTIVE));
        subject.write(memory(CARA, "cara-city", "Lives in Porto.", axis(1), MemoryStatus.ARCHIVED));
        subject.write(memory(BEN, "ben-city", "Lives in Porto.", axis(1), MemoryStatus.ACTIVE));

        subject.removeUser(CARA);

        assertThat(search(CARA, axis(1), 100, false)).isEmpty();
        assertThat(ids(search(BEN, axis(1), 100, false))).containsExactly(id("ben-city"));
    }

    @Test
    void shouldScoreCosineSimilarityOnTheScaleOfTheDedupThresholds() {
        // cosines 0.95 (> 0.9: reinforce), 0.8 (0.7..0.9: judge), 0.5 (create), -0.3; one stored at 3x length
        subject.write(memory(ANA, "ana-95", "a", scaled(axisCos(0.95), 3f), MemoryStatus.ACTIVE));
        subject.write(memory(ANA, "ana-80", "b", axisCos(0.8), MemoryStatus.ACTIVE));
        subject.write(memory(ANA, "ana-50", "c", axisCos(0.5), MemoryStatus.ACTIVE));
        subject.write(memory(ANA, "ana-neg", "d", axisCos(-0.3), MemoryStatus.ACTIVE));

        final List<VectorIndex.Hit> hits = search(ANA, scaled(axis(0), 0.5f), 10, true);
        assertThat(ids(hits)).containsExactly(id("ana-95"), id("ana-80"), id("ana-50"), id("ana-neg"));
        assertThat(hits.get(0).similarity()).isCloseTo(0.95, within(1e-4)).isGreaterThan(0.9);
        assertThat(hits.get(1).similarity()).isCloseTo(0.8, within(1e-4)).isBetween(0.7, 0.9);
        assertThat(hits.get(2).similarity()).isCloseTo(0.5, within(1e-4)).isLessThan(0.7);
        assertThat(hits.get(3).similarity()).isCloseTo(-0.3, within(1e-4));
    }

    @Test
    void shouldOrderByDescendingSimilarityAndHonourTheLimit() {
        final List<String> expected = new ArrayList<>();
        for (int deg = 0; deg < 80; deg += 8) {
            subject.write(memory(ANA, "ana-" + deg, "deg " + deg, axis(deg), MemoryStatus.ACTIVE));
            expected.add(id("ana-" + deg));
        }
        final List<VectorIndex.Hit> all = search(ANA, axis(0), 100, true);
        assertThat(ids(all)).containsExactlyElementsOf(expected);
        for (int i = 1; i < all.size(); i++) {
            assertThat(all.get(i).similarity()).isLessThanOrEqualTo(all.get(i - 1).similarity());
        }
        assertThat(ids(search(ANA, axis(0), 4, true))).containsExactlyElementsOf(expected.subList(0, 4));
        assertThat(ids(search(ANA, axis(90), 1, true))).containsExactly(id("ana-72"));
    }

    // ---- helpers

    private List<VectorIndex.Hit> search(final UserKey user, final float[] v, final int limit, final boolean activeOnly) {
        return subject.index().search(new VectorIndex.Query(user, v, limit, activeOnly));
    }

    /**
     * @param name a readable name
     * @return the memory id (a UUID) for it
     */
    protected static String id(final String name) {
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString();
    }

    private static List<String> ids(final List<VectorIndex.Hit> hits) {
        return hits.stream().map(h -> h.memory().getMemoryId()).toList();
    }

    /**
     * @param degrees angle from the first axis
     * @return a unit vector in the plane of the first two axes
     */
    protected static float[] axis(final double degrees) {
        final float[] v = new float[DIMENSIONS];
        v[0] = (float) Math.cos(Math.toRadians(degrees));
        v[1] = (float) Math.sin(Math.toRadians(degrees));
        return v;
    }

    private static float[] axisCos(final double cosine) {
        return axis(Math.toDegrees(Math.acos(cosine)));
    }

    private static float[] scaled(final float[] v, final float factor) {
        final float[] out = v.clone();
        for (int i = 0; i < out.length; i++) {
            out[i] *= factor;
        }
        return out;
    }

    /**
     * @param user owner
     * @param name readable name, turned into a UUID by {@link #id}
     * @param content text
     * @param vector embedding
     * @param status status
     * @return a complete memory
     */
    protected static Memory memory(final UserKey user, final String name, final String content, final float[] vector,
                                   final MemoryStatus status) {
        return Memory.newBuilder().setMemoryId(id(name)).setTenantId(user.tenantId()).setUserId(user.userId())
            .setType(MemoryType.SEMANTIC).setCategory(FactCategory.CONTEXT).setKey("k-" + name).setValue(content)
            .setDisplayName(null).setContent(content).setImportance(0.6).setConfidence(0.9)
            .setSource(MemorySource.EXPLICIT).setStatus(status).setCreatedAt(T).setUpdatedAt(T)
            .setLastAccessedAt(T).setLastConfirmedAt(T).setValidFrom(T).setSources(List.of())
            .setEmbedding(Vectors.toList(vector)).setEmbeddingModel(ScriptRoutedEmbedder.defaults().modelName()).build();
    }
}
