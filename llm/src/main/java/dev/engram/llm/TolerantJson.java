package dev.engram.llm;

import java.io.IOException;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Finds the JSON object in what an LLM actually returns: bare JSON, JSON in a code fence with or
 * without a language tag, JSON with prose before and after, and JSON whose string values contain
 * backticks or braces (case-06).
 *
 * <p>How: no fence stripping by pattern (which breaks on backticks inside values, on empty fences and
 * on prose inside the fence). Instead, from each {@code {} in the text, left to right, a real JSON parser
 * reads one complete value and ignores what follows; the first start that yields a complete object
 * wins. Strings are tokenised by the parser, so backticks and braces inside them are just characters.
 * Truncated JSON, an empty fence, and text without an object give {@link Optional#empty()}.
 */
public final class TolerantJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TolerantJson() {
    }

    /**
     * @param text the model's answer, possibly null
     * @return the first complete JSON object in it, or empty
     */
    public static Optional<JsonNode> firstObject(final String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        int from = text.indexOf('{');
        int tries = 0;
        while (from >= 0 && tries++ < 64) {
            final Optional<JsonNode> node = readOne(text.substring(from));
            if (node.isPresent() && node.get().isObject()) {
                return node;
            }
            from = text.indexOf('{', from + 1);
        }
        return Optional.empty();
    }

    private static Optional<JsonNode> readOne(final String text) {
        try (JsonParser parser = JSON.createParser(text)) {
            final JsonNode node = JSON.readTree(parser);
            return Optional.ofNullable(node);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
