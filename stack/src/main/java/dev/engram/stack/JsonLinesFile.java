package dev.engram.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.core.EpochMillis;
import dev.engram.core.IsoTimestamps;
import dev.engram.core.UserKey;
import dev.engram.core.Utf8Text;
import dev.engram.runtime.JsonBodies;
import dev.engram.stack.ConversationSources.Format;
import dev.engram.stack.ConversationSources.Outcome;
import dev.engram.stack.ConversationSources.Problem;
import dev.engram.stack.ConversationSources.Refused;
import dev.engram.stack.ConversationSources.Report;
import dev.engram.stack.ConversationSources.Sink;

/**
 * JSON Lines, as {@link ConversationSources} describes it: one conversation per line, read leniently so
 * that an invalid conversation still reaches the extractor's validation, and a line that cannot become
 * a record is reported by its number.
 */
final class JsonLinesFile {

    private JsonLinesFile() {
    }

    /**
     * @param in the file's bytes
     * @param sink receives each record with its location ({@code line <n>})
     * @return counts and problems
     * @throws IOException if the stream cannot be read
     */
    static Report read(final InputStream in, final Sink sink) throws IOException {
        final List<Problem> problems = new ArrayList<>();
        int records = 0;
        int rejected = 0;
        int replaced = 0;
        int lineNumber = 0;
        final java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream(1 << 12);
        boolean more = true;
        while (more) {
            buffer.reset();
            int b;
            while ((b = in.read()) != -1 && b != '\n') {
                buffer.write(b);
            }
            more = b != -1;
            if (!more && buffer.size() == 0) {
                break;
            }
            lineNumber++;
            final byte[] bytes = buffer.toByteArray();
            int length = bytes.length;
            if (length > 0 && bytes[length - 1] == '\r') {
                length--;
            }
            final int skip = lineNumber == 1 && length >= 3 && (bytes[0] & 0xFF) == 0xEF && (bytes[1] & 0xFF) == 0xBB
                && (bytes[2] & 0xFF) == 0xBF ? 3 : 0;
            final Utf8Text.Clean line = Utf8Text.decode(bytes, skip, length - skip);
            if (line.text().isBlank()) {
                continue;
            }
            final Counts counts = one("line " + lineNumber, () -> onlyObject(line.text()), line.replaced(), sink, problems);
            records += counts.records;
            rejected += counts.rejected;
            replaced += counts.replaced;
        }
        return new Report(Format.JSON_LINES, records, rejected, replaced, List.copyOf(problems));
    }

    /**
     * A JSON array of conversations, each element in the shape of one JSON Lines line (what an export of
     * conversations usually is): read as the lines are, each element reported by its position
     * ({@code element <n>}, 1-based).
     *
     * @param text the whole file, decoded (its replacements reported once, for the file)
     * @param sink receives each record with its location
     * @return counts and problems
     * @throws IOException if the text is not a JSON array
     */
    static Report readArray(final Utf8Text.Clean text, final Sink sink) throws IOException {
        final JsonNode root = ConversationSources.JSON.readTree(text.text());
        if (root == null || !root.isArray()) {
            throw new IOException("a JSON array of conversations must be one JSON array");
        }
        final List<Problem> problems = new ArrayList<>();
        if (text.replaced() > 0) {
            problems.add(new Problem("file", text.replaced() + " invalid UTF-8 sequence(s) replaced", Outcome.REPLACED));
        }
        int records = 0;
        int rejected = 0;
        int position = 0;
        for (final JsonNode element : root) {
            position++;
            final Counts counts = one("element " + position, () -> {
                if (!element.isObject()) {
                    throw new InvalidLine("not a JSON object");
                }
                return element;
            }, 0, sink, problems);
            records += counts.records;
            rejected += counts.rejected;
        }
        return new Report(Format.JSON_ARRAY, records, rejected, text.replaced(), List.copyOf(problems));
    }

    /** What one input unit became. */
    private record Counts(int records, int rejected, int replaced) {
    }

    /** Parses one input unit into its JSON object. */
    @FunctionalInterface
    private interface Unit {
        JsonNode parse() throws JsonProcessingException;
    }

    /**
     * Turns one input unit (a line, an array element) into a record and hands it to the sink; whatever goes
     * wrong is a problem at its location, never an exception that stops the file.
     */
    private static Counts one(final String location, final Unit unit, final int replacedInDecoding, final Sink sink,
                              final List<Problem> problems) {
        try {
            final Repairs repairs = new Repairs(replacedInDecoding);
            final ConversationCompleted record = fromJson(unit.parse(), repairs);
            sink.accept(location, record);
            if (repairs.count > 0) {
                problems.add(new Problem(location, repairs.count + " invalid UTF-8 sequence(s) or lone surrogate(s) replaced",
                    Outcome.REPLACED));
            }
            final String invalid = ConversationSources.invalidReason(record);
            if (invalid != null) {
                problems.add(new Problem(location, invalid, true));
            }
            return new Counts(1, 0, repairs.count);
        } catch (JsonProcessingException e) {
            problems.add(new Problem(location, "not JSON: " + e.getOriginalMessage(), false));
        } catch (InvalidLine | Refused e) {
            problems.add(new Problem(location, e.getMessage(), false));
        } catch (RuntimeException e) {
            // whatever else one unit does, the rest of the file goes on
            problems.add(new Problem(location, "cannot be read: " + e, false));
        }
        sink.rejected(location);
        return new Counts(0, 1, 0);
    }

    /**
     * @param line one line of JSON Lines
     * @return its one JSON object
     * @throws InvalidLine if it holds something else than exactly one object (e.g. two objects: JSON Lines
     *     has one value per line, and publishing one of them would drop the other silently)
     * @throws JsonProcessingException if it is not JSON
     */
    private static JsonNode onlyObject(final String line) throws JsonProcessingException {
        try (com.fasterxml.jackson.core.JsonParser parser = ConversationSources.JSON.createParser(line)) {
            final JsonNode node = ConversationSources.JSON.readTree(parser);
            if (node == null || !node.isObject()) {
                throw new InvalidLine("not a JSON object");
            }
            int values = 1;
            try {
                while (parser.nextToken() != null) {
                    ConversationSources.JSON.readTree(parser);
                    values++;
                }
            } catch (JsonProcessingException trailing) {
                throw new InvalidLine("text after the JSON object (JSON Lines holds one object per line)");
            }
            if (values > 1) {
                throw new InvalidLine(values + " JSON values on one line (JSON Lines holds one object per line; "
                    + "put each conversation on a line of its own)");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw e;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Replacements made while reading one line. */
    static final class Repairs {
        private int count;

        Repairs(final int count) {
            this.count = count;
        }
    }

    /**
     * Builds a record from one JSON object, leniently: missing strings become empty, missing
     * messages an empty list, so that an invalid conversation still reaches the extractor's
     * validation (and its dead-letter topic) instead of vanishing here.
     *
     * @throws InvalidLine if a timestamp is unreadable or out of range, or an id has a lone surrogate
     */
    static ConversationCompleted fromJson(final JsonNode node, final Repairs repairs) {
        final List<Message> messages = new ArrayList<>();
        final JsonNode list = node.path("messages");
        if (!list.isMissingNode() && !list.isNull() && !list.isArray()) {
            throw new InvalidLine("messages is not an array");
        }
        for (final JsonNode m : list) {
            final int position = messages.size();
            final JsonNode index = m.path("index");
            messages.add(Message.newBuilder()
                .setIndex(index.canConvertToInt() ? index.intValue() : position)
                .setRole(text(m, "role", "messages[" + position + "].role", repairs))
                .setContent(text(m, "content", "messages[" + position + "].content", repairs))
                .setTimestamp(instant(m.path("timestamp"), "messages[" + position + "].timestamp"))
                .build());
        }
        final JsonNode completed = node.path("completedAt");
        final Instant completedAt;
        if (!completed.isMissingNode() && !completed.isNull()) {
            completedAt = instant(completed, "completedAt");
        } else if (!messages.isEmpty()) {
            completedAt = messages.get(messages.size() - 1).getTimestamp();
        } else {
            throw new InvalidLine("neither completedAt nor messages to take the event time from");
        }
        final Map<String, String> metadata = new LinkedHashMap<>();
        node.path("metadata").fields().forEachRemaining(e -> metadata.put(e.getKey(),
            text(e.getValue(), "metadata." + e.getKey(), repairs)));
        final String tenantId = id(node, "tenantId");
        final String userId = id(node, "userId");
        requireAddressable(tenantId, userId);
        return ConversationCompleted.newBuilder()
            .setTenantId(tenantId)
            .setUserId(userId)
            .setConversationId(id(node, "conversationId"))
            .setMessages(messages)
            .setCompletedAt(completedAt)
            .setMetadata(metadata)
            // agent scope (mem0's agent_id): absent or blank = no agent
            .setAgentId(node.path("agentId").isTextual() && !node.path("agentId").asText().isBlank()
                ? text(node, "agentId", "agentId", repairs).strip() : null)
            .build();
    }

    /**
     * A text field: lone surrogates (from JSON escapes) become U+FFFD, counted in {@code repairs}; absent or null is
     * empty (the validation names what is missing).
     *
     * @throws InvalidLine if it is present but not a JSON string ({@code "content": 5}), worded as
     *     {@code POST …/conversations} refuses it ({@link JsonBodies#notAString})
     */
    private static String text(final JsonNode node, final String field, final String name, final Repairs repairs) {
        return text(node.path(field), name, repairs);
    }

    private static String text(final JsonNode value, final String name, final Repairs repairs) {
        if (!value.isMissingNode() && !value.isNull() && !value.isTextual()) {
            throw new InvalidLine(JsonBodies.notAString(name, value));
        }
        final Utf8Text.Clean clean = Utf8Text.clean(value.isMissingNode() || value.isNull() ? "" : value.asText());
        repairs.count += clean.replaced();
        return clean.text();
    }

    /**
     * An identifier field: never repaired, since two different broken ids would become the same id (and
     * two users one).
     *
     * @throws InvalidLine if it has a lone surrogate or U+FFFD
     */
    private static String id(final JsonNode node, final String field) {
        final JsonNode value = node.path(field);
        final String text = value.isMissingNode() || value.isNull() ? "" : value.asText();
        final Utf8Text.Clean clean = Utf8Text.clean(text);
        if (clean.replaced() > 0 || text.indexOf(Utf8Text.REPLACEMENT) >= 0) {
            throw new InvalidLine(field + " has invalid UTF-8 or a lone surrogate (identifiers are not repaired)");
        }
        return text;
    }

    /**
     * Refuses a tenant and user that are both given but break the {@link UserKey} rule the extractor and the
     * HTTP API apply (a {@code /} in the tenant, control characters, over 256 characters): such a record
     * could never be addressed as {@code /v1/tenants/{tenant}/users/{user}}, and its {@code tenant/user}
     * key would name another tenant. A missing or blank one is left to the extractor's dead-letter
     * topic, as before.
     *
     * @throws InvalidLine naming the rule
     */
    private static void requireAddressable(final String tenantId, final String userId) {
        if (tenantId.isBlank() || userId.isBlank()) {
            return;
        }
        try {
            new UserKey(tenantId, userId);
        } catch (IllegalArgumentException e) {
            throw new InvalidLine("invalid user key: " + e.getMessage()
                + " (the rule of the extractor and the API: a tenant has no '/', neither part has control characters "
                + "or more than 256 characters)");
        }
    }

    /** Earliest event time: Kafka record timestamps cannot be negative. */
    static final Instant MIN_TIME = Instant.EPOCH;
    /**
     * Latest event time that is read: the last instant of year 9999. A line beyond it cannot become a record; what
     * ingest publishes is bounded far tighter, by {@code input.max.future.ms} after the clock ({@link Ingest#send}).
     */
    static final Instant MAX_TIME = Instant.parse("9999-12-31T23:59:59.999Z");

    /**
     * ISO-8601 with an offset ({@code 2025-02-03T09:12:00Z}), or epoch milliseconds as a number, within
     * {@link #MIN_TIME}..{@link #MAX_TIME}; a number that looks like epoch seconds is refused
     * ({@link EpochMillis#secondsProblem}).
     */
    private static Instant instant(final JsonNode value, final String name) {
        final Instant at;
        if (value.isIntegralNumber()) {
            if (!value.canConvertToLong()) {
                throw new InvalidLine(name + " is out of range: " + value.asText() + " ms");
            }
            final String seconds = EpochMillis.secondsProblem(name, value.longValue());
            if (seconds != null) {
                throw new InvalidLine(seconds);
            }
            at = Instant.ofEpochMilli(value.longValue());
        } else if (!value.isTextual()) {
            throw new InvalidLine(name + " is missing or not an ISO-8601 timestamp");
        } else {
            try {
                at = IsoTimestamps.parse(name, value.asText());
            } catch (IllegalArgumentException e) {
                throw new InvalidLine(e.getMessage());
            }
        }
        if (at.isBefore(MIN_TIME) || at.isAfter(MAX_TIME)) {
            throw new InvalidLine(name + " is out of range: " + value.asText() + " (accepted: " + MIN_TIME + " to "
                + MAX_TIME + ")");
        }
        return at;
    }

    /** A line that cannot become a record; the message is the reason. */
    static final class InvalidLine extends RuntimeException {
        InvalidLine(final String message) {
            super(message, null, false, false);
        }
    }
}
