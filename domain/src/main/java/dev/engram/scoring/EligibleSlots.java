package dev.engram.scoring;

import java.util.function.Predicate;

import dev.engram.avro.Memory;

/**
 * The slots of a kept index one ranking reads, with the BM25 statistics of that set: the ACTIVE slots (the kept
 * counts, nothing computed), or the memories a predicate accepts (a question about the past: ACTIVE and earlier values,
 * {@link PastCues#eligible}; an audit read: valid at {@code asOf}), counted per request in one pass over the slots. BM25
 * over the set is what exhaustive scoring of the same memories computes (n, average length and document frequency of
 * that set, {@link Bm25}), so the indexed path ranks such a question exactly as {@link ExhaustiveRanking} did,
 * without copying the vectors or analysing the texts again per request: at 10,000 memories per user, that copy and
 * analysis was ~15 MB of float arrays and 10,000 texts tokenized per request, 0.3–1 s each, and its promoted garbage set
 * off full collections (the sweep's p99 of 283–529 ms in {@code bench retrieval}, BENCHMARKS.md).
 *
 * <p>Used under the index's read lock; not thread-safe (the mask is the calling thread's {@link IndexScratch}).
 */
final class EligibleSlots {

    private final UserMemoryIndex.View view;
    /** Per slot whether it is read; null: the ACTIVE slots. */
    private final boolean[] mask;
    private final int count;
    private final long length;

    private EligibleSlots(final UserMemoryIndex.View view, final boolean[] mask, final int count, final long length) {
        this.view = view;
        this.mask = mask;
        this.count = count;
        this.length = length;
    }

    /**
     * @param view a read view
     * @return its ACTIVE slots, with the kept statistics
     */
    static EligibleSlots active(final UserMemoryIndex.View view) {
        return new EligibleSlots(view, null, view.activeCount(), view.activeLength());
    }

    /**
     * @param view a read view
     * @param eligible which memories (any status) are read
     * @param mask the calling thread's mask, at least {@link UserMemoryIndex.View#slots()} long (overwritten)
     * @return the slots whose memory {@code eligible} accepts, counted in one pass
     */
    static EligibleSlots matching(final UserMemoryIndex.View view, final Predicate<Memory> eligible, final boolean[] mask) {
        int count = 0;
        long length = 0;
        for (int s = 0; s < view.slots(); s++) {
            final Memory memory = view.memory(s);
            mask[s] = memory != null && eligible.test(memory);
            if (mask[s]) {
                count++;
                length += view.length(s);
            }
        }
        return new EligibleSlots(view, mask, count, length);
    }

    /**
     * @param slot a slot below {@link UserMemoryIndex.View#slots()}
     * @return whether the ranking reads it
     */
    boolean test(final int slot) {
        return mask == null ? view.active(slot) : mask[slot];
    }

    /** @return BM25's n: memories read */
    int count() {
        return count;
    }

    /** @return their summed BM25 length (terms) */
    long length() {
        return length;
    }

    /**
     * @param postings a term's postings
     * @return its document frequency among the slots read
     */
    int df(final Postings postings) {
        if (mask == null) {
            return postings.activeDf;
        }
        int df = 0;
        for (int i = 0; i < postings.count; i++) {
            if (mask[postings.slots[i]]) {
                df++;
            }
        }
        return df;
    }
}
