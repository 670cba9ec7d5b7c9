package dev.engram.bench;

import java.util.HashSet;
import java.util.Set;

/** Overlap of two statements' content-word sets, as the replayed LLM judge compares them. */
final class WordSets {

    private WordSets() {
    }

    /**
     * @param a one statement's content words
     * @param b the other's
     * @param minWords the fewest words the shorter set must have
     * @return true when the shorter set has at least {@code minWords} words and all of them are in the longer one
     */
    static boolean contained(final Set<String> a, final Set<String> b, final int minWords) {
        final Set<String> shorter = a.size() <= b.size() ? a : b;
        return shorter.size() >= minWords && (shorter == a ? b : a).containsAll(shorter);
    }

    /**
     * @param a one set
     * @param b another
     * @return |a ∩ b| / |a ∪ b|, 0 when either is empty (Jaccard, 1901)
     */
    static double jaccard(final Set<String> a, final Set<String> b) {
        if (a.isEmpty() || b.isEmpty()) {
            return 0;
        }
        final Set<String> both = new HashSet<>(a);
        both.retainAll(b);
        return (double) both.size() / (a.size() + b.size() - both.size());
    }
}
