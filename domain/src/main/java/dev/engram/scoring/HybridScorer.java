package dev.engram.scoring;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.config.ConfigValues;
import dev.engram.config.CoreConfig;
import dev.engram.config.InvalidSettingException;
import dev.engram.core.UserKey;
import dev.engram.domain.DomainConfig;
import dev.engram.port.Embedder;
import dev.engram.port.VectorIndex;

/**
 * Ranks one user's memories for a query: relevance chooses the candidates, the priors re-rank them.
 *
 * <ol>
 *   <li><b>Relevance</b> of every eligible memory (ACTIVE, or valid at {@code asOf}; for a question about the past,
 *       "Where did I live before Lisbon?", also the user's earlier values, {@link PastCues}): cosine = the
 *       normalised query vector · the normalised stored embedding, the query embedded by the memory's own
 *       embedding model ({@link Embedder#embedQuery(String, String)}: bge-small's query instruction; vectors
 *       of two models are never compared; 0 without a vector or for a model the embedder does not hold);
 *       lexical = BM25 ({@link Bm25}, over the {@link TextAnalysis} terms of the eligible memories'
 *       {@link UserMemoryIndex#searchableText display name and content}) / the query's idf mass; period = the question names a period and the memory's event dates fall in it
 *       ({@link TimeCues}); semantic = {@link RelevanceModel} σ(b0 + b_dense·cosine + b_lexical·lexical +
 *       b_period·period), a calibrated 0..1 estimate that the memory answers the query, with the
 *       coefficients of the memory's embedding model (cosines of two models are on different scales).
 *       Dense, lexical and time cues are fused in one score on one scale. A question that asks two things
 *       ("Which editor and what snacks?", {@link QueryParts}) gives each memory the best semantic of the whole
 *       question and each part.</li>
 *   <li><b>Candidates</b>: the memories with semantic ≥ {@code retrieval.min.relevance}, the best
 *       {@code overfetch·k} by semantic (ties by memory id). A memory below the threshold is never
 *       returned; and when not even the best candidate reaches {@code retrieval.min.top.relevance}, nothing
 *       is (the user never said anything about it), so an unrelated question gets nothing. With
 *       {@code retrieval.observation.lift} an observation then takes the relevance of the best candidate statement it
 *       cites when that is higher than its own ({@link ObservationLift}), except when ranking for a context block
 *       ({@link RankRequest#forContext}); a relevance it borrows from a statement it cites but does not state ranks it
 *       right below that statement, never above ({@link ScoredMemory.Borrowed}).</li>
 *   <li><b>Priors</b>, on the candidates only: recency = exp(−days(reference − lastAccessedAt) / decay),
 *       the reference being the newest updatedAt/lastAccessedAt among the user's memories (event time,
 *       so a replay scores the same); importance; access = min(accessCount / saturation, 1).</li>
 *   <li><b>Total</b> = (w_s·semantic + w_r·recency + w_i·importance + w_a·access) / (w_s + w_r + w_i + w_a):
 *       the weighted mean (Park et al., "Generative Agents", UIST 2023, sum relevance, recency and
 *       importance; dividing by the weights' sum keeps it in 0..1 for any weights); all-zero weights are
 *       refused at construction. Sorted by total, ties by id; those below the request's {@code minScore}
 *       are dropped (the same 0..1 scale the API reports); top k.</li>
 * </ol>
 * Two paths compute exactly this: {@link #rank(UserKey, UserMemoryIndex, String, int, double)} over the
 * kept {@link UserMemoryIndex} (a scan of contiguous vectors, the query terms' postings, a bounded heap;
 * per-thread scratch arrays, no allocation proportional to the user's memories beyond the candidates),
 * and the exhaustive {@link #rank(String, float[], Collection, int)} over decoded memories, which scores
 * every memory from scratch. Both use the same dot-product kernel ({@link Vectors#dot(float[], float[], int)})
 * and BM25 arithmetic, so they agree exactly. With a dense index (Qdrant) the cosines come from its
 * top {@code overfetch·k} hits per embedding model (others count as cosine 0).
 *
 * <p>Query vectors go through a bounded LRU ({@code retrieval.query.cache.size}), and at most
 * {@code embedding.threads} queries are embedded at once ({@link QueryVectors}). Thread-safe.
 */
public final class HybridScorer {

    private final Embedder embedder;
    private final VectorIndex denseIndex;
    private final Priors priors;
    private final int overfetch;
    private final double minLogit;
    private final RelevanceModel relevance;
    private final Map<String, RelevanceModel> relevanceByModel;
    private final QueryVectors queryVectors;
    private final ExhaustiveRanking exhaustive;
    /** As {@link #exhaustive} without {@link ObservationLift}: for a context block, or with the lift off. */
    private final ExhaustiveRanking unlifted;
    private final boolean skipObserved;
    private final boolean lift;

    /**
     * @param embedder embeds the query with the model of the memories it is compared with
     * @param config weights, decay, saturation, over-fetch factor, relevance calibration and thresholds
     * @throws InvalidSettingException when every weight is 0 or the calibration is malformed / unknown for a model
     */
    public HybridScorer(final Embedder embedder, final ConfigValues config) {
        this(embedder, config, null);
    }

    /**
     * @param embedder embeds the query with the model of the memories it is compared with
     * @param config weights, decay, saturation, over-fetch factor, relevance calibration and thresholds
     * @param denseIndex where the dense candidates come from (Qdrant), or null for exact cosine
     * @throws InvalidSettingException when every weight is 0 or the calibration is malformed / unknown for a model
     */
    public HybridScorer(final Embedder embedder, final ConfigValues config, final VectorIndex denseIndex) {
        this.embedder = embedder;
        this.denseIndex = denseIndex;
        this.priors = new Priors(config);
        this.overfetch = config.getInt(DomainConfig.OVERFETCH_FACTOR);
        this.minLogit = RelevanceModel.logitOf(config.getDouble(DomainConfig.MIN_RELEVANCE));
        final String override = config.getString(DomainConfig.RELEVANCE_CALIBRATION);
        try {
            this.relevanceByModel = RelevanceModel.forModels(embedder.models(), embedder.modelName(), override);
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException(DomainConfig.RELEVANCE_CALIBRATION, override, e.getMessage());
        }
        this.relevance = relevanceByModel.get(embedder.modelName());
        this.queryVectors = new QueryVectors(embedder, config.getInt(DomainConfig.QUERY_CACHE_SIZE),
            config.getInt(CoreConfig.EMBEDDING_THREADS));
        this.lift = config.getBoolean(DomainConfig.OBSERVATION_LIFT);
        this.exhaustive = new ExhaustiveRanking(this::relevance, minLogit, overfetch, priors, lift);
        this.unlifted = new ExhaustiveRanking(this::relevance, minLogit, overfetch, priors, false);
        this.skipObserved = config.getBoolean(DomainConfig.SKIP_OBSERVED);
    }

    /** @return the relevance calibration of the default embedding model */
    public RelevanceModel relevance() {
        return relevance;
    }

    /**
     * @param model an embedding model
     * @return its relevance calibration; the default model's for a model the embedder does not hold
     *     (whose memories have no dense relevance)
     */
    public RelevanceModel relevance(final String model) {
        return model == null ? relevance : relevanceByModel.getOrDefault(model, relevance);
    }

    /**
     * @param query a query text
     * @return its normalised vector by the default model, from the LRU of recent queries or embedded now (once)
     */
    public float[] queryVector(final String query) {
        return queryVectors.get(query, embedder.modelName());
    }

    /**
     * @param query a query text
     * @param model an embedding model
     * @return the query's normalised vector by that model (cached), or null when the embedder does not hold it
     */
    public float[] queryVector(final String query, final String model) {
        return queryVectors.get(query, model);
    }

    /** @return the query-vector cache (hit and miss counts) */
    public QueryVectors queryVectors() {
        return queryVectors;
    }

    /**
     * The hits of a list of {@code k} memories ({@code GET …/memories?query=}): with {@code retrieval.skip.observed} a
     * hit that an observation ranked above it states word for word (its own words: without the {@code (re: "…")}
     * question it answered, which an observation leaves out) is left out and the next one takes its place (the
     * observation already says it; {@code Observations}), and an exchange episode ({@code User: … — Assistant: …})
     * whose user turn a statement above it is word for word takes that statement's place (it says the same and the
     * reply; the next hit takes the slot it frees), from a ranking of 2k; when nothing is left out, the hits are
     * exactly the ranking for k (the rule: {@link ListHits}). A context block ({@code GET …/context}) ranks without
     * this: it leaves out text already in the block itself, and needs the statements when their observation does not
     * fit the budget.
     *
     * <p>With a kind prior ({@code retrieval.relevance.kind.prior}, {@link dev.engram.port.KindPrior}) the list is the best
     * {@code overfetch·k} of the ranking re-scored with each hit's prior log-odds (an observation or a summary holds
     * the answer more often than a single turn at equal relevance), then the rule above. A context block ranks without
     * it: it is judged per token, and what makes an observation likelier to hold the answer, its many statements, is
     * what it costs in tokens (LoCoMo dev: R@10 up, recall within 256–1,024 tokens down with the prior; BENCHMARKS.md).
     *
     * @param rank the ranking for a number of hits (one of the {@code rank} methods)
     * @param k how many hits at most, ≥ 1
     * @return at most k hits, best first
     */
    public List<ScoredMemory> forList(final IntFunction<List<ScoredMemory>> rank, final int k) {
        requireK(k);
        if (priors.hasKindPrior()) {
            // the kind prior re-orders the ranking's best overfetch·k: a list is judged memory by memory
            final List<ScoredMemory> ranked = priors.withKindPrior(rank.apply(Math.max(k, k * overfetch)));
            return skipObserved ? ListHits.withoutObserved(ranked, k) : List.copyOf(ranked.subList(0, Math.min(k, ranked.size())));
        }
        final List<ScoredMemory> top = rank.apply(k);
        if (!skipObserved || ListHits.withoutObserved(top, k).equals(top)) {
            return top; // nothing to leave out: exactly the ranking for k
        }
        return ListHits.withoutObserved(rank.apply(2 * k), k);
    }

    // ---------------------------------------------------------------- indexed (fast) path

    /**
     * Ranks one user's memories: the ACTIVE ones (or those valid at {@link RankRequest#asOf}) of a kept index or of a
     * collection, by calibrated relevance (dense cosine and BM25 fused by {@link RelevanceModel}) with the priors
     * ({@link Priors}) applied to the best {@code overfetch·k}.
     *
     * @param request the query, k, and what to rank ({@link RankRequest})
     * @return at most k hits, best first; fewer (or none) when fewer memories are relevant; with {@code asOf}, a fact
     *     corrected in place after it reads as it did then ({@link MemoryTime#heldAt})
     * @throws dev.engram.port.VectorIndexUnavailableException when a dense index cannot answer now
     */
    public List<ScoredMemory> rank(final RankRequest request) {
        final List<ScoredMemory> hits = rankEligible(request);
        return request.asOf() == null ? hits : MemoryTime.heldAt(hits, request.asOf()); // a corrected fact as it read then
    }

    private List<ScoredMemory> rankEligible(final RankRequest request) {
        final String query = request.query();
        final int k = request.k();
        final boolean lifted = lift && !request.context();
        final ExhaustiveRanking ranking = lifted ? exhaustive : unlifted;
        final boolean past = request.asOf() == null && PastCues.asks(query);
        if (request.index() != null) {
            final Instant asOf = request.asOf();
            return rankIndexed(request.user(), request.index(), query, k, asOf != null ? 0 : request.minScore(), lifted,
                asOf != null ? m -> MemoryTime.validAt(m, asOf) : past ? PastCues::eligible : null);
        }
        if (request.memories() == null) {
            throw new IllegalArgumentException("nothing to rank: give the request an index or memories");
        }
        if (request.asOf() != null || past) {
            return ranking.rank(parts(query, model -> queryVector(query, model), null), request.memories(),
                past ? PastCues::eligible : m -> MemoryTime.validAt(m, request.asOf()), k, request.minScore());
        }
        if (request.queryVector() != null) {
            return rankWithVector(ranking, query, request.queryVector(), request.memories(), k, request.minScore());
        }
        return rankExhaustive(ranking, request.user(), query, request.memories(), k, request.minScore());
    }

    /**
     * @param query a question
     * @param whole its vector per embedding model
     * @param dense a part's vectors → its dense-index cosines, or null for exact cosines
     * @return the question and its parts ({@link QueryParts}), the parts embedded on demand (cached)
     */
    private List<QueryParts.Part> parts(final String query, final Function<String, float[]> whole,
                                        final Function<Function<String, float[]>, Map<String, Double>> dense) {
        return QueryParts.of(query, whole, this::queryVector, dense);
    }

    /**
     * Ranks the ACTIVE memories of a kept index, or the memories {@code eligible} accepts (a question about the past's
     * ACTIVE memories and earlier values, {@link PastCues#eligible}; those valid at {@code asOf}, an audit read) with
     * the BM25 statistics of that set ({@link EligibleSlots}): what exhaustive scoring of those memories gives, from the
     * kept vectors and postings (exact cosines: a dense index holds the ACTIVE memories only).
     *
     * @param user whose index this is (the dense index's user scope)
     * @param index the user's search structures
     * @param query the query text
     * @param k how many hits at most, ≥ 1
     * @param minScore hits with a total below this are dropped (0 keeps all)
     * @param lifted whether observations take their best candidate statement's relevance ({@link ObservationLift})
     * @param eligible which memories (any status) are ranked, or null for the ACTIVE ones
     * @return at most k hits, best first
     * @throws dev.engram.port.VectorIndexUnavailableException when a dense index cannot answer now
     */
    private List<ScoredMemory> rankIndexed(final UserKey user, final UserMemoryIndex index, final String query,
                                           final int k, final double minScore, final boolean lifted,
                                           final Predicate<Memory> eligible) {
        // embed outside the index's lock: one vector per part of the question and model the user's memories were
        // embedded with
        final List<String> models = index.models();
        final int fetch = Math.max(k, k * overfetch);
        final List<QueryParts.Part> parts = parts(query, model -> queryVector(query, model),
            denseIndex == null || eligible != null ? null : vectors -> DenseHits.of(denseIndex, user, models, vectors, fetch));
        final float[][][] vectors = new float[parts.size()][models.size()][];
        for (int p = 0; p < parts.size(); p++) {
            for (int m = 0; m < models.size(); m++) {
                vectors[p][m] = parts.get(p).vectors().apply(models.get(m));
            }
        }
        return index.read(view -> {
            final IndexScratch scratch = IndexScratch.get(view.slots());
            final EligibleSlots read = eligible == null ? EligibleSlots.active(view)
                : EligibleSlots.matching(view, eligible, scratch.eligible);
            return priors.finish(topByRelevance(view, scratch, read, models, parts, vectors, fetch, lifted),
                view.referenceTime(), k, minScore);
        });
    }

    private List<Candidate> topByRelevance(final UserMemoryIndex.View view, final IndexScratch scratch,
                                           final EligibleSlots read, final List<String> models,
                                           final List<QueryParts.Part> parts, final float[][][] queryByPart,
                                           final int fetch, final boolean lifted) {
        final int slots = view.slots();
        // the view may have seen a model since models were read: such slots have no dense relevance now
        final int known = Math.min(models.size(), view.models().size());
        final RelevanceModel[] relevanceOf = new RelevanceModel[known];
        for (int m = 0; m < known; m++) {
            relevanceOf[m] = relevance(models.get(m));
        }
        final double[] logits = scratch.logits;
        for (int p = 0; p < parts.size(); p++) {
            SlotLogits.of(view, scratch, relevanceOf, this::relevance, parts.get(p), queryByPart[p], p == 0, read);
        }
        final CandidateHeap heap = scratch.heap(fetch);
        final List<Candidate> observations = new ArrayList<>();
        for (int s = 0; s < slots; s++) {
            if (!read.test(s)) {
                continue;
            }
            final double logit = logits[s];
            // the id (a pointer chase to the memory object) only for a candidate the heap may keep
            if (logit >= minLogit && !heap.rejects(logit)) {
                heap.offer(logit, s, view.memory(s).getMemoryId());
            }
            if (lifted && view.observation(s)) {
                observations.add(Candidate.of(view, s, logit));
            }
        }
        final List<Candidate> out = new ArrayList<>(heap.size);
        for (int i = 0; i < heap.size; i++) {
            out.add(Candidate.of(view, heap.slots[i], heap.logits[i]));
        }
        out.sort(Candidate.BY_RELEVANCE);
        return ObservationLift.lift(out, observations, fetch);
    }

    // ---------------------------------------------------------------- exhaustive path

    /**
     * Ranks exhaustively, with the dense cosines from the vector index when one was given and a user named: its top
     * {@code overfetch·k} ACTIVE hits for this user per embedding model of the user's memories (the user
     * scope inside the index query).
     *
     * @param ranking with or without the observation lift
     * @param user whose memories these are, or null to score every memory's own vector
     * @param query the query text
     * @param userMemories all memories of that user (any status)
     * @param k how many hits at most, ≥ 1
     * @param minScore hits with a total below this are dropped
     * @return at most k hits, best first
     * @throws dev.engram.port.VectorIndexUnavailableException when the index cannot answer now
     */
    private List<ScoredMemory> rankExhaustive(final ExhaustiveRanking ranking, final UserKey user, final String query,
                                              final Collection<Memory> userMemories, final int k, final double minScore) {
        final List<String> models = denseIndex == null || user == null ? null : DenseHits.modelsOf(embedder, userMemories);
        return ranking.rank(parts(query, model -> queryVector(query, model), models == null ? null
                : vectors -> DenseHits.of(denseIndex, user, models, vectors, Math.max(k, k * overfetch))),
            userMemories, HybridScorer::isActive, k, minScore);
    }

    /**
     * Ranks exhaustively with a precomputed query vector of the default model and a score floor.
     *
     * @param query the query text (for BM25)
     * @param queryVector its embedding by the default model (normalised here)
     * @param userMemories all memories of ONE user
     * @param k how many hits at most, ≥ 1
     * @param minScore hits with a total below this are dropped
     * @return at most k hits, best first
     */
    private List<ScoredMemory> rankWithVector(final ExhaustiveRanking ranking, final String query, final float[] queryVector,
                                              final Collection<Memory> userMemories, final int k, final double minScore) {
        final float[] normalized = Vectors.normalized(queryVector);
        return ranking.rank(parts(query, model -> model.equals(embedder.modelName()) ? normalized : queryVector(query, model),
            null), userMemories, HybridScorer::isActive, k, minScore);
    }

    /**
     * The relevance signals of each memory, exhaustively (what {@link RelevanceModel} is fitted on): the
     * query embedded by each memory's own model.
     *
     * @param query the query text
     * @param docs the eligible memories (BM25's corpus)
     * @return per memory {cosine, BM25 / idf mass, 1 if in the named period else 0}
     */
    public double[][] features(final String query, final List<Memory> docs) {
        final List<float[]> vectors = new ArrayList<>(docs.size());
        for (final Memory m : docs) {
            vectors.add(ExhaustiveRanking.normalizedEmbedding(m));
        }
        return ExhaustiveRanking.features(query, model -> queryVector(query, model), docs, vectors, null);
    }

    // ---------------------------------------------------------------- shared

    /** @return true for an ACTIVE memory: what default retrieval considers */
    private static boolean isActive(final Memory memory) {
        return memory.getStatus() == MemoryStatus.ACTIVE;
    }

    private static void requireK(final int k) {
        if (k < 1) {
            throw new IllegalArgumentException("k must be at least 1: " + k);
        }
    }
}
