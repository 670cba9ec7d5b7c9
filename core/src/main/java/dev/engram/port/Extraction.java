package dev.engram.port;

import java.util.List;

/**
 * What one {@link MemoryExtractor#extract(dev.engram.avro.ConversationCompleted, dev.engram.avro.UserProfile,
 * TenantPolicy)} call gave: the memories, the name of the extractor that made them (recorded on every candidate;
 * with a spent token budget it is the offline fallback's), and what its LLM calls cost.
 *
 * @param extractor the extractor's name, e.g. {@code rule-based-v1} or {@code llm:<model>:extract-v1}
 * @param memories the memories, possibly empty
 * @param usage the LLM usage of the call, {@link Usage#NONE} for an offline extractor
 */
public record Extraction(String extractor, List<ExtractedMemory> memories, Usage usage) {

    /** Copies the list. */
    public Extraction {
        memories = List.copyOf(memories);
    }

    /**
     * The tokens one extraction spent on an LLM (every attempt, every chunk).
     *
     * @param calls chat completion requests answered (an answer re-asked for counts twice)
     * @param promptTokens the servers' {@code usage.prompt_tokens} summed (estimated where a server sent none)
     * @param completionTokens the servers' {@code usage.completion_tokens} summed
     */
    public record Usage(int calls, long promptTokens, long completionTokens) {

        /** No call. */
        public static final Usage NONE = new Usage(0, 0, 0);

        /**
         * @param other more usage
         * @return the sum
         */
        public Usage plus(final Usage other) {
            return new Usage(calls + other.calls, promptTokens + other.promptTokens,
                completionTokens + other.completionTokens);
        }

        /** @return prompt + completion tokens */
        public long tokens() {
            return promptTokens + completionTokens;
        }
    }
}
