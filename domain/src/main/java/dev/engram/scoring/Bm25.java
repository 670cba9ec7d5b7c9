package dev.engram.scoring;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Okapi BM25 over a small in-memory corpus built at once (one user's memories for the exhaustive
 * ranking path and the raw-turn baselines; {@link UserMemoryIndex} keeps the same statistics
 * incrementally).
 *
 * <p>score(q, d) = Σ_{t ∈ q} idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl)), with
 * k1 = 1.2, b = 0.75 (Robertson &amp; Zaragoza, "The Probabilistic Relevance Framework: BM25 and
 * Beyond", 2009; Lucene's defaults) and Lucene's non-negative idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5)).
 * A repeated query term counts once per occurrence, as in Lucene.
 *
 * <p>Terms come from {@link TextAnalysis} (Lucene's StandardTokenizer, CJK bigrams, English stopwords
 * and plural stemming), so Chinese, Japanese and Korean text is scored on character bigrams. Why
 * lexical at all: on LoCoMo, BM25 beats MiniLM dense retrieval and their fusion beats both.
 *
 * <p>Immutable and thread-safe once built.
 */
public final class Bm25 {

    /** Term-frequency saturation. */
    public static final double K1 = 1.2;
    /** Length normalization. */
    public static final double B = 0.75;

    private final List<Map<String, Integer>> termFrequencies;
    private final int[] lengths;
    private final Map<String, Integer> documentFrequencies;
    private final double averageLength;

    private Bm25(final List<Map<String, Integer>> termFrequencies, final int[] lengths,
                 final Map<String, Integer> documentFrequencies) {
        this.termFrequencies = termFrequencies;
        this.lengths = lengths;
        this.documentFrequencies = documentFrequencies;
        long total = 0;
        for (final int length : lengths) {
            total += length;
        }
        this.averageLength = lengths.length == 0 ? 0 : (double) total / lengths.length;
    }

    /**
     * Indexes a corpus.
     *
     * @param documents the documents, in order (the scores come back in the same order)
     * @return the index
     */
    public static Bm25 index(final List<String> documents) {
        final List<Map<String, Integer>> tfs = new ArrayList<>(documents.size());
        final int[] lengths = new int[documents.size()];
        final Map<String, Integer> dfs = new HashMap<>();
        for (int i = 0; i < documents.size(); i++) {
            final List<String> tokens = tokenize(documents.get(i));
            lengths[i] = tokens.size();
            final Map<String, Integer> tf = new HashMap<>();
            for (final String token : tokens) {
                tf.merge(token, 1, Integer::sum);
            }
            tf.keySet().forEach(term -> dfs.merge(term, 1, Integer::sum));
            tfs.add(tf);
        }
        return new Bm25(tfs, lengths, dfs);
    }

    /**
     * @param n documents in the corpus
     * @param df documents containing the term (0 when none)
     * @return Lucene's BM25 idf, ln(1 + (n − df + 0.5)/(df + 0.5))
     */
    public static double idf(final int n, final int df) {
        return Math.log(1 + (n - df + 0.5) / (df + 0.5));
    }

    /**
     * One term's contribution to a document's score.
     *
     * @param idf the term's idf
     * @param tf the term's frequency in the document, ≥ 1
     * @param length the document's length in terms
     * @param averageLength the corpus's average length
     * @return idf · tf·(k1+1) / (tf + k1·(1 − b + b·length/avgdl))
     */
    public static double term(final double idf, final int tf, final int length, final double averageLength) {
        final double norm = K1 * (1 - B + B * length / averageLength);
        return idf * tf * (K1 + 1) / (tf + norm);
    }

    /**
     * @param queryTerms analyzed query terms
     * @return Σ idf over the query's terms (absent terms with df = 0): the normaliser of
     *     {@link RelevanceModel}'s lexical signal; 0 for a query without terms
     */
    public double idfMass(final List<String> queryTerms) {
        double mass = 0;
        for (final String term : queryTerms) {
            mass += idf(lengths.length, documentFrequencies.getOrDefault(term, 0));
        }
        return mass;
    }

    /**
     * @param query the query text
     * @return one BM25 score (≥ 0) per document, in corpus order; 0 when no query term occurs
     */
    public double[] scores(final String query) {
        return scores(tokenize(query));
    }

    /**
     * @param queryTerms analyzed query terms ({@link #tokenize})
     * @return one BM25 score (≥ 0) per document, in corpus order; 0 when no query term occurs
     */
    public double[] scores(final List<String> queryTerms) {
        final double[] out = new double[lengths.length];
        final int n = lengths.length;
        for (final String term : queryTerms) {
            final Integer df = documentFrequencies.get(term);
            if (df == null) {
                continue;
            }
            final double idf = idf(n, df);
            for (int i = 0; i < n; i++) {
                final Integer tf = termFrequencies.get(i).get(term);
                if (tf != null) {
                    out[i] += term(idf, tf, lengths[i], averageLength);
                }
            }
        }
        return out;
    }

    /** @return the number of documents */
    public int size() {
        return lengths.length;
    }

    /**
     * @param text any text (null is empty)
     * @return its terms in order ({@link TextAnalysis#terms})
     */
    public static List<String> tokenize(final String text) {
        return TextAnalysis.terms(text);
    }
}
