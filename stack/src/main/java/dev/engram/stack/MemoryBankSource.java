package dev.engram.stack;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.core.Languages;

/**
 * Reads MemoryBank / SiliconFriend histories ({@code ../shared/data/memorybank/FORMAT.md}): a JSON
 * object keyed by user name, each with {@code history: {"YYYY-MM-DD": [{query, response}, …]}}.
 *
 * <p>Mapping (the one FORMAT.md suggests): one ConversationCompleted per (user, day); tenant
 * {@code memorybank-<language>} with the language detected over the first user's queries
 * ({@code memorybank-en}, {@code memorybank-zh}); userId = the name trimmed (some keys carry spaces);
 * conversationId {@code <name>:<date>}; messages = query as {@code user} then response as
 * {@code assistant} for each pair, so pair {@code i} is messages {@code 2i} and {@code 2i+1}
 * ({@link #messageIndex}); timestamps = the date at {@value #HOUR}:00 UTC plus one second per message
 * (the data has no time of day).
 */
public final class MemoryBankSource {

    /** Tenant prefix; the detected language follows. */
    public static final String TENANT_PREFIX = "memorybank-";
    /** Hour of day (UTC) given to each day's conversation. */
    static final int HOUR = 12;

    private MemoryBankSource() {
    }

    /**
     * @param root a parsed JSON document
     * @return true when it is a MemoryBank history: a non-empty object whose every value has a
     *     {@code history} object
     */
    static boolean looksLike(final JsonNode root) {
        if (root == null || !root.isObject() || root.isEmpty()) {
            return false;
        }
        for (final JsonNode user : root) {
            if (!user.path("history").isObject()) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param user the user name (trimmed)
     * @param date the day, {@code YYYY-MM-DD}
     * @return the conversation id of that day
     */
    public static String conversationId(final String user, final String date) {
        return user + ":" + date;
    }

    /**
     * @param pair 0-based position of the query/response pair within its day
     * @param response true for the assistant's reply, false for the user's query
     * @return the message index in the day's conversation
     */
    public static int messageIndex(final int pair, final boolean response) {
        return 2 * pair + (response ? 1 : 0);
    }

    /**
     * @param user one user's object
     * @return the keys of its {@code history}, sorted (ISO dates sort by time)
     */
    public static List<String> days(final JsonNode user) {
        final List<String> dates = new ArrayList<>();
        user.path("history").fieldNames().forEachRemaining(dates::add);
        dates.sort(null);
        return dates;
    }

    /**
     * @param root a document for which {@link #looksLike} holds
     * @param sink receives each conversation with its location {@code <name>/<date>}, user order then date order
     * @return counts and problems (a day whose key is not a date, or that the sink refuses, is rejected and reported)
     */
    static ConversationSources.Report read(final JsonNode root, final ConversationSources.Sink sink) {
        final String tenant = TENANT_PREFIX + language(root);
        final List<ConversationSources.Problem> problems = new ArrayList<>();
        int records = 0;
        int rejected = 0;
        final Iterator<Map.Entry<String, JsonNode>> users = root.fields();
        while (users.hasNext()) {
            final Map.Entry<String, JsonNode> user = users.next();
            final String name = user.getKey().strip();
            for (final String date : days(user.getValue())) {
                final Instant start;
                try {
                    start = LocalDate.parse(date).atTime(HOUR, 0).toInstant(ZoneOffset.UTC);
                } catch (DateTimeParseException e) {
                    problems.add(new ConversationSources.Problem(name + "/" + date, "history key is not a date", false));
                    rejected++;
                    continue;
                }
                final List<Message> messages = new ArrayList<>();
                for (final JsonNode pair : user.getValue().path("history").path(date)) {
                    for (final String field : List.of("query", "response")) {
                        messages.add(Message.newBuilder().setIndex(messages.size())
                            .setRole(field.equals("query") ? "user" : "assistant")
                            .setContent(pair.path(field).asText(""))
                            .setTimestamp(start.plusSeconds(messages.size())).build());
                    }
                }
                final ConversationCompleted record = ConversationCompleted.newBuilder().setTenantId(tenant)
                    .setUserId(name).setConversationId(conversationId(name, date)).setMessages(messages)
                    .setCompletedAt(messages.isEmpty() ? start : messages.get(messages.size() - 1).getTimestamp())
                    .setMetadata(Map.of()).build();
                final String where = name + "/" + date;
                try {
                    sink.accept(where, record);
                } catch (ConversationSources.Refused e) {
                    problems.add(new ConversationSources.Problem(where, e.getMessage(), false));
                    rejected++;
                    continue;
                }
                final String invalid = ConversationSources.invalidReason(record);
                if (invalid != null) {
                    problems.add(new ConversationSources.Problem(where, invalid, true));
                }
                records++;
            }
        }
        return new ConversationSources.Report(ConversationSources.Format.MEMORYBANK, records, rejected, 0,
            List.copyOf(problems));
    }

    /** The language of the first user's queries ({@code en} when none can be told). */
    private static String language(final JsonNode root) {
        final StringBuilder text = new StringBuilder();
        for (final JsonNode day : root.elements().next().path("history")) {
            for (final JsonNode pair : day) {
                text.append(pair.path("query").asText("")).append('\n');
            }
        }
        final String detected = Languages.detect(text.toString());
        return detected == null ? "en" : detected;
    }
}
