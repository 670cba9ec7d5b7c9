package dev.engram.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.avro.Memory;
import dev.engram.core.UserKey;
import dev.engram.domain.DomainConfig;
import dev.engram.retriever.OwnNames;
import dev.engram.avro.SourceRef;
import dev.engram.config.EngramConfig;
import dev.engram.port.Embedder;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.ScoredMemory;
import dev.engram.scoring.RankRequest;

/**
 * The LoCoMo evidence recall of Engram's memories and of the raw-turn baselines (dense, BM25, their RRF fusion), per
 * question category and token budget: what {@code bench quality} prints and its test checks.
 */
final class LoCoMoRecall {

    /** RRF constant of the fusion baseline (Cormack et al. 2009). */
    static final int RRF_K = 60;
    private static final Pattern SESSION = Pattern.compile(":session_(\\d+)$");

    private LoCoMoRecall() {
    }

    /**
     * Scores Engram and the baselines.
     *
     * @param samples LoCoMo samples
     * @param memories Engram's memories by user id ({@code <sample_id>:<speaker>})
     * @param embedder the model of the memories' embeddings
     * @param config the retriever's config (weights)
     * @return {@code engram, baselineRawTurns, baselineBm25, baselineRrf}, each as {@link RecallEvaluation#figures()}
     */
    static Map<String, Object> evaluate(final List<LoCoMoQa.Sample> samples, final Map<String, List<Memory>> memories,
                                        final Embedder embedder, final EngramConfig config) {
        return evaluate(samples, memories, embedder, config, miss -> { }, true);
    }

    /**
     * As {@link #evaluate(List, Map, Embedder, EngramConfig)}, and hands every question whose evidence Engram's top 10
     * does not all hold to {@code misses} ({@link #miss}): what {@code bench quality --misses FILE} writes.
     *
     * @param misses receives one map per missed question
     * @param baselines whether to rank the raw-turn baselines too (else only {@code engram} is in the figures)
     * @return the figures
     */
    static Map<String, Object> evaluate(final List<LoCoMoQa.Sample> samples, final Map<String, List<Memory>> memories,
                                        final Embedder embedder, final EngramConfig config,
                                        final java.util.function.Consumer<Map<String, Object>> misses,
                                        final boolean baselines) {
        final HybridScorer scorer = new HybridScorer(embedder, config);
        final int maxK = config.getInt(DomainConfig.MAX_K);
        final RecallEvaluation engram = new RecallEvaluation();
        final RecallEvaluation dense = new RecallEvaluation();
        final RecallEvaluation bm25 = new RecallEvaluation();
        final RecallEvaluation rrf = new RecallEvaluation();
        for (final LoCoMoQa.Sample sample : samples) {
            final List<String> texts = sample.turns().stream().map(LoCoMoQa.Turn::text).toList();
            final List<float[]> vectors = baselines ? embedder.embedAll(texts) : List.of();
            final Map<List<String>, RawDocuments> pools = new HashMap<>();
            for (final LoCoMoQa.Question q : sample.questions()) {
                final float[] qv = embedder.embedQuery(q.question());
                final List<Memory> asked = new ArrayList<>();
                q.speakers().forEach(speaker -> asked.addAll(memories.getOrDefault(sample.userId(speaker), List.of())));
                final RecallEvaluation.Answer answer = RecallEvaluation.engram(k -> merged(sample, q, qv, memories, scorer, k),
                    k -> merged(sample, q, qv, memories, scorer, k, false),
                    maxK, m -> sources(sample, m), asked, evidence -> evidence);
                engram.add(q.category(), q.evidence(), answer);
                final Set<String> atTen = answer.sourcesAtK().get(RecallEvaluation.KS.indexOf(10));
                if (!atTen.containsAll(q.evidence())) {
                    misses.accept(miss(sample, q, merged(sample, q, qv, memories, scorer, 10), atTen, asked));
                }
                if (!baselines) {
                    continue;
                }
                final RawDocuments pool = pools.computeIfAbsent(q.speakers(), s -> pool(sample, s, vectors));
                final List<Integer> denseOrder = pool.dense(qv);
                final List<Integer> lexicalOrder = pool.lexical(q.question());
                dense.add(q.category(), q.evidence(), pool.answer(denseOrder, s -> s));
                bm25.add(q.category(), q.evidence(), pool.answer(lexicalOrder, s -> s));
                rrf.add(q.category(), q.evidence(), pool.answer(fuse(denseOrder, lexicalOrder), s -> s));
            }
        }
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put("engram", engram.figures());
        if (baselines) {
            f.put("baselineRawTurns", dense.figures());
            f.put("baselineBm25", bm25.figures());
            f.put("baselineRrf", rrf.figures());
        }
        return f;
    }

    /**
     * Each asked user's top k, merged by score (ties by id), top k. A question about two speakers asks both users'
     * memories, and a memory both hold with the same content (the session summary the LLM path gives each of
     * them) is counted once, at its better rank: as a bot that asks for both users would show it once; the copy
     * cites the same turns, so it only took a slot from another hit.
     */
    static List<ScoredMemory> merged(final LoCoMoQa.Sample sample, final LoCoMoQa.Question q, final float[] qv,
                                             final Map<String, List<Memory>> memories, final HybridScorer scorer,
                                             final int k) {
        return merged(sample, q, qv, memories, scorer, k, true);
    }

    /**
     * As {@link #merged(LoCoMoQa.Sample, LoCoMoQa.Question, float[], Map, HybridScorer, int)}; {@code list} false ranks
     * as a context block does (no hit left out for an observation above it, {@link HybridScorer#forList}).
     */
    static List<ScoredMemory> merged(final LoCoMoQa.Sample sample, final LoCoMoQa.Question q, final float[] qv,
                                     final Map<String, List<Memory>> memories, final HybridScorer scorer,
                                     final int k, final boolean list) {
        final java.util.function.UnaryOperator<java.util.function.IntFunction<List<ScoredMemory>>> as =
            rank -> list ? n -> scorer.forList(rank, n) : rank;
        final List<ScoredMemory> hits = new ArrayList<>();
        for (final String speaker : q.speakers()) {
            // as the API does: the asked user's own name is not a search term (OwnNames)
            final List<Memory> own = memories.getOrDefault(sample.userId(speaker), List.of());
            final String text = OwnNames.strip(q.question(), new UserKey("locomo", sample.userId(speaker)), null);
            // a context block ranks without the observation lift (RankRequest#forContext)
            final java.util.function.UnaryOperator<RankRequest> mode = list ? r -> r : RankRequest::forContext;
            hits.addAll(text.equals(q.question())
                ? as.apply(n -> scorer.rank(mode.apply(RankRequest.of(q.question(), n).memories(own).queryVector(qv)))).apply(k)
                : as.apply(n -> scorer.rank(mode.apply(RankRequest.of(text, n).memories(own)))).apply(k));
        }
        hits.sort(Comparator.comparingDouble((ScoredMemory h) -> -h.score()).thenComparing(h -> h.memory().getMemoryId()));
        final Set<String> shown = new HashSet<>();
        final List<ScoredMemory> out = new ArrayList<>(k);
        for (final ScoredMemory hit : hits) {
            if (out.size() == k) {
                break;
            }
            if (shown.add(hit.memory().getContent().strip())) {
                out.add(hit);
            }
        }
        return List.copyOf(out);
    }

    /**
     * @return one missed question: {@code sample, category, question, evidence [{id, speaker, text, found, citedBy
     *     [memory names of the ACTIVE memories citing it]}], top10 [{name, score, content, sources}]}
     */
    private static Map<String, Object> miss(final LoCoMoQa.Sample sample, final LoCoMoQa.Question q,
                                            final List<ScoredMemory> top, final Set<String> found,
                                            final List<Memory> asked) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("sample", sample.sampleId());
        m.put("category", q.category());
        m.put("question", q.question());
        final List<Map<String, Object>> evidence = new ArrayList<>();
        for (final String id : new java.util.TreeSet<>(q.evidence())) {
            final Map<String, Object> e = new LinkedHashMap<>();
            e.put("id", id);
            sample.turns().stream().filter(t -> t.diaId().equals(id)).findFirst().ifPresent(t -> {
                e.put("speaker", t.speaker());
                e.put("text", t.text());
            });
            e.put("found", found.contains(id));
            e.put("citedBy", asked.stream().filter(a -> a.getStatus() == dev.engram.avro.MemoryStatus.ACTIVE)
                .filter(a -> sources(sample, a).contains(id)).map(a -> a.getDisplayName() + ": " + a.getContent()).toList());
            evidence.add(e);
        }
        m.put("evidence", evidence);
        final List<Map<String, Object>> hits = new ArrayList<>();
        for (final ScoredMemory h : top) {
            final Map<String, Object> hit = new LinkedHashMap<>();
            hit.put("name", h.memory().getDisplayName());
            hit.put("score", BenchReport.round(h.score(), 4));
            hit.put("content", h.memory().getContent());
            hit.put("sources", new java.util.TreeSet<>(sources(sample, h.memory())));
            hits.add(hit);
        }
        m.put("top10", hits);
        return m;
    }

    /** @return the dia_ids a memory cites */
    static Set<String> sources(final LoCoMoQa.Sample sample, final Memory m) {
        final Set<String> out = new HashSet<>();
        for (final SourceRef ref : m.getSources()) {
            final Matcher matcher = SESSION.matcher(ref.getConversationId());
            if (!matcher.find()) {
                continue;
            }
            final int session = Integer.parseInt(matcher.group(1));
            for (final Integer index : ref.getMessageIndexes()) {
                final String id = sample.diaId(session, index);
                if (id != null) {
                    out.add(id);
                }
            }
        }
        return out;
    }

    /** Reciprocal-rank fusion of two rankings (positions into the same pool), best first. */
    static List<Integer> fuse(final List<Integer> a, final List<Integer> b) {
        final Map<Integer, Double> fused = new HashMap<>();
        for (int r = 0; r < a.size(); r++) {
            fused.merge(a.get(r), 1.0 / (RRF_K + r + 1), Double::sum);
        }
        for (int r = 0; r < b.size(); r++) {
            fused.merge(b.get(r), 1.0 / (RRF_K + r + 1), Double::sum);
        }
        final List<Integer> order = new ArrayList<>(fused.keySet());
        order.sort(Comparator.<Integer>comparingDouble(i -> -fused.get(i)).thenComparing(i -> i));
        return order;
    }

    /** @return the raw turns a baseline may return for one question: the speakers' turns */
    private static RawDocuments pool(final LoCoMoQa.Sample sample, final List<String> speakers,
                                     final List<float[]> allVectors) {
        final List<RawDocuments.Doc> docs = new ArrayList<>();
        final List<float[]> vectors = new ArrayList<>();
        for (int i = 0; i < sample.turns().size(); i++) {
            final LoCoMoQa.Turn turn = sample.turns().get(i);
            if (speakers.contains(turn.speaker())) {
                docs.add(new RawDocuments.Doc(turn.text(), Set.of(turn.diaId())));
                vectors.add(allVectors.get(i));
            }
        }
        return new RawDocuments(docs, vectors);
    }
}
