package dev.engram.retriever;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.core.EpochMillis;
import dev.engram.core.IsoTimestamps;
import dev.engram.core.UserKey;
import dev.engram.runtime.ApiProblem;
import dev.engram.runtime.JsonBodies;
import dev.engram.validation.ConversationValidator;
import io.javalin.http.Context;

/**
 * {@code POST /v1/tenants/{tenant}/users/{user}/conversations}: a completed conversation published to
 * {@code conversations-completed} for a chat platform without a Kafka client (Python, Node, ...). Kafka stays the
 * main path; this route writes the same record a producer would: keyed by the user key {@code tenant/user}, stamped
 * with the conversation's event time, in the topic's configured value format.
 *
 * <p><b>Body</b> (the JSON Lines line of {@code bin/engram ingest}, tenant and user taken from the path):
 * {@code {"conversationId": "c-1", "messages": [{"role": "user", "content": "…", "timestamp": "2025-02-03T09:12:00Z"}],
 * "completedAt": …, "metadata": {…}}}. A timestamp is ISO-8601 with an offset or epoch milliseconds; a message
 * without one takes {@code completedAt}, and {@code completedAt} defaults to the last message's time, else to the
 * time the request was received (written into the record, so a replay sees the same time). {@code tenantId} and
 * {@code userId} may be repeated in the body only with the path's values. Unlike ingest, which lets an invalid
 * conversation reach the extractor's dead-letter topic, this route refuses it at once: a field that is not
 * understood, a wrong type or anything {@link ConversationValidator} refuses is a 400 naming the field, among them an
 * event time ({@code completedAt}, a message's {@code timestamp}) more than {@code input.max.future.ms} (1 h) after the
 * retriever's clock ({@link ConversationValidator#futureProblem}: one date ahead would age every user of its
 * partition); a record over {@code input.max.record.bytes} a 413.
 *
 * <p><b>Answer</b>: 202 {@code {"conversationId", "status": "ACCEPTED", "messages"}} once the broker has acknowledged
 * the record (a 503 with Retry-After when it could not be published). <b>Idempotent for the same content</b>: the
 * pipeline derives candidate and memory ids from tenant, user, conversation id and content, so posting the same
 * conversation again (a retry after a timeout) changes no memory; posting it again with more turns adds what the new
 * turns say; the same id with other turns adds their memories beside the first post's (it replaces nothing).
 */
final class ConversationRoute {

    private static final Set<String> FIELDS = Set.of("tenantId", "userId", "conversationId", "messages", "completedAt",
        "metadata", "agentId");
    private static final Set<String> MESSAGE_FIELDS = Set.of("index", "role", "content", "timestamp");
    /**
     * Latest event time that can be read, as ingest: the last instant of year 9999. What is accepted is bounded far
     * tighter, by {@code input.max.future.ms} after the receive time ({@link ConversationValidator#futureProblem}).
     */
    private static final Instant MAX_TIME = Instant.parse("9999-12-31T23:59:59.999Z");

    private final ApiAccess auth;
    private final CommandPublisher publisher;
    private final ConversationValidator validator;
    private final Clock clock;

    /**
     * @param auth resolves and authorizes the user of a request
     * @param publisher writes to conversations-completed
     * @param validator the extractor's checks (limits from the deployment's config)
     * @param clock the receive time, for a conversation without any timestamp
     */
    ConversationRoute(final ApiAccess auth, final CommandPublisher publisher, final ConversationValidator validator,
                      final Clock clock) {
        this.auth = auth;
        this.publisher = publisher;
        this.validator = validator;
        this.clock = clock;
    }

    /** {@code POST .../conversations}. */
    void post(final Context ctx) {
        final UserKey user = auth.user(ctx);
        final int[] replaced = {0};
        final Instant received = clock.instant();
        final ConversationCompleted conversation = parse(user, WriteRoutes.body(ctx, replaced), replaced, received,
            received.plusMillis(validator.maxFutureMs()));
        validator.problem(conversation).or(() -> validator.futureProblem(conversation, clock.millis())).ifPresent(problem -> {
            throw ApiProblem.badRequest(problem);
        });
        if (replaced[0] > 0) {
            ctx.header(WriteRoutes.REPLACED_HEADER, Integer.toString(replaced[0]));
        }
        publisher.publish(conversation);
        ctx.attribute(ApiAccess.DETAIL, "messages=" + conversation.getMessages().size());
        final Map<String, Object> body = new LinkedHashMap<>();
        body.put("conversationId", conversation.getConversationId());
        body.put("status", "ACCEPTED");
        body.put("messages", conversation.getMessages().size());
        ctx.status(202).json(body);
    }

    /**
     * @param user the user of the path
     * @param body the request's JSON object
     * @param replaced adds the count of lone surrogates replaced by U+FFFD in roles, contents and metadata
     * @param received when the request arrived: the time of a conversation that gives none
     * @return the conversation, not validated yet
     * @throws ApiProblem 400 naming the field that is unknown, of the wrong type or of another user
     */
    static ConversationCompleted parse(final UserKey user, final JsonNode body, final int[] replaced,
                                       final Instant received) {
        return parse(user, body, replaced, received, MAX_TIME);
    }

    /**
     * {@link #parse(UserKey, JsonNode, int[], Instant)} with the latest event time the route accepts, which a refusal
     * of a time that cannot be read (before 1970, after 9999) states as the end of the range.
     *
     * @param user the user of the path
     * @param body the request's JSON object
     * @param replaced adds the count of lone surrogates replaced by U+FFFD in roles, contents and metadata
     * @param received when the request arrived: the time of a conversation that gives none
     * @param latest the latest event time accepted (the receive time plus {@code input.max.future.ms})
     * @return the conversation, not validated yet
     * @throws ApiProblem 400 naming the field that is unknown, of the wrong type or of another user
     */
    static ConversationCompleted parse(final UserKey user, final JsonNode body, final int[] replaced,
                                       final Instant received, final Instant latest) {
        for (final Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            final String name = names.next();
            if (!FIELDS.contains(name)) {
                throw ApiProblem.badRequest("unknown field \"" + name + "\"; a conversation has " + sorted(FIELDS));
            }
        }
        samePath(body, "tenantId", user.tenantId());
        samePath(body, "userId", user.userId());
        final JsonNode id = body.get("conversationId");
        if (id == null || id.isNull()) {
            throw ApiProblem.badRequest("conversationId (a non-blank string) is required");
        }
        if (!id.isTextual() || id.asText().isBlank()) {
            throw ApiProblem.badRequest("conversationId must be a non-blank string, not " + JsonBodies.describe(id));
        }
        final JsonNode list = body.get("messages");
        if (list == null || list.isNull()) {
            throw ApiProblem.badRequest("messages (a non-empty array of {role, content, timestamp}) is required");
        }
        if (!list.isArray()) {
            // the field is there with another type ("messages": "hi"): say so, not that it is missing
            throw ApiProblem.badRequest("messages must be a non-empty array of {role, content, timestamp}, not "
                + JsonBodies.describe(list));
        }
        if (list.isEmpty()) {
            throw ApiProblem.badRequest("messages must be a non-empty array of {role, content, timestamp}, not an empty"
                + " array");
        }
        final Instant completed = instant(body.get("completedAt"), "completedAt", latest);
        final List<JsonNode> turns = new ArrayList<>();
        list.forEach(turns::add);
        Instant last = null;
        for (int i = 0; i < turns.size(); i++) {
            final Instant at = instant(turns.get(i).get("timestamp"), "messages[" + i + "].timestamp", latest);
            last = at != null ? at : last;
        }
        final Instant completedAt = completed != null ? completed : last != null ? last : received;
        final List<Message> messages = new ArrayList<>(turns.size());
        for (int i = 0; i < turns.size(); i++) {
            messages.add(message(turns.get(i), i, completedAt, replaced, latest));
        }
        // a memory's evidence names messages by index: a negative one or two messages of one index make it name the
        // wrong message or either; the rule ingest applies too
        ConversationValidator.indexProblem(messages).ifPresent(problem -> {
            throw ApiProblem.badRequest(problem);
        });
        return ConversationCompleted.newBuilder().setTenantId(user.tenantId()).setUserId(user.userId())
            .setConversationId(BodyText.id(id.asText(), "conversationId")).setMessages(messages).setCompletedAt(completedAt)
            .setMetadata(metadata(body.get("metadata"), replaced)).setAgentId(agent(body.get("agentId"))).build();
    }

    /** The optional {@code agentId} (mem0's agent_id): a non-blank string, or absent/null for no agent. */
    private static String agent(final JsonNode value) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual() || value.asText().isBlank()) {
            throw ApiProblem.badRequest("agentId must be a non-blank string, or absent for no agent");
        }
        return BodyText.id(value.asText().strip(), "agentId");
    }

    private static Message message(final JsonNode turn, final int position, final Instant completedAt,
                                   final int[] replaced, final Instant latest) {
        final String where = "messages[" + position + "]";
        if (!turn.isObject()) {
            throw ApiProblem.badRequest(where + " must be an object {role, content, timestamp}");
        }
        for (final Iterator<String> names = turn.fieldNames(); names.hasNext(); ) {
            final String name = names.next();
            if (!MESSAGE_FIELDS.contains(name)) {
                throw ApiProblem.badRequest("unknown field \"" + name + "\" in " + where + "; a message has "
                    + sorted(MESSAGE_FIELDS));
            }
        }
        final JsonNode index = turn.get("index");
        if (index != null && !index.isIntegralNumber()) {
            // a fraction was truncated by canConvertToInt, a string or object refused as "not an integer" unnamed
            throw ApiProblem.badRequest(where + ".index must be a whole number (the message's position), not "
                + JsonBodies.describe(index));
        }
        if (index != null && !index.canConvertToInt()) {
            throw ApiProblem.badRequest(where + ".index must be at most " + Integer.MAX_VALUE + ", was " + index);
        }
        final Instant at = instant(turn.get("timestamp"), where + ".timestamp", latest);
        return Message.newBuilder().setIndex(index != null ? index.intValue() : position)
            .setRole(text(turn.get("role"), where + ".role", replaced))
            .setContent(text(turn.get("content"), where + ".content", replaced))
            .setTimestamp(at != null ? at : completedAt).build();
    }

    private static void samePath(final JsonNode body, final String field, final String expected) {
        final JsonNode value = body.get(field);
        if (value != null && !value.isNull() && !expected.equals(value.asText())) {
            throw ApiProblem.badRequest(field + " in the body (" + value.asText() + ") is not the path's (" + expected
                + "); it may be left out");
        }
    }

    private static String text(final JsonNode value, final String name, final int[] replaced) {
        if (value == null || !value.isTextual()) {
            throw ApiProblem.badRequest(JsonBodies.notAString(name, value));
        }
        return BodyText.text(value.asText(), replaced);
    }

    private static Map<String, String> metadata(final JsonNode value, final int[] replaced) {
        final Map<String, String> metadata = new LinkedHashMap<>();
        if (value == null || value.isNull()) {
            return metadata;
        }
        if (!value.isObject()) {
            throw ApiProblem.badRequest("metadata must be an object of strings");
        }
        value.fields().forEachRemaining(e -> metadata.put(BodyText.id(e.getKey(), "a metadata key"),
            text(e.getValue(), "metadata." + e.getKey(), replaced)));
        return metadata;
    }

    /**
     * ISO-8601 with an offset, or epoch milliseconds, within 1970..9999 (Kafka timestamps are not negative; a number
     * that looks like epoch seconds is refused, {@link EpochMillis#secondsProblem}). A time
     * outside is refused stating the range the route accepts, up to {@code latest} (README trial: "out of range
     * (1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z)" for 1969 while the accepted range ended an hour from now);
     * a readable time between {@code latest} and 9999 is {@link ConversationValidator#futureProblem}'s to refuse.
     */
    private static Instant instant(final JsonNode value, final String name, final Instant latest) {
        if (value == null || value.isNull()) {
            return null;
        }
        final Instant at;
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            final String seconds = EpochMillis.secondsProblem(name, value.longValue());
            if (seconds != null) {
                throw ApiProblem.badRequest(seconds);
            }
            at = Instant.ofEpochMilli(value.longValue());
        } else if (value.isTextual()) {
            try {
                at = IsoTimestamps.parse(name, value.asText());
            } catch (IllegalArgumentException e) {
                throw ApiProblem.badRequest(e.getMessage());
            }
        } else {
            throw ApiProblem.badRequest(name + " must be an ISO-8601 timestamp with an offset or epoch milliseconds as a JSON number");
        }
        if (at.isBefore(Instant.EPOCH) || at.isAfter(MAX_TIME)) {
            throw ApiProblem.badRequest(name + " is out of range: accepted from 1970-01-01T00:00:00Z to " + latest
                + (latest.equals(MAX_TIME) ? "" : " (" + dev.engram.domain.DomainConfig.MAX_FUTURE_MS
                + " after this server's clock)"));
        }
        return at;
    }

    private static String sorted(final Set<String> names) {
        return new java.util.TreeSet<>(names).toString();
    }
}
