package dev.engram.stack;

import java.io.IOException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.core.Utf8Text;
import dev.engram.stack.ConversationSources.Format;
import dev.engram.stack.ConversationSources.Outcome;
import dev.engram.stack.ConversationSources.Problem;
import dev.engram.stack.ConversationSources.Refused;
import dev.engram.stack.ConversationSources.Report;
import dev.engram.stack.ConversationSources.Sink;

/**
 * LoCoMo JSON, as {@link ConversationSources} describes it: each {@code session_<n>} of a sample becomes
 * one ConversationCompleted per speaker.
 */
final class LoCoMoFile {

    private static final Pattern SESSION_KEY = Pattern.compile("session_(\\d+)");
    /** LoCoMo session dates, e.g. {@code 1:56 pm on 8 May, 2023}. */
    private static final DateTimeFormatter LOCOMO_DATE = new DateTimeFormatterBuilder()
        .parseCaseInsensitive().appendPattern("h:mm a 'on' d MMMM, yyyy").toFormatter(Locale.ENGLISH);

    private LoCoMoFile() {
    }

    /**
     * @param text the whole file, decoded
     * @param sink receives each record with its location ({@code <sample_id>/session_<n> as <speaker>})
     * @return counts and problems
     * @throws IOException if the text is not a JSON array
     */
    static Report read(final Utf8Text.Clean text, final Sink sink) throws IOException {
        final JsonNode root = ConversationSources.JSON.readTree(text.text());
        if (root == null || !root.isArray()) {
            throw new IOException("LoCoMo input must be a JSON array of samples");
        }
        final List<Problem> problems = new ArrayList<>();
        if (text.replaced() > 0) {
            problems.add(new Problem("file", text.replaced() + " invalid UTF-8 sequence(s) replaced", Outcome.REPLACED));
        }
        int records = 0;
        int rejected = 0;
        for (final JsonNode sample : root) {
            final String sampleId = sample.path("sample_id").asText("");
            final JsonNode conversation = sample.path("conversation");
            final String speakerA = conversation.path("speaker_a").asText("");
            final String speakerB = conversation.path("speaker_b").asText("");
            final Map<Integer, JsonNode> sessions = sessions(conversation);
            if (sessions.isEmpty()) {
                // nothing silent: a sample without sessions would otherwise add nothing and say nothing
                problems.add(new Problem(sampleId.isBlank() ? "sample " + (records + rejected) : sampleId,
                    "no conversation.session_<n> array: not a LoCoMo sample", false));
                rejected++;
                continue;
            }
            for (final Map.Entry<Integer, JsonNode> session : sessions.entrySet()) {
                final String location = sampleId + "/session_" + session.getKey();
                final Instant start;
                try {
                    start = parseDate(conversation.path("session_" + session.getKey() + "_date_time").asText(""));
                } catch (DateTimeParseException e) {
                    problems.add(new Problem(location, "unreadable session date-time: " + e.getParsedString(), false));
                    rejected += 2;
                    continue;
                }
                for (final String speaker : List.of(speakerA, speakerB)) {
                    final ConversationCompleted record =
                        conversation(sampleId, session.getKey(), session.getValue(), speaker, start);
                    final String where = location + " as " + speaker;
                    try {
                        sink.accept(where, record);
                    } catch (Refused e) {
                        problems.add(new Problem(where, e.getMessage(), Outcome.REJECTED));
                        rejected++;
                        continue;
                    }
                    final String invalid = ConversationSources.invalidReason(record);
                    if (invalid != null) {
                        problems.add(new Problem(where, invalid, true));
                    }
                    records++;
                }
            }
        }
        return new Report(Format.LOCOMO, records, rejected, text.replaced(), List.copyOf(problems));
    }

    /** The {@code session_<n>} arrays of one conversation, by n ascending (not the {@code _date_time} keys). */
    private static Map<Integer, JsonNode> sessions(final JsonNode conversation) {
        final List<Map.Entry<Integer, JsonNode>> found = new ArrayList<>();
        final Iterator<Map.Entry<String, JsonNode>> fields = conversation.fields();
        while (fields.hasNext()) {
            final Map.Entry<String, JsonNode> field = fields.next();
            final Matcher m = SESSION_KEY.matcher(field.getKey());
            if (m.matches() && field.getValue().isArray()) {
                found.add(Map.entry(Integer.parseInt(m.group(1)), field.getValue()));
            }
        }
        found.sort(Map.Entry.comparingByKey(Comparator.naturalOrder()));
        final Map<Integer, JsonNode> ordered = new LinkedHashMap<>();
        found.forEach(e -> ordered.put(e.getKey(), e.getValue()));
        return ordered;
    }

    /**
     * @param text e.g. {@code 1:56 pm on 8 May, 2023}
     * @return that local time read as UTC
     * @throws DateTimeParseException if the text has another shape
     */
    static Instant parseDate(final String text) {
        return LocalDateTime.parse(text.strip(), LOCOMO_DATE).toInstant(ZoneOffset.UTC);
    }

    private static ConversationCompleted conversation(final String sampleId, final int session, final JsonNode turns,
                                                            final String speaker, final Instant start) {
        final List<Message> messages = new ArrayList<>(turns.size());
        final List<String> diaIds = new ArrayList<>(turns.size());
        Instant at = start;
        for (final JsonNode turn : turns) {
            at = start.plusSeconds(messages.size());
            final StringBuilder content = new StringBuilder(turn.path("text").asText(""));
            final String caption = turn.path("blip_caption").asText("");
            if (!caption.isBlank()) {
                content.append(" [image: ").append(caption).append(']');
            }
            messages.add(Message.newBuilder()
                .setIndex(messages.size())
                .setRole(speaker.equals(turn.path("speaker").asText()) ? "user" : "assistant")
                .setContent(content.toString())
                .setTimestamp(at)
                .build());
            diaIds.add(turn.path("dia_id").asText(""));
        }
        return ConversationCompleted.newBuilder()
            .setTenantId(ConversationSources.LOCOMO_TENANT)
            .setUserId(sampleId + ":" + speaker)
            .setConversationId(sampleId + ":session_" + session)
            .setMessages(messages)
            .setCompletedAt(at)
            .setMetadata(Map.of(ConversationSources.DIA_IDS, String.join(",", diaIds)))
            .build();
    }
}
