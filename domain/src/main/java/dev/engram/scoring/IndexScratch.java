package dev.engram.scoring;

import java.util.List;

/**
 * Per-thread scratch of the indexed path: BM25 accumulators per slot and the candidate heap, reused and
 * grown to the largest user seen, so a request allocates nothing proportional to the user's memories.
 */
final class IndexScratch {
    private static final ThreadLocal<IndexScratch> LOCAL = ThreadLocal.withInitial(IndexScratch::new);
    double[] bm25 = new double[0];
    /** Per slot, the best relevance logit over a question's parts ({@link QueryParts}). */
    double[] logits = new double[0];
    boolean[] marked = new boolean[0];
    /** Per slot whether a ranking over other slots than the ACTIVE ones reads it ({@link EligibleSlots#matching}). */
    boolean[] eligible = new boolean[0];
    int[] touched = new int[0];
    int touchedCount;
    private final CandidateHeap heap = new CandidateHeap();

    /** Resets the slots {@link #lexical} touched. */
    void clear() {
        for (int i = 0; i < touchedCount; i++) {
            bm25[touched[i]] = 0;
            marked[touched[i]] = false;
        }
        touchedCount = 0;
    }

    /**
     * @param slots the index's slot count
     * @return this thread's scratch, with room for that many slots
     */
    static IndexScratch get(final int slots) {
        final IndexScratch s = LOCAL.get();
        if (s.bm25.length < slots) {
            final int capacity = Math.max(slots, s.bm25.length * 2);
            s.bm25 = new double[capacity];
            s.logits = new double[capacity];
            s.marked = new boolean[capacity];
            s.eligible = new boolean[capacity];
            s.touched = new int[capacity];
        }
        return s;
    }

    /**
     * @param capacity candidates kept at most
     * @return the emptied heap
     */
    CandidateHeap heap(final int capacity) {
        heap.reset(capacity);
        return heap;
    }

    /**
     * BM25 ({@link Bm25#idf}, {@link Bm25#term}) of the slots read holding a query term, with the statistics of
     * those slots (n, average length, document frequency), from the postings, into {@link #bm25} (the slots touched
     * listed in {@link #touched}; {@link #clear} resets them).
     *
     * @param view the index under its read lock
     * @param terms the query's analyzed terms (repeats count, as in {@link Bm25#scores})
     * @param slots the slots the ranking reads (the ACTIVE ones, or a question's eligible memories)
     * @return the query's idf mass over those slots
     */
    double lexical(final UserMemoryIndex.View view, final List<String> terms, final EligibleSlots slots) {
        final int n = slots.count();
        final double averageLength = n == 0 ? 0 : (double) slots.length() / n;
        double idfMass = 0;
        for (final String term : terms) {
            final Postings p = view.postings(term);
            final int df = p == null ? 0 : slots.df(p);
            final double idf = Bm25.idf(n, df);
            idfMass += idf;
            if (df == 0) {
                continue;
            }
            for (int i = 0; i < p.count; i++) {
                final int slot = p.slots[i];
                if (!slots.test(slot)) {
                    continue;
                }
                if (!marked[slot]) {
                    marked[slot] = true;
                    touched[touchedCount++] = slot;
                }
                bm25[slot] += Bm25.term(idf, p.tfs[i], view.length(slot), averageLength);
            }
        }
        return idfMass;
    }
}
