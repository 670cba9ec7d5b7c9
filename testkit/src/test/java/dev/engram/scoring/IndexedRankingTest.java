package dev.engram.scoring;

import static dev.engram.testing.MemoryFixtures.memory;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.embedder.ScriptRoutedEmbedder;
import org.junit.jupiter.api.Test;

/**
 * The kept index ranks exactly as scoring every memory from scratch, through creates, content changes,
 * status changes (earlier values among them), counter updates and deletes, for the ACTIVE memories, a question about
 * the past (ACTIVE and earlier values) and an {@code asOf} read (the default embedders: bge-small-en, and bge-small-zh for the
 * Han texts, so one user holds vectors of two models and sizes).
 */
class IndexedRankingTest {

    private static final Instant T0 = Instant.parse("2025-04-01T07:00:00Z");
    private static final UserKey USER = new UserKey("t1", "u-ana");
    private static final List<String> TEXTS = List.of(
        "My gym locker code is 4417.", "Uses Kotlin for backend work", "Enjoys hiking on weekends",
        "Adopted a cat named Miso last spring", "Works at Huawei in Beijing", "我住在北京，在华为工作。",
        "Is training for the Lisbon marathon in October", "Prefers short answers without emojis",
        "Asked for painters; the assistant recommended Monet and Turner", "Her daughter plays the violin",
        "Went camping at Lake Tahoe with the kids", "Is allergic to peanuts", "Moved to São Paulo in 2021",
        "Reads science fiction, mostly Le Guin", "Volunteers at the animal shelter on Saturdays",
        "Bought a used Subaru Outback", "Plans to learn Japanese next year", "東京に住んでいます",
        "Had a job interview at a bakery", "Started pottery classes with a friend");
    private static final List<String> QUERIES = List.of(
        "what is my locker code", "where does she work", "你在哪里工作", "pets", "what painters were recommended",
        "what car did he buy", "weather in Paris tomorrow", "kids outdoor trips", "东京", "where did I move in 2021?",
        "what did I do in May 2025", "pets in 2025", "what did I do on May 11th?", "在3月14号我做了什么？",
        "what car did he buy and where does she work?", "What did I do on May 11th? Which classes did I start?",
        "Where did I live before?", "what was my former job", "which pets did I have in the past?");
    /** Event dates the extractor writes (a day, a range) and one it does not, so a question's period matters. */
    private static final List<List<String>> EVENT_DATES = List.of(List.of(), List.of("2021-03-14"),
        List.of("2025-05-10/2025-05-12"), List.of("not-a-date", "2021-06-01/2021-06-30"));

    private final HybridScorer scorer = new HybridScorer(ScriptRoutedEmbedder.defaults(), EngramConfig.defaults());

    @Test
    void shouldRankAsExhaustiveScoringWhenMemoriesChange() {
        final Random random = new Random(7);
        final Map<String, Memory> truth = new LinkedHashMap<>();
        final UserMemoryIndex index = new UserMemoryIndex();
        int next = 0;
        for (int round = 0; round < 12; round++) {
            for (int op = 0; op < 6; op++) {
                final int kind = truth.isEmpty() ? 0 : random.nextInt(5);
                final List<String> ids = new ArrayList<>(truth.keySet());
                final String someId = ids.isEmpty() ? null : ids.get(random.nextInt(ids.size()));
                final Memory m;
                switch (kind) {
                    case 0, 1 -> m = memory("t1", "u-ana", "m" + next++, TEXTS.get(random.nextInt(TEXTS.size())),
                        T0.plusSeconds(3600L * random.nextInt(2000))).setImportance(random.nextDouble())
                        .setEventDates(EVENT_DATES.get(random.nextInt(EVENT_DATES.size()))).build();
                    case 2 -> m = Memory.newBuilder(memory("t1", "u-ana", someId,
                        TEXTS.get(random.nextInt(TEXTS.size())), truth.get(someId).getUpdatedAt()).build()).build();
                    case 3 -> m = changedStatus(truth.get(someId), random);
                    default -> m = null;
                }
                if (m == null) {
                    truth.remove(someId);
                    index.remove(someId);
                } else {
                    truth.put(m.getMemoryId(), m);
                    index.put(m);
                }
            }
            for (final String query : QUERIES) {
                for (final int k : List.of(1, 3, 10)) {
                    assertThat(signature(scorer.rank(RankRequest.of(query, k).index(USER, index))))
                        .as("round %d, %s, k=%d", round, query, k)
                        .isEqualTo(signature(scorer.rank(RankRequest.of(query, k).memories(truth.values()))));
                }
            }
            for (final Instant asOf : List.of(T0.plusSeconds(3600L * 500), T0.plusSeconds(3600L * 1500))) {
                for (final String query : List.of(QUERIES.get(1), QUERIES.get(9), QUERIES.get(12))) {
                    assertThat(signature(scorer.rank(RankRequest.of(query, 10).index(USER, index).asOf(asOf))))
                        .as("round %d, %s as of %s", round, query, asOf)
                        .isEqualTo(signature(scorer.rank(RankRequest.of(query, 10).memories(truth.values()).asOf(asOf))));
                }
            }
        }
        assertThat(index.count()).isEqualTo(truth.size());
        assertThat(truth.values()).as("the rounds made earlier values a question about the past reaches")
            .anyMatch(PastCues::earlierValue);
    }

    /**
     * A memory's status changed: ACTIVE again, ARCHIVED as stale, or an earlier value (a fact ARCHIVED as SUPERSEDED
     * with the time its value ended: what a question about the past ranks beside the ACTIVE memories).
     */
    private static Memory changedStatus(final Memory memory, final Random random) {
        final Memory.Builder b = Memory.newBuilder(memory).setAccessCount(random.nextInt(20))
            .setLastAccessedAt(T0.plusSeconds(86_400L * random.nextInt(90)));
        return switch (random.nextInt(3)) {
            case 0 -> b.setStatus(MemoryStatus.ACTIVE).setKey(null).setValidTo(null).setArchiveReason(null).build();
            case 1 -> b.setStatus(MemoryStatus.ARCHIVED).setArchiveReason(ArchiveReason.STALE).build();
            default -> b.setStatus(MemoryStatus.ARCHIVED).setType(MemoryType.SEMANTIC).setKey("fact:" + memory.getMemoryId())
                .setArchiveReason(ArchiveReason.SUPERSEDED).setValidTo(memory.getUpdatedAt().plusSeconds(3600)).build();
        };
    }

    /**
     * @return each hit's id, content, status and exact score components (the index holds memories
     *     without their embedding, so the records themselves differ there)
     */
    static List<String> signature(final List<ScoredMemory> hits) {
        return hits.stream().map(h -> h.memory().getMemoryId() + "|" + h.memory().getContent() + "|"
            + h.memory().getStatus() + "|" + h.score() + "|" + h.semantic() + "|" + h.recency() + "|"
            + h.importance() + "|" + h.access()).toList();
    }

    @Test
    void shouldReserveRoomInProportionToTheUsersMemoriesWhenUsersHoldFew() {
        final UserMemoryIndex index = new UserMemoryIndex();
        index.put(memory("t1", "u-ana", "m0", TEXTS.get(0), T0).build());
        assertThat(index.capacity()).as("one memory").isEqualTo(2);
        for (int i = 1; i < TEXTS.size(); i++) {
            index.put(memory("t1", "u-ana", "m" + i, TEXTS.get(i), T0).build());
        }
        assertThat(index.capacity()).isBetween(TEXTS.size(), 2 * TEXTS.size());
        assertThat(scorer.rank(RankRequest.of("where does she work", 10).index(USER, index))).isNotEmpty();
    }

    @Test
    void shouldDropHitsBelowMinScoreOnTheReportedScale() {
        final UserMemoryIndex index = new UserMemoryIndex();
        for (int i = 0; i < TEXTS.size(); i++) {
            index.put(memory("t1", "u-ana", "m" + i, TEXTS.get(i), T0).build());
        }
        final List<ScoredMemory> all = scorer.rank(RankRequest.of("where does she work", 10).index(USER, index));
        assertThat(all).isNotEmpty();
        final double floor = all.get(0).score();
        assertThat(scorer.rank(RankRequest.of("where does she work", 10).index(USER, index).minScore(floor)))
            .allSatisfy(h -> assertThat(h.score()).isGreaterThanOrEqualTo(floor))
            .extracting(h -> h.memory().getMemoryId()).contains(all.get(0).memory().getMemoryId());
        assertThat(scorer.rank(RankRequest.of("where does she work", 10).index(USER, index).minScore(1.0001))).isEmpty();
    }

    /**
     * A large user (1,200 memories: the texts' real vectors with noise, as near-paraphrases are, so many memories
     * tie closely for the candidate heap): the kept index still ranks exactly as exhaustive scoring.
     */
    @Test
    void shouldRankALargeUserAsExhaustiveScoring() {
        final Random random = new Random(11);
        final List<Memory> truth = new ArrayList<>();
        final UserMemoryIndex index = new UserMemoryIndex();
        final List<Memory> bases = new ArrayList<>();
        for (int i = 0; i < TEXTS.size(); i++) {
            bases.add(memory("t1", "u-ana", "base" + i, TEXTS.get(i), T0).build());
        }
        for (int i = 0; i < 1_200; i++) {
            final Memory base = bases.get(i % bases.size());
            final List<Float> noisy = new ArrayList<>(base.getEmbedding().size());
            for (final float x : base.getEmbedding()) {
                noisy.add((float) (x + 0.02 * random.nextGaussian()));
            }
            final Memory m = Memory.newBuilder(base).setMemoryId("m" + i).setContent(base.getContent() + " (" + i + ")")
                .setEmbedding(noisy).setImportance(random.nextDouble())
                .setUpdatedAt(T0.plusSeconds(3600L * random.nextInt(2000))).build();
            truth.add(m);
            index.put(m);
        }
        for (final String query : QUERIES) {
            for (final int k : List.of(1, 10)) {
                assertThat(signature(scorer.rank(RankRequest.of(query, k).index(USER, index)))).as("%s, k=%d", query, k)
                    .isEqualTo(signature(scorer.rank(RankRequest.of(query, k).memories(truth))));
            }
        }
    }
}
