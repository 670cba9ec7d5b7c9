package dev.engram.scoring;

import dev.engram.avro.Memory;

/**
 * One retrieval hit: the memory, its total score and the four weighted components (each 0..1,
 * before weighting).
 *
 * @param memory the memory (ACTIVE)
 * @param score total = w_s·semantic + w_r·recency + w_i·importance + w_a·access, 0..1 when the weights sum to 1
 * @param semantic fused dense + BM25 relevance, 0..1 (see {@link HybridScorer})
 * @param recency exp(−days since lastAccessedAt / decay days), 0..1, from the reference time
 * @param importance the memory's importance, 0..1
 * @param access min(accessCount / saturation, 1)
 */
public record ScoredMemory(Memory memory, double score, double semantic, double recency, double importance,
                           double access) {

    /** @return id, score and content, without the embedding */
    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "ScoredMemory[%s %.3f %s]", memory.getMemoryId(), score,
            memory.getContent());
    }
}
