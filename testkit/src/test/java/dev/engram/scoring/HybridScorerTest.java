package dev.engram.scoring;

import static dev.engram.testing.MemoryFixtures.memory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.embedder.OnnxEmbedder;
import dev.engram.embedder.OnnxModel;
import dev.engram.port.Embedder;
import dev.engram.port.KindPrior;
import dev.engram.port.MemoryKind;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * Uses the real all-MiniLM-L6-v2 model, chosen rather than the default: the scenarios (which memories
 * are weak candidates, which lists they reach) were built on MiniLM's similarities, and the rank
 * arithmetic under test does not depend on the model.
 */
class HybridScorerTest {

    private static final Instant T0 = Instant.parse("2025-04-01T07:00:00Z");
    private static final double W_SUM = 0.85 + 0.0 + 0.02 + 0.03;
    private static final Embedder MINILM = OnnxEmbedder.shared(OnnxModel.MINILM);

    private final HybridScorer scorer = new HybridScorer(MINILM, EngramConfig.defaults());

    private static Memory m(final String id, final String content, final Instant at) {
        return memory("t1", "u-ana", id, content, at)
            .setEmbedding(Vectors.toList(MINILM.embed(content))).setEmbeddingModel(MINILM.modelName()).build();
    }

    @Test
    void shouldRankTheMatchingMemoryFirstWithCalibratedComponentsWhenQueried() {
        final List<Memory> memories = List.of(
            m("m1", "My gym locker code is 4417.", T0),
            m("m2", "Uses Kotlin for backend work", T0),
            m("m3", "Enjoys hiking on weekends", T0));
        final List<ScoredMemory> hits = scorer.rank(RankRequest.of("locker code", 5).memories(memories));

        assertThat(hits).isNotEmpty();
        final ScoredMemory top = hits.get(0);
        assertThat(top.memory().getMemoryId()).isEqualTo("m1");
        // semantic is the calibrated logistic relevance of the two signals, not a rank
        final double[][] features = scorer.features("locker code", memories);
        final RelevanceModel model = RelevanceModel.of("all-minilm-l6-v2-q", "");
        assertThat(top.semantic()).isCloseTo(RelevanceModel.probability(model.logit(features[0][0], features[0][1], false)),
            within(1e-12));
        assertThat(top.semantic()).isGreaterThan(0.5);
        assertThat(top.recency()).isCloseTo(1.0, within(1e-9));
        assertThat(top.importance()).isEqualTo(0.5);
        assertThat(top.access()).isZero();
        assertThat(top.score()).isCloseTo((0.85 * top.semantic() + 0.0 * 1.0 + 0.02 * 0.5 + 0.03 * 0) / W_SUM,
            within(1e-9));
        // hiking shares no term and little meaning with "locker code": not a candidate at all
        assertThat(hits).extracting(h -> h.memory().getMemoryId()).doesNotContain("m3");
    }

    @Test
    void shouldKeepTotalsWithinZeroAndOneWhenWeightsDoNotSumToOne() {
        final HybridScorer heavy = new HybridScorer(MINILM, EngramConfig.defaults().with(Map.of(
            DomainConfig.WEIGHT_SEMANTIC, 1.0, DomainConfig.WEIGHT_RECENCY, 1.0,
            DomainConfig.WEIGHT_IMPORTANCE, 1.0, DomainConfig.WEIGHT_ACCESS, 1.0)));
        final Memory often = Memory.newBuilder(m("m1", "My gym locker code is 4417.", T0))
            .setAccessCount(25).setImportance(1.0).build();
        final ScoredMemory hit = heavy.rank(RankRequest.of("what is my gym locker code", 1).memories(List.of(often))).get(0);
        assertThat(hit.score()).isBetween(0.0, 1.0);
        assertThat(hit.score()).isCloseTo((hit.semantic() + 1 + 1 + 1) / 4, within(1e-12));
    }

    @Test
    void shouldRefuseTheConfigWhenEveryWeightIsZero() {
        assertThatThrownBy(() -> new HybridScorer(MINILM, EngramConfig.defaults().with(Map.of(
            DomainConfig.WEIGHT_SEMANTIC, 0.0, DomainConfig.WEIGHT_RECENCY, 0.0,
            DomainConfig.WEIGHT_IMPORTANCE, 0.0, DomainConfig.WEIGHT_ACCESS, 0.0))))
            .isInstanceOf(ConfigException.class).hasMessageContaining("retrieval.weight");
        assertThatThrownBy(() -> new HybridScorer(MINILM, EngramConfig.defaults().with(Map.of(
            DomainConfig.RELEVANCE_CALIBRATION, "1,2"))))
            .isInstanceOf(ConfigException.class).hasMessageContaining("b0,b_dense,b_lexical");
    }

    @Test
    void shouldLeaveOutAnEpisodeWhoseMessagesAHigherEpisodeAlreadyCitesButNeverAFact() {
        final Memory exchange = withSources(m("ex",
            "User: What should I watch on Sunday? — Assistant: Try the films Crazy Alien and The Climbers.", T0), "c-sunday", 0, 1);
        // the same words as the exchange, less important: ranked right below it
        final Memory turn = withSources(m("turn", exchange.getContent(), T0), "c-sunday", 0);
        exchange.setImportance(0.9);
        final Memory fact = withSources(m("fact", "Likes films on Sundays", T0), "c-sunday", 0);
        fact.setType(dev.engram.avro.MemoryType.SEMANTIC);
        final Memory other = withSources(m("other", "Watched a film about climbers last year", T0), "c-old", 4);
        final List<Memory> memories = List.of(exchange, turn, fact, other);
        final List<String> skipping = scorer.rank(RankRequest.of("which films did you suggest I watch on Sunday?", 4).memories(memories)).stream()
            .map(h -> h.memory().getMemoryId()).toList();
        final List<String> keeping = new HybridScorer(MINILM, EngramConfig.defaults().with(Map.of(
            DomainConfig.SKIP_COVERED_EPISODES, false))).rank(RankRequest.of("which films did you suggest I watch on Sunday?", 4).memories(memories))
            .stream().map(h -> h.memory().getMemoryId()).toList();
        assertThat(keeping).contains("turn");
        assertThat(keeping.indexOf("ex")).isLessThan(keeping.indexOf("turn"));
        assertThat(skipping).doesNotContain("turn").contains("ex", "fact");
        assertThat(skipping).isEqualTo(keeping.stream().filter(id -> !id.equals("turn")).toList());
    }

    @Test
    void shouldPutAnExchangeInThePlaceOfTheStatementOfItsTurnWhenAListHoldsBoth() {
        final String turn = "We roast marshmallows and tell stories around the campfire on our family camping trips.";
        final Memory statement = withSources(m("st", turn + " (re: \"What do you do on camping trips?\")", T0), "c-1", 2);
        final Memory exchange = withSources(m("ex", "User: " + turn + " — Assistant: That sounds like a lovely tradition!",
            T0), "c-1", 2, 3);
        exchange.setDisplayName(dev.engram.port.ExtractedMemory.EXCHANGE_REPLY);
        final Memory other = withSources(m("other", "Last summer we went camping in the mountains near the lake.", T0),
            "c-2", 0);
        final List<Memory> memories = List.of(statement, exchange, other);
        final String query = "what does the family do on camping trips";
        final HybridScorer plain = new HybridScorer(MINILM, EngramConfig.defaults().with(Map.of(DomainConfig.KIND_PRIOR, "")));
        final List<String> ranked = plain.rank(RankRequest.of(query, 3).memories(memories)).stream()
            .map(h -> h.memory().getMemoryId()).toList();
        assertThat(ranked).as("the ranking itself keeps both: the exchange cites the reply too").contains("st", "ex");
        assertThat(ranked.indexOf("st")).isLessThan(ranked.indexOf("ex"));

        // in a list of 2 the exchange (the turn and its reply) takes the statement's place, the next memory the slot
        assertThat(plain.forList(n -> plain.rank(RankRequest.of(query, n).memories(memories)), 2))
            .extracting(h -> h.memory().getMemoryId()).containsExactly("ex", "other");
        final HybridScorer keeping = new HybridScorer(MINILM, EngramConfig.defaults().with(Map.of(
            DomainConfig.KIND_PRIOR, "", DomainConfig.SKIP_OBSERVED, false)));
        assertThat(keeping.forList(n -> keeping.rank(RankRequest.of(query, n).memories(memories)), 2))
            .extracting(h -> h.memory().getMemoryId()).containsExactly("st", "ex");
    }

    @Test
    void shouldTakeACalibrationPerModelAndRefuseAModelNamedTwice() {
        final HybridScorer configured = new HybridScorer(MINILM, EngramConfig.defaults().with(Map.of(
            DomainConfig.RELEVANCE_CALIBRATION, "all-minilm-l6-v2-q:-4,5,6,7;bge-small-zh-v15-q:-8,9,10,11")));
        assertThat(configured.relevance(MINILM.modelName())).isEqualTo(new RelevanceModel(-4, 5, 6, 7));
        assertThatThrownBy(() -> new HybridScorer(MINILM, EngramConfig.defaults().with(Map.of(
            DomainConfig.RELEVANCE_CALIBRATION, "-1,2,3;all-minilm-l6-v2-q:-4,5,6"))))
            .isInstanceOf(ConfigException.class).hasMessageContaining("twice");
        assertThat(RelevanceModel.overrides("-1,2,3; bge-small-zh-v15-q : -8,9,10,11", "bge-small-en-v15-q"))
            .containsExactlyInAnyOrderEntriesOf(Map.of("bge-small-en-v15-q", "-1,2,3", "bge-small-zh-v15-q", "-8,9,10,11"));
    }

    @Test
    void shouldOrderAListWithTheKindPriorAndRankAContextWithout() {
        final Memory statement = m("st", "We adopted a rescue dog named Biscuit last spring.", T0);
        final Memory observation = m("obs", "We adopted a rescue dog named Biscuit last spring. Biscuit loves the beach "
            + "and sleeps on the sofa.", T0);
        observation.setType(dev.engram.avro.MemoryType.SEMANTIC);
        observation.setDisplayName(dev.engram.port.ExtractedMemory.OBSERVATION_DISPLAY_NAME);
        final List<Memory> memories = List.of(statement, observation);
        final String query = "what is the name of our rescue dog";
        final HybridScorer plain = new HybridScorer(MINILM, EngramConfig.defaults().with(Map.of(
            DomainConfig.KIND_PRIOR, "")));
        final List<ScoredMemory> ranked = plain.rank(RankRequest.of(query, 2).memories(memories));
        // the statement's shorter words are closer to the question: first without a prior
        assertThat(ranked).extracting(h -> h.memory().getMemoryId()).containsExactly("st", "obs");
        assertThat(plain.forList(n -> plain.rank(RankRequest.of(query, n).memories(memories)), 2)).isEqualTo(ranked);

        // the default prior (observation +2.3 log-odds) puts the observation first in a list ...
        // (and the statement it states word for word is then left out of the list: retrieval.skip.observed)
        assertThat(scorer.forList(n -> scorer.rank(RankRequest.of(query, n).memories(memories)), 2)).extracting(h -> h.memory().getMemoryId())
            .containsExactly("obs");
        final HybridScorer keeping = new HybridScorer(MINILM, EngramConfig.defaults().with(Map.of(
            DomainConfig.SKIP_OBSERVED, false)));
        final List<ScoredMemory> list = keeping.forList(n -> keeping.rank(RankRequest.of(query, n).memories(memories)), 2);
        assertThat(list).extracting(h -> h.memory().getMemoryId()).containsExactly("obs", "st");
        final double before = ranked.get(1).semantic();
        assertThat(list.get(0).semantic()).isCloseTo(
            RelevanceModel.probability(RelevanceModel.logitOf(before) + 2.3), within(1e-9));
        assertThat(list.get(0).score()).isCloseTo((0.85 * list.get(0).semantic() + 0.02 * 0.5) / W_SUM, within(1e-9));
        // ... a statement keeps its relevance, and a context block's ranking is the plain one
        assertThat(list.get(1).semantic()).isEqualTo(ranked.get(0).semantic());
        assertThat(scorer.rank(RankRequest.of(query, 2).memories(memories))).isEqualTo(ranked);
    }

    @Test
    void shouldRefuseAMalformedKindPriorNamingTheSetting() {
        assertThatThrownBy(() -> new HybridScorer(MINILM, EngramConfig.defaults().with(Map.of(
            DomainConfig.KIND_PRIOR, "observation:2,insight:1"))))
            .isInstanceOf(ConfigException.class).hasMessageContaining("retrieval.relevance.kind.prior")
            .hasMessageContaining("unknown memory kind 'insight'");
        assertThatThrownBy(() -> KindPrior.parse("fact:high")).hasMessageContaining("not a number for fact");
        assertThatThrownBy(() -> KindPrior.parse("fact:1,FACT:2")).hasMessageContaining("names fact twice");
        assertThatThrownBy(() -> KindPrior.parse("fact")).hasMessageContaining("expected kind:log-odds");
        final KindPrior prior = KindPrior.parse(" observation : 2.3 , summary:1.4 ");
        assertThat(prior.offset(MemoryKind.OBSERVATION)).isEqualTo(2.3);
        assertThat(prior.offset(MemoryKind.REPLY)).isZero();
        final KindPrior reparsed = KindPrior.parse(prior.toString());
        for (final MemoryKind kind : MemoryKind.values()) {
            assertThat(reparsed.offset(kind)).isEqualTo(prior.offset(kind));
        }
    }

    @Test
    void shouldTellTheKindOfEveryMemory() {
        assertThat(MemoryKind.of(dev.engram.avro.MemoryType.EPISODIC, null)).isEqualTo(MemoryKind.STATEMENT);
        assertThat(MemoryKind.of(dev.engram.avro.MemoryType.EPISODIC, "Assistant reply")).isEqualTo(MemoryKind.REPLY);
        assertThat(MemoryKind.of(dev.engram.avro.MemoryType.EPISODIC, "Assistant recommendation"))
            .isEqualTo(MemoryKind.RECOMMENDATION);
        assertThat(MemoryKind.of(dev.engram.avro.MemoryType.EPISODIC, "Conversation summary")).isEqualTo(MemoryKind.SUMMARY);
        assertThat(MemoryKind.of(dev.engram.avro.MemoryType.SEMANTIC, "Observation")).isEqualTo(MemoryKind.OBSERVATION);
        assertThat(MemoryKind.of(dev.engram.avro.MemoryType.SEMANTIC, "Role")).isEqualTo(MemoryKind.FACT);
        assertThat(MemoryKind.of(dev.engram.avro.MemoryType.PROCEDURAL, null)).isEqualTo(MemoryKind.FACT);
    }

    private static Memory withSources(final Memory memory, final String conversation, final Integer... indexes) {
        memory.setSources(List.of(dev.engram.avro.SourceRef.newBuilder().setConversationId(conversation)
            .setMessageIndexes(List.of(indexes)).setObservedAt(T0).build()));
        return memory;
    }

    @Test
    void shouldReturnNothingWhenTheQuestionIsUnrelatedToAnyMemory() {
        final List<Memory> memories = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            memories.add(m("n" + i, "Went hiking with the dog near the lake, trip " + i, T0.plusSeconds(i)));
        }
        memories.add(m("k", "Uses Kotlin for backend work", T0));
        assertThat(scorer.rank(RankRequest.of("What is the boiling point of mercury?", 5).memories(memories))).isEmpty();
        assertThat(scorer.rank(RankRequest.of("How do I reset my router password?", 5).memories(memories))).isEmpty();
        assertThat(scorer.rank(RankRequest.of("which language for the backend", 5).memories(memories)))
            .extracting(h -> h.memory().getMemoryId()).first().isEqualTo("k");
    }

    @Test
    void shouldReturnNothingWhenNoMemoryIsRelevant() {
        final List<Memory> memories = List.of(m("b1", "Ben plays chess on Sundays", T0),
            m("b2", "Enjoys hiking on weekends", T0));
        assertThat(scorer.rank(RankRequest.of("locker code", 5).memories(memories))).isEmpty();
    }

    @Test
    void shouldIgnoreMemoriesThatAreNotActive() {
        final Memory archived = Memory.newBuilder(m("m1", "My gym locker code is 4417.", T0))
            .setStatus(MemoryStatus.ARCHIVED).build();
        final Memory current = m("m2", "My new gym locker code is 9021.", T0.plusSeconds(60));
        assertThat(scorer.rank(RankRequest.of("gym locker code", 5).memories(List.of(archived, current))))
            .extracting(h -> h.memory().getMemoryId()).containsExactly("m2");
    }

    @Test
    void shouldDecayRecencyFromTheNewestEventOfTheUserWhenMemoriesAge() {
        final Instant newest = T0.plusSeconds(30L * 86_400);
        final List<Memory> memories = List.of(
            m("old", "Has a gym locker at the downtown club", T0),
            m("new", "Renewed the gym membership", newest));
        final List<ScoredMemory> hits = scorer.rank(RankRequest.of("gym", 5).memories(memories));
        final ScoredMemory old = hits.stream().filter(h -> h.memory().getMemoryId().equals("old")).findFirst().orElseThrow();
        final ScoredMemory fresh = hits.stream().filter(h -> h.memory().getMemoryId().equals("new")).findFirst().orElseThrow();
        // 30 days before the reference with a 30-day decay: e^-1, independent of the wall clock
        assertThat(old.recency()).isCloseTo(Math.exp(-1), within(1e-9));
        assertThat(fresh.recency()).isCloseTo(1.0, within(1e-9));
        assertThat(MemoryTime.referenceTime(memories)).isEqualTo(newest);
    }

    @Test
    void shouldSaturateAccessAndUseImportanceWhenComputingTheTotal() {
        final Memory often = Memory.newBuilder(m("m1", "My gym locker code is 4417.", T0))
            .setAccessCount(25).setImportance(0.9).build();
        final ScoredMemory hit = scorer.rank(RankRequest.of("locker code", 1).memories(List.of(often))).get(0);
        assertThat(hit.access()).isEqualTo(1.0);
        assertThat(hit.importance()).isEqualTo(0.9);
        assertThat(hit.score()).isCloseTo((0.85 * hit.semantic() + 0.0 * hit.recency() + 0.02 * 0.9 + 0.03) / W_SUM,
            within(1e-9));
    }

    @Test
    void shouldUseConfiguredWeightsWhenGiven() {
        final HybridScorer importanceOnly = new HybridScorer(MINILM, EngramConfig.defaults().with(Map.of(
            DomainConfig.WEIGHT_SEMANTIC, 0.0, DomainConfig.WEIGHT_RECENCY, 0.0,
            DomainConfig.WEIGHT_IMPORTANCE, 1.0, DomainConfig.WEIGHT_ACCESS, 0.0)));
        final List<Memory> memories = List.of(
            Memory.newBuilder(m("a", "Gym locker code is 4417", T0)).setImportance(0.4).build(),
            Memory.newBuilder(m("b", "Locker at the gym is number 12", T0)).setImportance(0.8).build());
        final List<ScoredMemory> hits = importanceOnly.rank(RankRequest.of("gym locker", 2).memories(memories));
        assertThat(hits).extracting(h -> h.memory().getMemoryId()).containsExactly("b", "a");
        assertThat(hits.get(0).score()).isCloseTo(0.8, within(1e-9));
    }

    @Test
    void shouldFindALexicalMatchThatDenseRanksLowWhenFused() {
        // A rare token (an id) is exactly what BM25 is good at and MiniLM is not.
        final List<Memory> memories = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            memories.add(m("n" + i, "Talked about the project deadline and the team meeting number " + i, T0));
        }
        memories.add(m("ticket", "Filed ticket JIRA-5521 about the flaky build", T0));
        final List<ScoredMemory> hits = scorer.rank(RankRequest.of("what happened with JIRA-5521", 3).memories(memories));
        assertThat(hits).extracting(h -> h.memory().getMemoryId()).contains("ticket");
        assertThat(hits).allSatisfy(h -> {
            assertThat(h.semantic()).isBetween(0.0, 1.0);
            assertThat(h.semantic()).isLessThanOrEqualTo(1.0 + 1e-12);
        });
    }

    @Test
    void shouldReturnAtMostKAndBeDeterministicWhenCalledTwice() {
        final List<Memory> memories = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            memories.add(m(String.format("m%02d", i), "Gym session number " + i + " with the locker", T0.plusSeconds(i)));
        }
        final List<ScoredMemory> first = scorer.rank(RankRequest.of("gym locker", 4).memories(memories));
        final List<ScoredMemory> second = scorer.rank(RankRequest.of("gym locker", 4).memories(memories));
        assertThat(first).hasSize(4);
        assertThat(first).isEqualTo(second);
        assertThat(first.get(0).semantic()).isLessThanOrEqualTo(1.0);
    }

    @Test
    void shouldLetRelevanceOutweighThePriorsWhenRanking() {
        final Instant newest = T0.plusSeconds(90L * 86_400);
        final List<Memory> memories = new ArrayList<>();
        // relevant but three months old and of middling importance
        memories.add(Memory.newBuilder(m("locker", "My gym locker code is 4417.", T0)).setImportance(0.5).build());
        // barely related, fresh, important and often used: they may only re-rank among the relevant
        for (int i = 0; i < 6; i++) {
            memories.add(Memory.newBuilder(m("w" + i, "Went to the gym with a friend, session " + i, newest))
                .setImportance(0.9).setAccessCount(10).build());
        }
        final List<ScoredMemory> hits = scorer.rank(RankRequest.of("what is my gym locker code", 3).memories(memories));

        assertThat(hits.get(0).memory().getMemoryId()).isEqualTo("locker");
        assertThat(hits).extracting(ScoredMemory::semantic).allSatisfy(v -> assertThat(v).isBetween(0.0, 1.0));
        assertThat(hits.get(0).semantic()).isGreaterThan(hits.get(1).semantic());
    }
}
