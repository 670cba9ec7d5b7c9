package dev.engram.scoring;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

import dev.engram.avro.Memory;

/**
 * The exhaustive path of {@link HybridScorer}: every eligible memory decoded and scored from scratch (a
 * BM25 index built over them, each stored embedding normalised, every cosine computed), then the same
 * threshold, over-fetch and {@link Priors} as the kept-index path. It is the reference the kept index must
 * agree with, the "as of" audit read, and what the relevance calibration is fitted on ({@link #features}).
 */
final class ExhaustiveRanking {

    private final Function<String, RelevanceModel> relevance;
    private final double minLogit;
    private final int overfetch;
    private final Priors priors;
    private final boolean lift;

    /**
     * @param relevance a memory's embedding model → its calibration
     * @param minLogit candidates below this logit are dropped
     * @param overfetch candidates kept = overfetch·k
     * @param priors the second stage
     * @param lift whether observations take their best candidate statement's relevance ({@link ObservationLift})
     */
    ExhaustiveRanking(final Function<String, RelevanceModel> relevance, final double minLogit, final int overfetch,
                      final Priors priors, final boolean lift) {
        this.lift = lift;
        this.relevance = relevance;
        this.minLogit = minLogit;
        this.overfetch = overfetch;
        this.priors = priors;
    }

    /**
     * @param parts the question and its parts ({@link QueryParts}): a memory's relevance is the best of theirs
     * @param userMemories all memories of ONE user (the recency reference is theirs)
     * @param eligible which of them are ranked
     * @param k hits at most
     * @param minScore hits with a total below this are dropped
     * @return at most k hits, best first
     */
    List<ScoredMemory> rank(final List<QueryParts.Part> parts, final Collection<Memory> userMemories,
                            final Predicate<Memory> eligible, final int k, final double minScore) {
        final List<Memory> docs = new ArrayList<>();
        final List<float[]> vectors = new ArrayList<>();
        for (final Memory m : userMemories) {
            if (eligible.test(m)) {
                docs.add(m);
                vectors.add(normalizedEmbedding(m));
            }
        }
        return rank(parts, docs, vectors, MemoryTime.referenceTime(userMemories), k, minScore);
    }

    /** Scores every given memory from scratch; vectors normalised (null = none). */
    List<ScoredMemory> rank(final List<QueryParts.Part> parts, final List<Memory> docs, final List<float[]> vectors,
                            final Instant reference, final int k, final double minScore) {
        if (docs.isEmpty()) {
            return List.of();
        }
        final Bm25 bm25 = bm25(docs);
        final double[] logits = new double[docs.size()];
        java.util.Arrays.fill(logits, Double.NEGATIVE_INFINITY);
        for (final QueryParts.Part part : parts) {
            final double[][] features = features(part, bm25, docs, vectors);
            for (int i = 0; i < docs.size(); i++) {
                logits[i] = Math.max(logits[i], relevance.apply(docs.get(i).getEmbeddingModel()).logit(features[i][0],
                    features[i][1], features[i][2] > 0));
            }
        }
        final List<Candidate> candidates = new ArrayList<>();
        final List<Candidate> observations = new ArrayList<>();
        for (int i = 0; i < docs.size(); i++) {
            final Memory m = docs.get(i);
            final double logit = logits[i];
            final Candidate c = new Candidate(m, logit, m.getImportance(),
                m.getLastAccessedAt() == null ? Long.MIN_VALUE : m.getLastAccessedAt().toEpochMilli(),
                m.getAccessCount(), null, null, null);
            if (logit >= minLogit) {
                candidates.add(c);
            }
            if (lift && ObservationLift.lifts(m)) {
                observations.add(c);
            }
        }
        candidates.sort(Candidate.BY_RELEVANCE);
        final int fetch = Math.max(k, k * overfetch);
        final List<Candidate> top = candidates.subList(0, Math.min(fetch, candidates.size()));
        return priors.finish(ObservationLift.lift(top, observations, fetch), reference, k, minScore);
    }

    /**
     * @return per memory {cosine, BM25 / idf mass, 1 if in the named period else 0}
     */
    static double[][] features(final String query, final Function<String, float[]> queryByModel,
                               final List<Memory> docs, final List<float[]> vectors,
                               final Map<String, Double> dense) {
        final QueryParts.Part whole = new QueryParts.Part(query, TextAnalysis.terms(query),
            TimeCues.in(query).orElse(null), queryByModel, dense);
        return features(whole, bm25(docs), docs, vectors);
    }

    /** @return BM25 over the memories' searchable text */
    private static Bm25 bm25(final List<Memory> docs) {
        final List<String> contents = new ArrayList<>(docs.size());
        docs.forEach(m -> contents.add(UserMemoryIndex.searchableText(m)));
        return Bm25.index(contents);
    }

    /** @return per memory {cosine, BM25 / idf mass, 1 if in the part's period else 0} for one part of a question */
    private static double[][] features(final QueryParts.Part part, final Bm25 bm25, final List<Memory> docs,
                                       final List<float[]> vectors) {
        final double[] lexicalScores = bm25.scores(part.terms());
        final double idfMass = bm25.idfMass(part.terms());
        final Map<String, float[]> byModel = new HashMap<>();
        final double[][] out = new double[docs.size()][];
        for (int i = 0; i < docs.size(); i++) {
            final Memory m = docs.get(i);
            final float[] v = vectors.get(i);
            final double cosine;
            if (part.dense() != null) {
                cosine = part.dense().getOrDefault(m.getMemoryId(), 0.0);
            } else {
                final float[] q = v == null ? null : byModel.computeIfAbsent(
                    m.getEmbeddingModel() == null ? "" : m.getEmbeddingModel(), part.vectors());
                cosine = q != null && v.length == q.length ? Vectors.dot(q, v, 0) : 0;
            }
            out[i] = new double[] {cosine, idfMass > 0 ? lexicalScores[i] / idfMass : 0,
                part.period() != null && part.period().contains(m) ? 1 : 0};
        }
        return out;
    }

    /** @return the memory's embedding as a normalised primitive vector, null without one */
    static float[] normalizedEmbedding(final Memory m) {
        return m.getEmbedding() == null || m.getEmbedding().isEmpty() ? null
            : Vectors.normalized(Vectors.toArray(m.getEmbedding()));
    }
}
