package dev.engram.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

import dev.engram.retriever.ContextBlock;
import dev.engram.scoring.Bm25;
import dev.engram.scoring.Vectors;

/**
 * The raw documents a baseline ranks for one question (LoCoMo turns, MemoryBank query/response pairs):
 * dense order by cosine, BM25 order ({@link Bm25}, score &gt; 0), and what a ranking returns at each k
 * and token budget. Tokens: the top documents joined by newlines, {@link ContextBlock#estimateTokens};
 * a budget is filled greedily in rank order like {@link ContextBlock} (a document that does not fit is
 * skipped, a shorter later one may fit).
 */
final class RawDocuments {

    /**
     * One document.
     *
     * @param text what is embedded, indexed and counted
     * @param sources the ids it returns when ranked (turn ids, message ids)
     */
    record Doc(String text, Set<String> sources) {
    }

    private final List<Doc> docs;
    private final List<float[]> vectors;
    private final Bm25 index;

    /**
     * @param docs the documents
     * @param vectors their embeddings, same order
     */
    RawDocuments(final List<Doc> docs, final List<float[]> vectors) {
        this.docs = List.copyOf(docs);
        this.vectors = List.copyOf(vectors);
        this.index = Bm25.index(docs.stream().map(Doc::text).toList());
    }

    /** @return positions by descending cosine to the query vector, ties by position */
    List<Integer> dense(final float[] query) {
        final double[] cos = new double[docs.size()];
        final List<Integer> order = new ArrayList<>();
        for (int i = 0; i < docs.size(); i++) {
            cos[i] = Vectors.cosine(query, vectors.get(i));
            order.add(i);
        }
        order.sort(Comparator.<Integer>comparingDouble(i -> -cos[i]).thenComparing(i -> i));
        return order;
    }

    /** @return positions with a positive BM25 score, best first, ties by position */
    List<Integer> lexical(final String query) {
        final double[] scores = index.scores(query);
        final List<Integer> order = new ArrayList<>();
        for (int i = 0; i < docs.size(); i++) {
            if (scores[i] > 0) {
                order.add(i);
            }
        }
        order.sort(Comparator.<Integer>comparingDouble(i -> -scores[i]).thenComparing(i -> i));
        return order;
    }

    /**
     * @param order a ranking of positions
     * @param found maps the union of returned sources to what counts as found (identity for LoCoMo turn
     *     ids; the satisfied evidence items for MemoryBank)
     * @return what the ranking returns at each k and budget, and everything it could return
     */
    RecallEvaluation.Answer answer(final List<Integer> order, final UnaryOperator<Set<String>> found) {
        final List<Set<String>> atK = new ArrayList<>();
        final List<Integer> tokens = new ArrayList<>();
        for (final int k : RecallEvaluation.KS) {
            final Set<String> sources = new HashSet<>();
            final StringBuilder text = new StringBuilder();
            for (int i = 0; i < Math.min(k, order.size()); i++) {
                sources.addAll(docs.get(order.get(i)).sources());
                text.append(docs.get(order.get(i)).text()).append('\n');
            }
            atK.add(found.apply(sources));
            tokens.add(ContextBlock.estimateTokens(text.toString()));
        }
        final List<Set<String>> atBudget = new ArrayList<>();
        for (final int budget : RecallEvaluation.BUDGETS) {
            int chars = 0;
            final Set<String> sources = new HashSet<>();
            for (final int i : order) {
                final int line = docs.get(i).text().length() + 1;
                // ceil((chars + line) / 4) is ContextBlock.estimateTokens of the joined text
                if ((chars + line + 3) / 4 <= budget) {
                    chars += line;
                    sources.addAll(docs.get(i).sources());
                }
            }
            atBudget.add(found.apply(sources));
        }
        final Set<String> all = new HashSet<>();
        docs.forEach(d -> all.addAll(d.sources()));
        return new RecallEvaluation.Answer(atK, tokens, atBudget, found.apply(all));
    }
}
