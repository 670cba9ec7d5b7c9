package dev.engram.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.retriever.ContextBlock;
import dev.engram.scoring.ScoredMemory;

/**
 * Accumulates LoCoMo evidence recall for one retrieval system over many questions.
 *
 * <ul>
 *   <li>recall@k = |evidence ∩ source turns of the top-k results| / |evidence|, averaged over
 *       questions, for k ∈ {@link #KS};</li>
 *   <li>per k, the mean number of distinct source turns and of estimated tokens the top-k results
 *       return;</li>
 *   <li>evidenceReachable: the same fraction for everything the system could return at all (Engram:
 *       the source turns of every ACTIVE memory of the users asked; baselines: the turns of the pool),
 *       the ceiling of its recall;</li>
 *   <li>recall at a token budget B ∈ {@link #BUDGETS}: the same fraction for the results that fit in B
 *       tokens (Engram: its formatted context block; baselines: their top turns concatenated).</li>
 * </ul>
 * Overall and per LoCoMo category. Not thread-safe.
 */
final class RecallEvaluation {

    /** The k of recall@k. */
    static final List<Integer> KS = List.of(1, 5, 10, 25);
    /** The context budgets in estimated tokens. */
    static final List<Integer> BUDGETS = List.of(256, 512, 1024, 2048);

    /**
     * What a system returned for one question.
     *
     * @param sourcesAtK for each k of {@link #KS}: the source turns of its top-k results
     * @param tokensAtK for each k of {@link #KS}: the estimated tokens of its top-k results
     * @param sourcesAtBudget for each budget of {@link #BUDGETS}: the source turns of what fits
     * @param reachable every turn the system could return for this question at all (its whole corpus)
     */
    record Answer(List<Set<String>> sourcesAtK, List<Integer> tokensAtK, List<Set<String>> sourcesAtBudget,
                  Set<String> reachable) {
    }

    /**
     * Engram's answer to one question, as the API serves it: {@code GET …/memories?k=K} ranks with k = K
     * (recall@k, tokens of the top k), {@code GET …/context} ranks with {@code retrieval.max.k} and
     * keeps what its context block fits in each budget ({@link ContextBlock}).
     *
     * @param rank the question's ranking for a list of k memories ({@code GET …/memories?k=K})
     * @param context the question's ranking for a context block ({@code GET …/context}, asked for {@code maxK})
     * @param maxK {@code retrieval.max.k}
     * @param sources what a memory cites (e.g. LoCoMo dia_ids, MemoryBank message ids)
     * @param asked every memory of the users asked (any status); the ACTIVE ones are what is reachable
     * @param evidenceOf turns a set of cited ids into the evidence ids it covers (identity when they are the same)
     * @return the answer
     */
    static Answer engram(final IntFunction<List<ScoredMemory>> rank, final IntFunction<List<ScoredMemory>> context,
                         final int maxK,
                         final Function<Memory, Set<String>> sources, final Collection<Memory> asked,
                         final UnaryOperator<Set<String>> evidenceOf) {
        final List<Set<String>> atK = new ArrayList<>();
        final List<Integer> tokens = new ArrayList<>();
        for (final int k : KS) {
            final List<ScoredMemory> hits = rank.apply(k);
            final Set<String> union = new HashSet<>();
            hits.forEach(h -> union.addAll(sources.apply(h.memory())));
            atK.add(evidenceOf.apply(union));
            tokens.add(ContextBlock.build(hits, Integer.MAX_VALUE).estimatedTokens());
        }
        final List<ScoredMemory> deep = context.apply(maxK);
        final Map<String, Set<String>> sourcesById = new HashMap<>();
        deep.forEach(h -> sourcesById.put(h.memory().getMemoryId(), sources.apply(h.memory())));
        final List<Set<String>> atBudget = new ArrayList<>();
        for (final int budget : BUDGETS) {
            final Set<String> union = new HashSet<>();
            ContextBlock.build(deep, budget).included().forEach(id -> union.addAll(sourcesById.get(id)));
            atBudget.add(evidenceOf.apply(union));
        }
        final Set<String> reachable = new HashSet<>();
        asked.stream().filter(m -> m.getStatus() == MemoryStatus.ACTIVE).forEach(m -> reachable.addAll(sources.apply(m)));
        return new Answer(atK, tokens, atBudget, evidenceOf.apply(reachable));
    }

    /** Sums for one group of questions (all, or one category). */
    private static final class Sums {
        private int questions;
        private final double[] recallAtK = new double[KS.size()];
        private final double[] turnsAtK = new double[KS.size()];
        private final double[] tokensAtK = new double[KS.size()];
        private final double[] recallAtBudget = new double[BUDGETS.size()];
        private double reachable;

        void add(final Set<String> evidence, final Answer a) {
            questions++;
            reachable += recall(evidence, a.reachable());
            for (int i = 0; i < KS.size(); i++) {
                recallAtK[i] += recall(evidence, a.sourcesAtK().get(i));
                turnsAtK[i] += a.sourcesAtK().get(i).size();
                tokensAtK[i] += a.tokensAtK().get(i);
            }
            for (int i = 0; i < BUDGETS.size(); i++) {
                recallAtBudget[i] += recall(evidence, a.sourcesAtBudget().get(i));
            }
        }

        Map<String, Object> figures(final boolean detail) {
            final Map<String, Object> f = new LinkedHashMap<>();
            final double n = Math.max(1, questions);
            for (int i = 0; i < KS.size(); i++) {
                f.put("recall@" + KS.get(i), BenchReport.round(recallAtK[i] / n, 4));
            }
            final Map<String, Object> budgets = new LinkedHashMap<>();
            for (int i = 0; i < BUDGETS.size(); i++) {
                budgets.put(String.valueOf(BUDGETS.get(i)), BenchReport.round(recallAtBudget[i] / n, 4));
            }
            f.put("recallAtTokens", budgets);
            if (detail) {
                final Map<String, Object> turns = new LinkedHashMap<>();
                final Map<String, Object> tokens = new LinkedHashMap<>();
                for (int i = 0; i < KS.size(); i++) {
                    turns.put(String.valueOf(KS.get(i)), BenchReport.round(turnsAtK[i] / n, 2));
                    tokens.put(String.valueOf(KS.get(i)), BenchReport.round(tokensAtK[i] / n, 1));
                }
                f.put("meanSourceTurnsAtK", turns);
                f.put("meanTokensAtK", tokens);
                f.put("evidenceReachable", BenchReport.round(reachable / n, 4));
            }
            f.put("questions", questions);
            return f;
        }
    }

    private final Sums all = new Sums();
    private final Map<Integer, Sums> byCategory = new TreeMap<>();

    /**
     * @param category the question's category
     * @param evidence its evidence turns (non-empty)
     * @param answer what the system returned
     */
    void add(final int category, final Set<String> evidence, final Answer answer) {
        all.add(evidence, answer);
        byCategory.computeIfAbsent(category, c -> new Sums()).add(evidence, answer);
    }

    /**
     * @return {@code recall@1…recall@25, recallAtTokens{256…2048}, meanSourceTurnsAtK, meanTokensAtK,
     *     questions, byCategory{"1":{recall@k…, recallAtTokens, meanSourceTurnsAtK, meanTokensAtK, questions}}}}
     */
    Map<String, Object> figures() {
        final Map<String, Object> f = all.figures(true);
        final Map<String, Object> categories = new LinkedHashMap<>();
        byCategory.forEach((c, s) -> categories.put(String.valueOf(c), s.figures(true)));
        f.put("byCategory", categories);
        return f;
    }

    static double recall(final Set<String> evidence, final Set<String> returned) {
        int hit = 0;
        for (final String e : evidence) {
            if (returned.contains(e)) {
                hit++;
            }
        }
        return (double) hit / evidence.size();
    }

    /** @return a new list of {@link #KS}.size() empty sets' worth of prefixes from ranked items */
    static List<Set<String>> prefixSources(final List<? extends Set<String>> rankedSources) {
        final List<Set<String>> out = new ArrayList<>();
        for (final int k : KS) {
            final Set<String> union = new HashSet<>();
            for (int i = 0; i < Math.min(k, rankedSources.size()); i++) {
                union.addAll(rankedSources.get(i));
            }
            out.add(union);
        }
        return out;
    }
}
