package dev.engram.topology;

import java.util.List;

import dev.engram.avro.LlmUsage;
import dev.engram.avro.MemoryCandidate;

/**
 * What one conversation yields: candidates under a user key, a rejection, or nothing (and why).
 *
 * @param key user key (candidates)
 * @param timestamp record timestamp of the candidates
 * @param candidates candidates, possibly empty
 * @param usage the cost-ledger record of its LLM calls, or null when it made none
 * @param rejected the rejection, or null
 * @param nothingReason why there is no candidate ({@link ExtractionTopology#REASON_MEMORY_OFF}: skipped without
 *     an extraction call), or null
 */
record ExtractionOutcome(String key, long timestamp, List<MemoryCandidate> candidates, LlmUsage usage,
                         RejectedConversation rejected, String nothingReason) {
    static ExtractionOutcome rejected(final RejectedConversation rejected) {
        return new ExtractionOutcome(null, 0, List.of(), null, rejected, null);
    }
}
