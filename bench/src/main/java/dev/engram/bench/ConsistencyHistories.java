package dev.engram.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The scripted user histories of {@code bench consistency}: Engram's own test data (not LoCoMo, not MemoryBank),
 * shipped as {@value #RESOURCE} in the bench jar, or any file of the same shape ({@code --histories FILE}).
 *
 * <p>Shape: {@code {"start": ISO instant, "histories": [{"id", "events": [...], "questions": [...]}],
 * "churn": {"id", "days", "facts": [{"ask", "current": [...], "statements": [...]}]}}}. An event happens at
 * {@code start + day} days (+ {@code hour} hours, default 0) and is one of: {@code messages} (a conversation:
 * {@code {"user": text}} or {@code {"assistant": text, "echo": true|false}}, either with {@code "llm": [memories]}:
 * what a model answers for it under {@code --llm replay}), {@code correct} (a CORRECT command on
 * the user's ACTIVE memory named by {@code key} or by text it {@code contains}; {@code value} and/or
 * {@code content}), or {@code delete} (a DELETE command on the memory named the same way). A question has the text
 * to {@code ask}, its {@code current} values (any alias counts; null: nothing should be known) and its
 * {@code outdated} values (superseded, corrected, deleted or never said by the user).
 *
 * <p>The churn history: {@code days} days; each day one conversation per fact, restating it with the day's
 * statement (rotating through {@code statements}), at 09:00 + the fact's index in hours.
 */
final class ConsistencyHistories {

    /** The histories shipped with the bench. */
    static final String RESOURCE = "consistency-histories.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One message.
     *
     * @param role {@code user} or {@code assistant}
     * @param text what was said
     * @param echo whether it is the assistant restating what the user said (right or wrong)
     * @param llm what a model answers for this message in {@code --llm replay} ({@link ConsistencyReplay}): memories
     *     in the extraction answer schema, without {@code evidence} (the message's own index); null when the model
     *     extracts what the rule-based extractor does
     */
    record Line(String role, String text, boolean echo, JsonNode llm) {
        Line(final String role, final String text, final boolean echo) {
            this(role, text, echo, null);
        }
    }

    /**
     * One event of a history.
     *
     * @param at its event time
     * @param messages the conversation, or null for a command
     * @param command {@code correct} or {@code delete}, or null for a conversation
     * @param key the key of the memory a command names, or null
     * @param contains text the content of the memory a command names contains, or null
     * @param value the corrected value, or null
     * @param content the corrected content, or null
     */
    record Event(Instant at, List<Line> messages, String command, String key, String contains, String value,
                 String content) {
        boolean isCommand() {
            return command != null;
        }
    }

    /**
     * One question.
     *
     * @param ask the message the context block is asked for
     * @param current the current value's aliases; empty when nothing should be known
     * @param outdated values that must not be in the block as current
     */
    record Question(String ask, List<String> current, List<String> outdated) {
    }

    /**
     * One user's history.
     *
     * @param id the history's id (the user id is {@code consistency-<id>})
     * @param events in time order
     * @param questions asked once every event is processed
     * @param churn whether it is the churn history
     */
    record History(String id, List<Event> events, List<Question> questions, boolean churn) {
        String userId() {
            return "consistency-" + id;
        }
    }

    private ConsistencyHistories() {
    }

    /**
     * @param file a histories file, or null for the shipped {@value #RESOURCE}
     * @return the histories, the churn history last
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException if it is not of the documented shape
     */
    static List<History> load(final Path file) throws IOException {
        final JsonNode root;
        if (file != null) {
            root = JSON.readTree(Files.readString(file));
        } else {
            try (InputStream in = ConsistencyHistories.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IOException("resource " + RESOURCE + " is missing from the bench jar");
                }
                root = JSON.readTree(in);
            }
        }
        final Instant start = Instant.parse(required(root, "start").asText());
        final List<History> out = new ArrayList<>();
        for (final JsonNode h : required(root, "histories")) {
            final String id = required(h, "id").asText();
            final List<Event> events = new ArrayList<>();
            for (final JsonNode e : required(h, "events")) {
                events.add(event(id, start, e));
            }
            events.sort(java.util.Comparator.comparing(Event::at));
            final List<Question> questions = new ArrayList<>();
            for (final JsonNode q : required(h, "questions")) {
                questions.add(new Question(required(q, "ask").asText(), strings(q.get("current")), strings(q.get("outdated"))));
            }
            out.add(new History(id, events, questions, false));
        }
        if (root.hasNonNull("churn")) {
            out.add(churn(root.get("churn"), start));
        }
        return out;
    }

    private static History churn(final JsonNode churn, final Instant start) {
        final int days = required(churn, "days").asInt();
        final List<JsonNode> facts = new ArrayList<>();
        required(churn, "facts").forEach(facts::add);
        final List<Event> events = new ArrayList<>();
        final List<Question> questions = new ArrayList<>();
        for (final JsonNode fact : facts) {
            questions.add(new Question(required(fact, "ask").asText(), strings(fact.get("current")), List.of()));
        }
        for (int day = 0; day < days; day++) {
            for (int f = 0; f < facts.size(); f++) {
                final JsonNode statements = required(facts.get(f), "statements");
                final String said = statements.get(day % statements.size()).asText();
                events.add(new Event(start.plus(Duration.ofDays(day)).plus(Duration.ofHours(f)),
                    List.of(new Line("user", said, false), new Line("assistant", "Thanks, noted!", false)),
                    null, null, null, null, null));
            }
        }
        return new History(required(churn, "id").asText(), events, questions, true);
    }

    private static Event event(final String history, final Instant start, final JsonNode e) {
        final Instant at = start.plus(Duration.ofDays(required(e, "day").asLong()))
            .plus(Duration.ofHours(e.path("hour").asLong(0)));
        if (e.has("messages")) {
            final List<Line> lines = new ArrayList<>();
            for (final JsonNode m : e.get("messages")) {
                final String role = m.has("user") ? "user" : m.has("assistant") ? "assistant" : null;
                if (role == null) {
                    throw new IllegalArgumentException("history " + history + ": a message needs \"user\" or \"assistant\": " + m);
                }
                final JsonNode llm = m.get("llm");
                if (llm != null && !llm.isArray()) {
                    throw new IllegalArgumentException("history " + history + ": \"llm\" must be an array of memories: " + m);
                }
                lines.add(new Line(role, m.get(role).asText(), m.path("echo").asBoolean(false), llm));
            }
            return new Event(at, lines, null, null, null, null, null);
        }
        final String kind = e.has("correct") ? "correct" : e.has("delete") ? "delete" : null;
        if (kind == null) {
            throw new IllegalArgumentException("history " + history + ": an event needs messages, correct or delete: " + e);
        }
        final JsonNode c = e.get(kind);
        final Event event = new Event(at, null, kind, text(c, "key"), text(c, "contains"), text(c, "value"),
            text(c, "content"));
        if (event.key() == null && event.contains() == null) {
            throw new IllegalArgumentException("history " + history + ": " + kind + " needs \"key\" or \"contains\"");
        }
        if ("correct".equals(kind) && event.value() == null && event.content() == null) {
            throw new IllegalArgumentException("history " + history + ": correct needs \"value\" and/or \"content\"");
        }
        return event;
    }

    private static JsonNode required(final JsonNode node, final String field) {
        final JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("missing \"" + field + "\" in " + node);
        }
        return value;
    }

    private static String text(final JsonNode node, final String field) {
        return node.hasNonNull(field) ? node.get(field).asText() : null;
    }

    private static List<String> strings(final JsonNode node) {
        final List<String> out = new ArrayList<>();
        if (node != null && !node.isNull()) {
            node.forEach(n -> out.add(n.asText()));
        }
        return out;
    }
}
