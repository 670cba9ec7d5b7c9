package dev.engram.scoring;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.port.Embedder;
import dev.engram.port.VectorIndex;

/**
 * Ranks one user's memories for a query: hybrid (dense + lexical) relevance, then the weighted score of docs/ARCHITECTURE.md ("Memory model").
 *
 * <ol>
 *   <li>Only ACTIVE memories are candidates. The caller passes one user's memories (the store's prefix
 *       scan for that user), so the user scope is applied before any ranking, never after top-k.</li>
 *   <li>Over-fetch: the top {@code overfetch·k} by dense cosine (the query vector against the stored
 *       embedding, the query embedded by each memory's own model; only similarity ≥ {@code retrieval.min.similarity}
 *       on the {@link SimilarityScale}) and the top {@code overfetch·k} by BM25
 *       ({@link Bm25}, score &gt; 0) over the user's active memories; their union are the candidates.</li>
 *   <li>semantic = reciprocal-rank fusion, RRF(d) = Σ_lists 1/(rrfK + rank), rank 1-based, rrfK = 60
 *       (Cormack, Clarke &amp; Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and individual rank
 *       learning methods", SIGIR 2009), divided by its maximum 2/(rrfK+1) so that first in both lists is
 *       1.0 and first in one list only is ~0.5. Chosen because on LoCoMo RRF(dense, BM25) beats either
 *       alone (figures in BENCHMARKS.md, quality), and
 *       because ranks need no calibration between cosine and BM25 scales. Then stretched over the
 *       candidates: semantic = (RRF − min) / (max − min) · max/maxPossible, min and max over this query's
 *       candidates (a single candidate keeps RRF/maxPossible). The best candidate keeps its absolute value
 *       (1.0 when first in both lists), the weakest gets 0. Why: raw RRF/maxPossible only spans ~0.4–1.0
 *       over the candidates, so 0.4·semantic moved a total by ~0.2 while the query-independent priors
 *       (0.2·recency + 0.3·importance + 0.1·access) moved it by up to 0.6 and outranked relevance; min-max
 *       scaling of the relevance component is what Park et al. do for the same score ("Generative Agents",
 *       UIST 2023). It raised every recall figure of {@code bin/engram bench quality} (BENCHMARKS.md).</li>
 *   <li>recency = exp(−days(reference − lastAccessedAt) / decayDays). The reference time is the newest
 *       event time among the user's memories (max of updatedAt and lastAccessedAt, any status), not the
 *       wall clock: a replay of the same topics gives the same scores (docs/ARCHITECTURE.md, "Event
 *       time"), and a user's memories age relative to that user's latest activity.</li>
 *   <li>importance = the memory's importance; access = min(accessCount / saturation, 1).</li>
 *   <li>total = w_s·semantic + w_r·recency + w_i·importance + w_a·access (weights from
 *       {@link EngramConfig}, defaults 0.4/0.2/0.3/0.1); sorted by total, ties by memory id; top k.</li>
 * </ol>
 * With a dense index (Qdrant, {@code vector.index=qdrant}) step 2's dense list comes from the index
 * query instead of the exact cosine scan; BM25 stays on the given memories.
 * Thread-safe (no mutable state); the embedder is called once per query.
 */
public final class HybridScorer {

    private static final double MILLIS_PER_DAY = Duration.ofDays(1).toMillis();

    private final Embedder embedder;
    private final VectorIndex denseIndex;
    private final double weightSemantic;
    private final double weightRecency;
    private final double weightImportance;
    private final double weightAccess;
    private final double decayDays;
    private final int accessSaturation;
    private final int overfetch;
    private final int rrfK;
    private final double minSimilarity;
    private final SimilarityScale scale;

    /**
     * @param embedder embeds the query with the model of the memories it is compared with
     * @param config weights, decay, saturation, over-fetch factor, RRF k and minimum similarity
     */
    public HybridScorer(final Embedder embedder, final EngramConfig config) {
        this(embedder, config, null);
    }

    /**
     * @param embedder embeds the query with the model of the memories it is compared with
     * @param config weights, decay, saturation, over-fetch factor, RRF k and minimum similarity
     * @param denseIndex where {@link #rank(UserKey, String, Collection, int)} takes the dense candidates
     *     from (Qdrant), or null for exact cosine over the given memories
     */
    public HybridScorer(final Embedder embedder, final EngramConfig config, final VectorIndex denseIndex) {
        this.embedder = embedder;
        this.denseIndex = denseIndex;
        this.weightSemantic = config.getDouble(EngramConfig.WEIGHT_SEMANTIC);
        this.weightRecency = config.getDouble(EngramConfig.WEIGHT_RECENCY);
        this.weightImportance = config.getDouble(EngramConfig.WEIGHT_IMPORTANCE);
        this.weightAccess = config.getDouble(EngramConfig.WEIGHT_ACCESS);
        this.decayDays = config.getDouble(EngramConfig.RECENCY_DECAY_DAYS);
        this.accessSaturation = config.getInt(EngramConfig.ACCESS_SATURATION);
        this.overfetch = config.getInt(EngramConfig.OVERFETCH_FACTOR);
        this.rrfK = config.getInt(EngramConfig.RRF_K);
        this.minSimilarity = config.getDouble(EngramConfig.MIN_SIMILARITY);
        this.scale = SimilarityScale.fromConfig(config);
    }

    /**
     * Ranks one user's memories for a query.
     *
     * @param query the query text
     * @param userMemories all memories of ONE user (any status; non-ACTIVE are ignored)
     * @param k how many hits at most, ≥ 1
     * @return at most k hits, best first; fewer (or none) when fewer memories are relevant
     */
    public List<ScoredMemory> rank(final String query, final Collection<Memory> userMemories, final int k) {
        return rank(query, embedder.embedQuery(query), userMemories, k);
    }

    /**
     * Ranks one user's memories for a query, with the dense candidates from the vector index when one
     * was given: its top {@code overfetch·k} ACTIVE hits for this user (the user scope inside the
     * index query), matched by id to the given memories (the read model stays the source of every
     * score component; a hit the read model does not hold yet is left out), BM25 over the given
     * memories as always. Without an index, the same as {@link #rank(String, Collection, int)}.
     *
     * @param user whose memories these are
     * @param query the query text
     * @param userMemories all memories of that user (any status)
     * @param k how many hits at most, ≥ 1
     * @return at most k hits, best first
     * @throws dev.engram.port.VectorIndexUnavailableException when the index cannot answer now
     */
    public List<ScoredMemory> rank(final UserKey user, final String query, final Collection<Memory> userMemories,
                                   final int k) {
        final QueryVectors vectors = new QueryVectors(query, embedder.embedQuery(query));
        if (denseIndex == null) {
            return rank(query, vectors, userMemories, k, HybridScorer::isActive, null);
        }
        if (k < 1) {
            throw new IllegalArgumentException("k must be at least 1: " + k);
        }
        final List<VectorIndex.Hit> hits = new ArrayList<>();
        for (final String model : modelsOf(userMemories)) {
            // one index query per model of the user's memories, each with the query embedded by that model
            hits.addAll(denseIndex.search(
                new VectorIndex.Query(user, vectors.of(model), Math.max(k, k * overfetch), true, model)));
        }
        return rank(query, vectors, userMemories, k, HybridScorer::isActive, hits);
    }

    /**
     * Ranks with a precomputed query vector.
     *
     * @param query the query text (for BM25)
     * @param queryVector its embedding
     * @param userMemories all memories of ONE user
     * @param k how many hits at most, ≥ 1
     * @return at most k hits, best first
     */
    public List<ScoredMemory> rank(final String query, final float[] queryVector,
                                   final Collection<Memory> userMemories, final int k) {
        return rank(query, new QueryVectors(query, queryVector), userMemories, k, HybridScorer::isActive, null);
    }

    /**
     * Ranks the memories that were valid at a point in event time ("what did we know at T").
     *
     * @param query the query text
     * @param userMemories all memories of ONE user, every status
     * @param k how many hits at most, ≥ 1
     * @param asOf the point in event time
     * @return at most k hits among the memories {@link #validAt valid at} {@code asOf}, best first
     */
    public List<ScoredMemory> rankAsOf(final String query, final Collection<Memory> userMemories, final int k,
                                       final Instant asOf) {
        return rank(query, new QueryVectors(query, embedder.embedQuery(query)), userMemories, k,
            m -> validAt(m, asOf), null);
    }

    /** @return true for an ACTIVE memory: what default retrieval considers */
    private static boolean isActive(final Memory memory) {
        return memory.getStatus() == MemoryStatus.ACTIVE;
    }

    /**
     * Whether a memory was known and valid at a point in event time: stated by then
     * ({@code validFrom ≤ asOf}), not yet superseded ({@code validTo} absent or after {@code asOf}),
     * and not yet archived (ACTIVE, or archived after {@code asOf}: {@code updatedAt} is its archiving time).
     *
     * @param memory a memory of any status
     * @param asOf the point in event time
     * @return true if it belongs in an answer "as of" that time
     */
    public static boolean validAt(final Memory memory, final Instant asOf) {
        return !memory.getValidFrom().isAfter(asOf)
            && (memory.getValidTo() == null || memory.getValidTo().isAfter(asOf))
            && (memory.getStatus() == MemoryStatus.ACTIVE
                || memory.getStatus() == MemoryStatus.ARCHIVED && memory.getUpdatedAt().isAfter(asOf));
    }

    /**
     * @param eligible which of the given memories may be returned
     * @param denseHits the index's dense candidates by descending similarity, or null for exact cosine
     *     over the eligible memories
     */
    private List<ScoredMemory> rank(final String query, final QueryVectors queryVectors,
                                    final Collection<Memory> userMemories, final int k,
                                    final java.util.function.Predicate<Memory> eligible,
                                    final List<VectorIndex.Hit> denseHits) {
        if (k < 1) {
            throw new IllegalArgumentException("k must be at least 1: " + k);
        }
        final List<Memory> active = new ArrayList<>();
        for (final Memory m : userMemories) {
            if (eligible.test(m)) {
                active.add(m);
            }
        }
        if (active.isEmpty()) {
            return List.of();
        }
        active.sort(Comparator.comparing(Memory::getMemoryId));
        final Instant reference = referenceTime(userMemories);
        final int fetch = Math.max(k, k * overfetch);

        final double[] cosines = new double[active.size()];
        final List<Integer> denseOrder = new ArrayList<>();
        if (denseHits == null) {
            for (int i = 0; i < active.size(); i++) {
                cosines[i] = similarity(queryVectors, active.get(i));
                if (cosines[i] >= minSimilarity) {
                    denseOrder.add(i);
                }
            }
        } else {
            final Map<String, Integer> position = new HashMap<>();
            for (int i = 0; i < active.size(); i++) {
                position.put(active.get(i).getMemoryId(), i);
                cosines[i] = Double.NEGATIVE_INFINITY;
            }
            for (final VectorIndex.Hit hit : denseHits) {
                final Integer i = position.get(hit.memory().getMemoryId());
                final double similarity = scale.querySimilarity(hit.memory().getEmbeddingModel(), hit.similarity());
                if (i != null && similarity >= minSimilarity && cosines[i] == Double.NEGATIVE_INFINITY) {
                    cosines[i] = similarity;
                    denseOrder.add(i);
                }
            }
        }
        denseOrder.sort(Comparator.<Integer>comparingDouble(i -> -cosines[i]).thenComparing(i -> i));

        final List<String> contents = new ArrayList<>(active.size());
        for (final Memory m : active) {
            contents.add(m.getContent());
        }
        final double[] lexical = Bm25.index(contents).scores(query);
        final List<Integer> lexicalOrder = new ArrayList<>();
        for (int i = 0; i < active.size(); i++) {
            if (lexical[i] > 0) {
                lexicalOrder.add(i);
            }
        }
        lexicalOrder.sort(Comparator.<Integer>comparingDouble(i -> -lexical[i]).thenComparing(i -> i));

        final Map<Integer, Double> fused = new HashMap<>();
        final Set<Integer> candidates = new LinkedHashSet<>();
        addRanks(denseOrder, fetch, fused, candidates);
        addRanks(lexicalOrder, fetch, fused, candidates);
        final double maxFused = 2.0 / (rrfK + 1);

        // min-max of the fused relevance over the candidates (see the class comment, step 3)
        double lowest = Double.MAX_VALUE;
        double highest = -Double.MAX_VALUE;
        for (final int i : candidates) {
            lowest = Math.min(lowest, fused.get(i));
            highest = Math.max(highest, fused.get(i));
        }
        final List<ScoredMemory> hits = new ArrayList<>(candidates.size());
        for (final int i : candidates) {
            final Memory m = active.get(i);
            final double semantic = highest > lowest
                ? (fused.get(i) - lowest) / (highest - lowest) * Math.min(1.0, highest / maxFused)
                : Math.min(1.0, fused.get(i) / maxFused);
            final double recency = recency(reference, m.getLastAccessedAt());
            final double importance = clamp(m.getImportance());
            final double access = Math.min(1.0, (double) Math.max(0, m.getAccessCount()) / accessSaturation);
            final double total = weightSemantic * semantic + weightRecency * recency
                + weightImportance * importance + weightAccess * access;
            hits.add(new ScoredMemory(m, total, semantic, recency, importance, access));
        }
        hits.sort(Comparator.comparingDouble((ScoredMemory h) -> -h.score())
            .thenComparing(h -> h.memory().getMemoryId()));
        return List.copyOf(hits.subList(0, Math.min(k, hits.size())));
    }

    /**
     * The reference time of recency: the newest event time among the user's memories.
     *
     * @param userMemories one user's memories
     * @return max of updatedAt and lastAccessedAt, or the epoch when there are none
     */
    public static Instant referenceTime(final Collection<Memory> userMemories) {
        Instant newest = Instant.EPOCH;
        for (final Memory m : userMemories) {
            if (m.getUpdatedAt() != null && m.getUpdatedAt().isAfter(newest)) {
                newest = m.getUpdatedAt();
            }
            if (m.getLastAccessedAt() != null && m.getLastAccessedAt().isAfter(newest)) {
                newest = m.getLastAccessedAt();
            }
        }
        return newest;
    }

    private double recency(final Instant reference, final Instant lastAccessedAt) {
        if (lastAccessedAt == null) {
            return 0;
        }
        final double days = Math.max(0, reference.toEpochMilli() - lastAccessedAt.toEpochMilli()) / MILLIS_PER_DAY;
        return Math.exp(-days / decayDays);
    }

    private void addRanks(final List<Integer> order, final int fetch, final Map<Integer, Double> fused,
                          final Set<Integer> candidates) {
        for (int rank = 1; rank <= Math.min(fetch, order.size()); rank++) {
            final int doc = order.get(rank - 1);
            fused.merge(doc, 1.0 / (rrfK + rank), Double::sum);
            candidates.add(doc);
        }
    }

    /**
     * Similarity of the query to the stored embedding, the query embedded by the memory's own model and
     * the cosine put on the thresholds' scale ({@link SimilarityScale}); a memory without a usable
     * embedding, or of a model the embedder does not hold, has no dense relevance.
     */
    private double similarity(final QueryVectors queryVectors, final Memory m) {
        final List<Float> embedding = m.getEmbedding();
        final float[] query = queryVectors.of(m.getEmbeddingModel());
        if (embedding == null || query == null || embedding.size() != query.length) {
            return Double.NEGATIVE_INFINITY;
        }
        return scale.querySimilarity(m.getEmbeddingModel(), Vectors.cosine(query, Vectors.toArray(embedding)));
    }

    /** The embedding models of a user's ACTIVE memories, the embedder's default first. */
    private List<String> modelsOf(final Collection<Memory> userMemories) {
        final Set<String> models = new LinkedHashSet<>();
        models.add(embedder.modelName());
        for (final Memory m : userMemories) {
            if (isActive(m) && embedder.models().contains(m.getEmbeddingModel())) {
                models.add(m.getEmbeddingModel());
            }
        }
        return List.copyOf(models);
    }

    /**
     * One query's vectors, one per embedding model, each embedded on first need: a memory is compared
     * only with the query as its own model embeds it (vectors of two models are never compared).
     */
    private final class QueryVectors {
        private final String query;
        private final Map<String, float[]> byModel = new HashMap<>();

        QueryVectors(final String query, final float[] defaultModelVector) {
            this.query = query;
            byModel.put(embedder.modelName(), defaultModelVector);
        }

        /** @return the query's vector for that model, or null when the embedder does not hold it */
        float[] of(final String model) {
            return byModel.computeIfAbsent(model,
                m -> embedder.models().contains(m) ? embedder.embedQuery(query, m) : null);
        }
    }

    private static double clamp(final double v) {
        return Math.max(0, Math.min(1, v));
    }
}
