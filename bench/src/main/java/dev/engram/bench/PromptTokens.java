package dev.engram.bench;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The token estimate of the replayed LLM endpoints ({@link LoCoMoReplay}, {@link ConsistencyReplay}): ⌈chars / 4⌉ per
 * text, the estimate the extractor's chunker uses; a chat request's prompt is 3 + Σ over its messages
 * (⌈chars / 4⌉ + 4) + the JSON schema of its {@code response_format}.
 */
final class PromptTokens {

    private PromptTokens() {
    }

    /**
     * @param request an OpenAI-style chat completion request
     * @return its estimated prompt tokens
     */
    static int of(final JsonNode request) {
        int tokens = 3;
        for (final JsonNode m : request.path("messages")) {
            tokens += of(m.path("content").asText("")) + 4;
        }
        final JsonNode schema = request.path("response_format").path("json_schema");
        if (!schema.isMissingNode()) {
            tokens += of(schema.toString());
        }
        return tokens;
    }

    /**
     * @param text any text
     * @return ⌈chars / 4⌉
     */
    static int of(final String text) {
        return (text.length() + 3) / 4;
    }
}
