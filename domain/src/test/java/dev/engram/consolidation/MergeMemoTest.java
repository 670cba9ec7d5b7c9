package dev.engram.consolidation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.scoring.AccessCounts;
import dev.engram.scoring.SimilarityScale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The incremental merge pass ({@link MergeMemo}) against the full one: random users whose memories are added,
 * rewritten (vector, content with and without identifiers, sources), archived as stale, revived and hard-deleted
 * between passes a few days of event time apart; every pass with the memo gives exactly the changes of a pass without
 * one, over the same memories at the same time.
 */
class MergeMemoTest {

    private static final Instant T0 = Instant.parse("2025-01-01T09:00:00Z");
    private static final String[] WORDS = {"hike", "coffee", "flight", "garden", "piano", "novel", "market", "harbour"};
    private static final String[] CODES = {"", "", "", " LH441", " room 12", " fourteen", " B-207"};

    private final MemoryLifecycle lifecycle = new MemoryLifecycle(new MemoryLifecycle.Settings(0.85, Duration.ofDays(90),
        0.4, 2, Duration.ofDays(120), Duration.ofDays(30), 0.5, Duration.ofDays(365), SimilarityScale.RAW));

    @BeforeAll
    static void trustAvro() {
        dev.engram.serde.AvroSerdes.trustGeneratedRecords();
    }

    @Test
    void shouldGiveTheChangesOfAFullPassInEveryPassWhenMemoriesAreAddedChangedArchivedAndRevivedBetweenPasses() {
        int merges = 0;
        int settledSeen = 0;
        for (int seed = 1; seed <= 40; seed++) {
            final Random random = new Random(seed);
            final float[][] topics = new float[3 + random.nextInt(4)][];
            for (int t = 0; t < topics.length; t++) {
                topics[t] = randomVector(random, 12);
            }
            final Map<String, Memory> memories = new LinkedHashMap<>();
            final MergeMemo memo = MergeMemo.empty();
            Instant now = T0;
            int next = 0;
            for (int pass = 0; pass < 25; pass++) {
                now = now.plus(Duration.ofDays(1 + random.nextInt(20)));
                final int added = random.nextInt(8);
                for (int i = 0; i < added; i++) {
                    final Memory memory = memory(random, "m" + Integer.toString(random.nextInt(1_000_000), 36) + "-" + next++,
                        topics, now);
                    memories.put(memory.getMemoryId(), memory);
                }
                for (final Memory m : new ArrayList<>(memories.values())) {
                    if (random.nextInt(10) == 0) {
                        memories.put(m.getMemoryId(), rewritten(random, m, topics, now));
                    }
                }
                settledSeen += memo.size();
                final List<Memory> users = new ArrayList<>(memories.values());
                final List<Consolidator.Change> full = lifecycle.review(users, now, false, AccessCounts.Lookup.NONE);
                final List<Consolidator.Change> incremental = lifecycle.review(users, now, false, AccessCounts.Lookup.NONE,
                    memo);
                assertThat(incremental).as("seed %d pass %d", seed, pass).isEqualTo(full);
                for (final Consolidator.Change change : full) {
                    if (change.event().getOperation() == UpdateOperation.DELETED) {
                        memories.remove(change.after().getMemoryId());
                    } else {
                        memories.put(change.after().getMemoryId(), change.after());
                    }
                    merges += change.event().getOperation() == UpdateOperation.MERGED ? 1 : 0;
                }
            }
        }
        assertThat(merges).as("the random users merge").isGreaterThan(100);
        assertThat(settledSeen).as("the passes had singletons to skip").isGreaterThan(1_000);
    }

    @Test
    void shouldMergeASingletonOfThePreviousPassWhenItsVectorMovesToAnotherSingleton() {
        final Random random = new Random(7);
        final float[] topic = randomVector(random, 12);
        final float[] other = randomVector(random, 12);
        final Memory a = memory("a", "Went for a hike", topic, "c1", T0);
        final Memory b = memory("b", "Went for a hike again", other, "c2", T0);
        final MergeMemo memo = MergeMemo.empty();
        assertThat(lifecycle.review(List.of(a, b), T0.plusSeconds(60), false, AccessCounts.Lookup.NONE, memo)).isEmpty();
        assertThat(memo.size()).isEqualTo(2);
        final Memory moved = Memory.newBuilder(b).setEmbedding(floats(topic)).build();

        final List<Consolidator.Change> changes = lifecycle.review(List.of(a, moved), T0.plusSeconds(120), false,
            AccessCounts.Lookup.NONE, memo);

        assertThat(changes).extracting(c -> c.event().getOperation())
            .containsExactly(UpdateOperation.ARCHIVED, UpdateOperation.MERGED);
        assertThat(memo.size()).as("a merged memory is no singleton").isZero();
    }

    private static Memory memory(final Random random, final String id, final float[][] topics, final Instant at) {
        final Memory memory = memory(id, WORDS[random.nextInt(WORDS.length)] + " day" + CODES[random.nextInt(CODES.length)],
            near(random, topics[random.nextInt(topics.length)]), "c" + random.nextInt(12), at);
        return Memory.newBuilder(memory).setImportance(0.2 + 0.2 * random.nextInt(4))
            .setType(random.nextInt(6) == 0 ? MemoryType.SEMANTIC : MemoryType.EPISODIC).build();
    }

    /** A memory changed between passes in one of the ways the pair check reads, or its status, or not at all. */
    private static Memory rewritten(final Random random, final Memory m, final float[][] topics, final Instant at) {
        final Memory.Builder b = Memory.newBuilder(m);
        switch (random.nextInt(5)) {
            case 0 -> b.setEmbedding(floats(near(random, topics[random.nextInt(topics.length)])));
            case 1 -> b.setContent(m.getContent() + CODES[random.nextInt(CODES.length)]);
            case 2 -> {
                final List<SourceRef> sources = new ArrayList<>(m.getSources());
                sources.add(source("c" + random.nextInt(12), at));
                b.setSources(sources).setLastConfirmedAt(at).setReinforcementCount(m.getReinforcementCount() + 1);
            }
            case 3 -> b.setStatus(MemoryStatus.ACTIVE).setArchiveReason(null).setSupersededBy(null)
                .setLastConfirmedAt(at).setUpdatedAt(at); // revived, or restated
            default -> b.setLastConfirmedAt(at); // restated: the check reads nothing of it
        }
        return b.build();
    }

    private static Memory memory(final String id, final String content, final float[] vector, final String conversation,
                                 final Instant at) {
        return Memory.newBuilder().setMemoryId(id).setTenantId("t1").setUserId("u1").setType(MemoryType.EPISODIC)
            .setCategory(null).setKey(null).setValue(null).setDisplayName(null)
            .setContent(content).setImportance(0.5).setConfidence(0.9).setSource(MemorySource.EXPLICIT)
            .setStatus(MemoryStatus.ACTIVE).setArchiveReason(null).setCreatedAt(at).setUpdatedAt(at).setLastAccessedAt(at)
            .setLastConfirmedAt(at).setAccessCount(0).setReinforcementCount(1).setExpiresAt(null).setValidFrom(at)
            .setValidTo(null).setSupersededBy(null).setSupersedes(List.of())
            .setSources(List.of(source(conversation, at))).setEmbedding(floats(vector)).setEmbeddingModel("m").build();
    }

    private static SourceRef source(final String conversation, final Instant at) {
        return SourceRef.newBuilder().setConversationId(conversation).setMessageIndexes(List.of(0)).setObservedAt(at).build();
    }

    private static float[] randomVector(final Random random, final int size) {
        final float[] v = new float[size];
        for (int i = 0; i < size; i++) {
            v[i] = (float) random.nextGaussian();
        }
        return v;
    }

    /** A vector around {@code topic}: most pairs of one topic reach cosine 0.85, some do not. */
    private static float[] near(final Random random, final float[] topic) {
        final float[] v = topic.clone();
        for (int i = 0; i < v.length; i++) {
            v[i] += (float) (random.nextGaussian() * 0.25);
        }
        return v;
    }

    private static List<Float> floats(final float[] v) {
        final List<Float> out = new ArrayList<>(v.length);
        for (final float x : v) {
            out.add(x);
        }
        return out;
    }
}
