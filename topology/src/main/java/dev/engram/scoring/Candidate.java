package dev.engram.scoring;

import java.util.Comparator;

import dev.engram.avro.Memory;

/**
 * A relevant memory before the priors: its relevance logit and the fields the priors read.
 *
 * @param memory the memory (for the answer)
 * @param logit its {@link RelevanceModel} logit
 * @param importance its importance
 * @param lastAccessed lastAccessedAt in epoch ms, {@link Long#MIN_VALUE} when unknown
 * @param accessCount its access count
 */
record Candidate(Memory memory, double logit, double importance, long lastAccessed, int accessCount) {

    /** Best relevance first, ties by memory id. */
    static final Comparator<Candidate> BY_RELEVANCE = Comparator.comparingDouble((Candidate c) -> -c.logit())
        .thenComparing(c -> c.memory().getMemoryId());
}
