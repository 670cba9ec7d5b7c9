package dev.engram.scoring;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Okapi BM25 over a small in-memory corpus (one user's active memories, built at query time).
 *
 * <p>score(q, d) = Σ_{t ∈ q} idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl)), with
 * k1 = 1.2, b = 0.75 (Robertson &amp; Zaragoza, "The Probabilistic Relevance Framework: BM25 and
 * Beyond", 2009; Lucene's defaults) and Lucene's non-negative idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5)).
 * A repeated query term counts once per occurrence, as in Lucene.
 *
 * <p>Tokenizer ({@link #tokenize}): lower-case (ROOT locale), split on anything that is not a letter or
 * digit (Unicode-aware, so "4417" and "São" are tokens), drop English stopwords, and strip a plural
 * "s" from tokens longer than three letters not ending in "ss" (so "codes" matches "code"). No other
 * stemming. Why lexical at all: on LoCoMo, BM25 beats MiniLM dense retrieval and their fusion beats both
 * (docs/ARCHITECTURE.md; figures in BENCHMARKS.md).
 *
 * <p>Immutable and thread-safe once built.
 */
public final class Bm25 {

    /** Term-frequency saturation. */
    public static final double K1 = 1.2;
    /** Length normalization. */
    public static final double B = 0.75;

    /** A small English stopword list (Lucene's classic English set plus pronouns and auxiliaries). */
    static final Set<String> STOPWORDS = Set.of(
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
        "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they",
        "this", "to", "was", "will", "with", "i", "me", "my", "mine", "myself", "we", "our", "you", "your",
        "he", "him", "his", "she", "her", "hers", "its", "them", "what", "which", "who", "whom", "when",
        "where", "why", "how", "do", "does", "did", "done", "have", "has", "had", "am", "were", "been",
        "being", "so", "too", "very", "can", "could", "would", "should", "about", "again", "just", "from",
        "up", "down", "out", "than", "also", "any", "some", "all");

    private final List<Map<String, Integer>> termFrequencies;
    private final int[] lengths;
    private final Map<String, Integer> documentFrequencies;
    private final double averageLength;

    private Bm25(final List<Map<String, Integer>> termFrequencies, final int[] lengths,
                 final Map<String, Integer> documentFrequencies) {
        this.termFrequencies = termFrequencies;
        this.lengths = lengths;
        this.documentFrequencies = documentFrequencies;
        double total = 0;
        for (final int length : lengths) {
            total += length;
        }
        this.averageLength = lengths.length == 0 ? 0 : total / lengths.length;
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
     * @param query the query text
     * @return one BM25 score (≥ 0) per document, in corpus order; 0 when no query term occurs
     */
    public double[] scores(final String query) {
        final double[] out = new double[lengths.length];
        final int n = lengths.length;
        for (final String term : tokenize(query)) {
            final Integer df = documentFrequencies.get(term);
            if (df == null) {
                continue;
            }
            final double idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
            for (int i = 0; i < n; i++) {
                final Integer tf = termFrequencies.get(i).get(term);
                if (tf == null) {
                    continue;
                }
                final double norm = K1 * (1 - B + B * lengths[i] / averageLength);
                out[i] += idf * tf * (K1 + 1) / (tf + norm);
            }
        }
        return out;
    }

    /** @return the number of documents */
    public int size() {
        return lengths.length;
    }

    /**
     * The tokenizer described in the class comment.
     *
     * @param text any text (null is empty)
     * @return the tokens in order, stopwords removed
     */
    public static List<String> tokenize(final String text) {
        final List<String> tokens = new ArrayList<>();
        if (text == null) {
            return tokens;
        }
        final String lower = text.toLowerCase(Locale.ROOT);
        final StringBuilder current = new StringBuilder();
        for (int i = 0; i <= lower.length(); i++) {
            final int c = i < lower.length() ? lower.codePointAt(i) : ' ';
            if (Character.isLetterOrDigit(c)) {
                current.appendCodePoint(c);
                if (Character.isSupplementaryCodePoint(c)) {
                    i++;
                }
            } else if (current.length() > 0) {
                addToken(tokens, current.toString());
                current.setLength(0);
            }
        }
        return tokens;
    }

    private static void addToken(final List<String> tokens, final String token) {
        if (STOPWORDS.contains(token)) {
            return;
        }
        if (token.length() > 3 && token.endsWith("s") && !token.endsWith("ss")
            && Character.isLetter(token.charAt(token.length() - 2))) {
            tokens.add(token.substring(0, token.length() - 1));
        } else {
            tokens.add(token);
        }
    }
}
