package dev.engram.port;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;

/**
 * Decides whether a new statement contradicts an active memory. Called for pairs in the
 * 0.7–0.9 cosine band, and for pairs that share a fact key.
 */
public interface ContradictionJudge {

    /** The outcome of one judgement. */
    enum Verdict {
        /** the candidate states the same thing: reinforce the existing memory */
        SAME,
        /** the candidate contradicts the existing memory: the newer one supersedes the older */
        CONTRADICTS,
        /** unrelated or compatible: keep both */
        COMPATIBLE
    }

    /**
     * @param existing an active memory of the same user
     * @param candidate the new candidate
     * @param similarity cosine of their embeddings, -1..1
     * @return the verdict
     */
    Verdict judge(Memory existing, MemoryCandidate candidate, double similarity);
}
