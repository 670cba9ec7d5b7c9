package dev.engram.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.engram.llm.StubChatServer;

/**
 * The LLM of {@code bench facts}' LLM path: a {@link StubChatServer} responder that answers an extraction request
 * for a turn of the {@link FactSet} with that turn's labelled facts about the user, in the extraction answer schema,
 * written the way models vary it: every second key in display style ({@code "Hobby:Video Games"} for
 * {@code hobby:video_games}) and every third importance as a percentage (90). What the figure then measures is
 * everything between the model and the candidate: the HTTP client, the tolerant JSON reading and the item
 * validation and normalization of {@code LlmMemoryExtractor}; not a model's extraction quality, which needs a model.
 * A request for a turn the set does not have is answered with no memories and counted ({@link #unmatched()}).
 */
final class LabelledFactsResponder implements Function<JsonNode, StubChatServer.Reply> {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** A numbered line of the extraction prompt: {@code [0] user: text}. */
    private static final Pattern USER_LINE = Pattern.compile("^\\[(\\d+)] user: (.*)$", Pattern.MULTILINE);

    private final Map<String, FactSet.Sentence> byText = new HashMap<>();
    private int unmatched;

    /** @param sentences the labelled turns the stub knows */
    LabelledFactsResponder(final List<FactSet.Sentence> sentences) {
        sentences.forEach(s -> byText.put(s.text().strip(), s));
    }

    /** @return requests whose turn was not in the set */
    synchronized int unmatched() {
        return unmatched;
    }

    @Override
    public StubChatServer.Reply apply(final JsonNode request) {
        final JsonNode messages = request.path("messages");
        final String prompt = messages.path(messages.size() - 1).path("content").asText("");
        final ObjectNode answer = JSON.createObjectNode();
        final var memories = answer.putArray("memories");
        final Matcher m = USER_LINE.matcher(prompt);
        while (m.find()) {
            final FactSet.Sentence sentence = byText.get(m.group(2).strip());
            if (sentence == null) {
                synchronized (this) {
                    unmatched++;
                }
                continue;
            }
            int i = 0;
            for (final FactSet.Expected fact : sentence.userFacts()) {
                final ObjectNode item = memories.addObject();
                item.put("type", "SEMANTIC").put("category", fact.category().isEmpty() ? null : fact.category())
                    .put("key", i % 2 == 1 ? displayStyle(fact.key()) : fact.key()).put("value", fact.value())
                    .put("displayName", fact.key()).put("content", (fact.negated() ? "No longer: " : "The user's ")
                        + fact.key() + " is " + fact.value())
                    .put("importance", i % 3 == 2 ? 90 : 0.9).put("confidence", 0.9).put("source", "EXPLICIT")
                    .put("negated", fact.negated());
                item.putArray("evidence").add(Integer.parseInt(m.group(1)));
                i++;
            }
        }
        answer.putNull("summary");
        return StubChatServer.Reply.content(answer.toString());
    }

    /** @return {@code hobby:video_games} as {@code Hobby:Video Games} */
    static String displayStyle(final String key) {
        final StringBuilder out = new StringBuilder();
        boolean start = true;
        for (final char c : key.replace('_', ' ').toCharArray()) {
            out.append(start ? Character.toUpperCase(c) : c);
            start = c == ' ' || c == ':';
        }
        return out.toString();
    }
}
