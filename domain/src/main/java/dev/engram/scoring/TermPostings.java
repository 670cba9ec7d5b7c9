package dev.engram.scoring;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The lexical side of a {@link UserMemoryIndex}: term → {@link Postings} over every slot, each slot's
 * distinct terms and its BM25 length (terms after {@link TextAnalysis}), and the ACTIVE
 * slots' document frequencies and summed length, so BM25's statistics are those of the ACTIVE memories.
 * Not thread-safe: the owning index's lock guards it.
 */
final class TermPostings {

    private final Map<String, Postings> postings = new HashMap<>();
    private String[][] termsOf = new String[0][];
    private int[] length = new int[0];
    private long activeLength;

    /** @param capacity slots to make room for */
    void grow(final int capacity) {
        length = Arrays.copyOf(length, capacity);
        termsOf = Arrays.copyOf(termsOf, capacity);
    }

    /**
     * @param term an analyzed term
     * @return its postings, null when no slot holds it
     */
    Postings postings(final String term) {
        return postings.get(term);
    }

    /**
     * @param slot a slot
     * @return its BM25 document length (0 when not indexed)
     */
    int length(final int slot) {
        return length[slot];
    }

    /** @return summed BM25 length of the ACTIVE slots */
    long activeLength() {
        return activeLength;
    }

    /** Indexes a slot's text (the slot not counted ACTIVE yet). */
    void index(final int slot, final String content) {
        final List<String> terms = TextAnalysis.terms(content);
        final Map<String, Integer> tf = new LinkedHashMap<>();
        for (final String t : terms) {
            tf.merge(t, 1, Integer::sum);
        }
        final String[] distinct = new String[tf.size()];
        int i = 0;
        for (final Map.Entry<String, Integer> e : tf.entrySet()) {
            distinct[i] = e.getKey();
            postings.computeIfAbsent(e.getKey(), k -> new Postings()).add(slot, e.getValue());
            i++;
        }
        termsOf[slot] = distinct;
        length[slot] = terms.size();
    }

    /** Removes a slot's terms (the slot no longer counted ACTIVE); nothing when not indexed. */
    void unindex(final int slot) {
        final String[] terms = termsOf[slot];
        if (terms == null) {
            return;
        }
        for (final String term : terms) {
            final Postings p = postings.get(term);
            p.remove(slot);
            if (p.count == 0) {
                postings.remove(term);
            }
        }
        termsOf[slot] = null;
        length[slot] = 0;
    }

    /**
     * Moves a slot in or out of the ACTIVE statistics (total length, df).
     *
     * @param slot a slot
     * @param sign +1 in, −1 out
     */
    void count(final int slot, final int sign) {
        activeLength += (long) sign * length[slot];
        final String[] terms = termsOf[slot];
        if (terms != null) {
            for (final String term : terms) {
                postings.get(term).activeDf += sign;
            }
        }
    }
}
