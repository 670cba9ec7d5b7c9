package dev.engram.scoring;

import dev.engram.avro.Memory;

/**
 * One retrieval hit: the memory, its total score and the four weighted components (each 0..1,
 * before weighting).
 *
 * @param memory the memory (ACTIVE)
 * @param score total = w_s·semantic + w_r·recency + w_i·importance + w_a·access, 0..1 when the weights sum to 1; for a
 *     hit ranked by a relevance it borrows ({@link Borrowed}), at most just below its lender's score
 * @param semantic fused dense + BM25 relevance, 0..1 (see {@link HybridScorer}): the relevance its score was computed
 *     with (for a {@link Borrowed} hit, its own or the lent one, whichever ranks it higher)
 * @param recency exp(−days since lastAccessedAt / decay days), 0..1, from the reference time
 * @param importance the memory's importance, 0..1
 * @param access min(accessCount / saturation, 1)
 * @param borrowed for an observation or topic list that cites a statement it does not state and takes that
 *     statement's relevance ({@link ObservationLift}): both relevances and the lender; null otherwise
 */
public record ScoredMemory(Memory memory, double score, double semantic, double recency, double importance,
                           double access, Borrowed borrowed) {

    /**
     * A hit with its own relevance (nothing borrowed).
     *
     * @param memory the memory (ACTIVE)
     * @param score the total
     * @param semantic its relevance, 0..1
     * @param recency its recency, 0..1
     * @param importance its importance, 0..1
     * @param access its access component, 0..1
     */
    public ScoredMemory(final Memory memory, final double score, final double semantic, final double recency,
                        final double importance, final double access) {
        this(memory, score, semantic, recency, importance, access, null);
    }

    /**
     * The relevance of a derived memory (an observation or a topic list) that cites a message whose statement it
     * does not state: the statement's relevance is lent to it, and it ranks right below the statement, never above
     * it, unless what it states itself ranks it higher.
     *
     * @param lender the memory id of the statement whose relevance it borrows
     * @param own its own relevance, or that of the best statement it states, 0..1
     * @param lent the lender's relevance, 0..1
     */
    public record Borrowed(String lender, double own, double lent) {
    }

    /** @return id, score and content, without the embedding */
    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "ScoredMemory[%s %.3f %s]", memory.getMemoryId(), score,
            memory.getContent());
    }
}
