package dev.engram.stack;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
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
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;

/**
 * Reads input files of completed conversations for {@code bin/engram demo} and {@code bin/engram
 * ingest}. Two formats, told apart by content (the first non-blank character):
 *
 * <ul>
 *   <li><b>LoCoMo JSON</b> ({@code [}: an array of samples, see {@code ../shared/data/locomo/FORMAT.md}).
 *       Both speakers are users, so each {@code session_<n>} becomes one ConversationCompleted per
 *       speaker: tenant {@value #LOCOMO_TENANT}, userId {@code <sample_id>:<speaker>}, conversationId
 *       {@code <sample_id>:session_<n>}; every turn in order with index = 0-based position, role
 *       {@code user} for that speaker and {@code assistant} for the partner, content = text plus
 *       {@code " [image: <blip_caption>]"} when the turn shares an image, timestamp = the session
 *       date-time read as UTC plus one second per turn; completedAt = the last turn's timestamp;
 *       metadata {@value #DIA_IDS} = the turns' {@code dia_id}s comma-joined in message order. Sessions
 *       are found by their {@code session_<n>} keys (conv-26 has dangling {@code _date_time} keys).</li>
 *   <li><b>JSON Lines</b> ({@code {}): one ConversationCompleted per line in the JSON shape of the
 *       cases: {@code tenantId, userId, conversationId, messages[{role, content, timestamp}]} with
 *       ISO-8601 timestamps, optional message {@code index} (default: position), optional
 *       {@code completedAt} (default: the last message's timestamp), optional string map
 *       {@code metadata}. Blank lines are skipped.</li>
 * </ul>
 *
 * <p>Bad input is never silently dropped. A line that is a JSON object with parseable timestamps is
 * turned into a record even when it is invalid (blank tenant or user, no messages): it is published,
 * the extractor's validation sends it to {@code engram-extractor-dlq}, and a {@link Problem} with
 * {@code published = true} names it. A line that cannot become a record (not JSON, not an object,
 * an unreadable timestamp, a lone UTF-16 surrogate that UTF-8 cannot carry) is reported as a
 * {@link Problem} with {@code published = false} and counted in {@link Report#rejected()}.
 */
public final class ConversationSources {

    /** Tenant of every LoCoMo conversation. */
    public static final String LOCOMO_TENANT = "locomo";
    /** Metadata key of the LoCoMo turn ids, comma-joined in message order. */
    public static final String DIA_IDS = "locomo.diaIds";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SESSION_KEY = Pattern.compile("session_(\\d+)");
    /** LoCoMo session dates, e.g. {@code 1:56 pm on 8 May, 2023}. */
    private static final DateTimeFormatter LOCOMO_DATE = new DateTimeFormatterBuilder()
        .parseCaseInsensitive().appendPattern("h:mm a 'on' d MMMM, yyyy").toFormatter(Locale.ENGLISH);

    private ConversationSources() {
    }

    /** The two input formats. */
    public enum Format {
        /** An array of LoCoMo samples. */
        LOCOMO,
        /** One ConversationCompleted JSON object per line. */
        JSON_LINES
    }

    /**
     * One problem with the input.
     *
     * @param location {@code line <n>} (JSON Lines, 1-based) or {@code <sample_id>/session_<n>} (LoCoMo)
     * @param reason what is wrong
     * @param published true when a record was still published (the extractor dead-letters it)
     */
    public record Problem(String location, String reason, boolean published) {
        @Override
        public String toString() {
            return location + ": " + reason + (published ? " (published; the extractor will dead-letter it)" : " (not published)");
        }
    }

    /**
     * What a read produced.
     *
     * @param format the detected format
     * @param records records handed to the sink, invalid ones included
     * @param rejected input units (lines, sessions) that could not become a record
     * @param problems every problem, in input order
     */
    public record Report(Format format, int records, int rejected, List<Problem> problems) {
        /** @return records handed to the sink that have no problem */
        public int valid() {
            return records - (int) problems.stream().filter(Problem::published).count();
        }
    }

    /**
     * Reads a file and hands each record to {@code sink} in input order.
     *
     * @param file a LoCoMo JSON or JSON Lines file
     * @param sink receives each record
     * @return counts and problems
     * @throws IOException if the file cannot be read, or LoCoMo JSON is malformed as a whole
     */
    public static Report read(final Path file, final Consumer<ConversationCompleted> sink) throws IOException {
        final Format format = detect(file);
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return format == Format.LOCOMO ? readLoCoMo(reader, sink) : readJsonLines(new BufferedReader(reader), sink);
        }
    }

    /**
     * Reads every record of a file into a list (small files, tests).
     *
     * @param file a LoCoMo JSON or JSON Lines file
     * @return the records and the report
     * @throws IOException as {@link #read(Path, Consumer)}
     */
    public static Map.Entry<List<ConversationCompleted>, Report> readAll(final Path file) throws IOException {
        final List<ConversationCompleted> records = new ArrayList<>();
        final Report report = read(file, records::add);
        return Map.entry(records, report);
    }

    /**
     * Tells the format by the first non-blank character: {@code [} is LoCoMo, anything else JSON Lines.
     *
     * @param file the input
     * @return its format
     * @throws IOException if it cannot be read
     */
    public static Format detect(final Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            int c;
            while ((c = reader.read()) != -1) {
                if (c == '\uFEFF' || Character.isWhitespace(c)) {
                    continue;
                }
                return c == '[' ? Format.LOCOMO : Format.JSON_LINES;
            }
        }
        return Format.JSON_LINES;
    }

    /**
     * A question to show retrieval with.
     *
     * @param tenantId the tenant
     * @param userId the user whose memories are searched
     * @param query the query text
     */
    public record ExampleQuery(String tenantId, String userId, String query) {
    }

    /** Generic questions for JSON Lines inputs; they fit the shipped sample's first three users. */
    private static final List<String> GENERIC_QUERIES = List.of(
        "Which programming language should the code sample use?",
        "Which cloud provider do we deploy to?",
        "What should I cook for dinner tonight?");

    /**
     * Picks questions to demonstrate retrieval on an input: for LoCoMo, the first single-hop
     * (category 4) question of each sample that names its first speaker, asked as that speaker; for
     * JSON Lines, generic questions for the first valid users.
     *
     * @param file the input
     * @param n how many, at most
     * @return up to n questions
     * @throws IOException if the file cannot be read
     */
    public static List<ExampleQuery> exampleQueries(final Path file, final int n) throws IOException {
        final List<ExampleQuery> examples = new ArrayList<>();
        if (detect(file) == Format.LOCOMO) {
            for (final JsonNode sample : JSON.readTree(file.toFile())) {
                final String speaker = sample.path("conversation").path("speaker_a").asText("");
                for (final JsonNode qa : sample.path("qa")) {
                    final String question = qa.path("question").asText("");
                    if (examples.size() < n && qa.path("category").asInt() == 4 && !speaker.isBlank()
                        && question.contains(speaker)) {
                        examples.add(new ExampleQuery(LOCOMO_TENANT, sample.path("sample_id").asText() + ":" + speaker, question));
                        break;
                    }
                }
            }
            return examples;
        }
        final java.util.Set<String> users = new java.util.LinkedHashSet<>();
        read(file, c -> {
            if (invalidReason(c) == null && users.size() < n && users.add(c.getTenantId() + "/" + c.getUserId())) {
                examples.add(new ExampleQuery(c.getTenantId(), c.getUserId(),
                    GENERIC_QUERIES.get((users.size() - 1) % GENERIC_QUERIES.size())));
            }
        });
        return examples;
    }

    // ---------------------------------------------------------------- LoCoMo

    private static Report readLoCoMo(final Reader reader, final Consumer<ConversationCompleted> sink) throws IOException {
        final JsonNode root = JSON.readTree(reader);
        if (root == null || !root.isArray()) {
            throw new IOException("LoCoMo input must be a JSON array of samples");
        }
        final List<Problem> problems = new ArrayList<>();
        int records = 0;
        int rejected = 0;
        for (final JsonNode sample : root) {
            final String sampleId = sample.path("sample_id").asText("");
            final JsonNode conversation = sample.path("conversation");
            final String speakerA = conversation.path("speaker_a").asText("");
            final String speakerB = conversation.path("speaker_b").asText("");
            for (final Map.Entry<Integer, JsonNode> session : sessions(conversation).entrySet()) {
                final String location = sampleId + "/session_" + session.getKey();
                final Instant start;
                try {
                    start = parseLoCoMoDate(conversation.path("session_" + session.getKey() + "_date_time").asText(""));
                } catch (DateTimeParseException e) {
                    problems.add(new Problem(location, "unreadable session date-time: " + e.getParsedString(), false));
                    rejected += 2;
                    continue;
                }
                for (final String speaker : List.of(speakerA, speakerB)) {
                    final ConversationCompleted record =
                        loCoMoConversation(sampleId, session.getKey(), session.getValue(), speaker, start);
                    final String invalid = invalidReason(record);
                    if (invalid != null) {
                        problems.add(new Problem(location + " as " + speaker, invalid, true));
                    }
                    sink.accept(record);
                    records++;
                }
            }
        }
        return new Report(Format.LOCOMO, records, rejected, List.copyOf(problems));
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
    static Instant parseLoCoMoDate(final String text) {
        return LocalDateTime.parse(text.strip(), LOCOMO_DATE).toInstant(ZoneOffset.UTC);
    }

    private static ConversationCompleted loCoMoConversation(final String sampleId, final int session, final JsonNode turns,
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
            .setTenantId(LOCOMO_TENANT)
            .setUserId(sampleId + ":" + speaker)
            .setConversationId(sampleId + ":session_" + session)
            .setMessages(messages)
            .setCompletedAt(at)
            .setMetadata(Map.of(DIA_IDS, String.join(",", diaIds)))
            .build();
    }

    // ---------------------------------------------------------------- JSON Lines

    private static Report readJsonLines(final BufferedReader reader, final Consumer<ConversationCompleted> sink)
        throws IOException {
        final List<Problem> problems = new ArrayList<>();
        int records = 0;
        int rejected = 0;
        int lineNumber = 0;
        String line;
        while ((line = reader.readLine()) != null) {
            lineNumber++;
            if (line.isBlank()) {
                continue;
            }
            final String location = "line " + lineNumber;
            try {
                final JsonNode node = JSON.readTree(line);
                if (node == null || !node.isObject()) {
                    throw new InvalidLine("not a JSON object");
                }
                final ConversationCompleted record = fromJson(node);
                final String invalid = invalidReason(record);
                if (invalid != null) {
                    problems.add(new Problem(location, invalid, true));
                }
                sink.accept(record);
                records++;
            } catch (JsonProcessingException e) {
                problems.add(new Problem(location, "not JSON: " + e.getOriginalMessage(), false));
                rejected++;
            } catch (InvalidLine e) {
                problems.add(new Problem(location, e.getMessage(), false));
                rejected++;
            }
        }
        return new Report(Format.JSON_LINES, records, rejected, List.copyOf(problems));
    }

    /**
     * Builds a record from one JSON object, leniently: missing strings become empty, missing
     * messages an empty list, so that an invalid conversation still reaches the extractor's
     * validation (and its dead-letter topic) instead of vanishing here.
     *
     * @throws InvalidLine if a timestamp is unreadable or a string has a lone surrogate
     */
    static ConversationCompleted fromJson(final JsonNode node) {
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
                .setRole(text(m, "role", "messages[" + position + "].role"))
                .setContent(text(m, "content", "messages[" + position + "].content"))
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
        node.path("metadata").fields().forEachRemaining(e -> metadata.put(e.getKey(), e.getValue().asText()));
        return ConversationCompleted.newBuilder()
            .setTenantId(text(node, "tenantId", "tenantId"))
            .setUserId(text(node, "userId", "userId"))
            .setConversationId(text(node, "conversationId", "conversationId"))
            .setMessages(messages)
            .setCompletedAt(completedAt)
            .setMetadata(metadata)
            .build();
    }

    /** @return why the extractor will reject this record, or null if it looks valid */
    static String invalidReason(final ConversationCompleted record) {
        if (record.getTenantId().isBlank()) {
            return "tenantId is missing or blank";
        }
        if (record.getUserId().isBlank()) {
            return "userId is missing or blank";
        }
        if (record.getConversationId().isBlank()) {
            return "conversationId is missing or blank";
        }
        if (record.getMessages().isEmpty()) {
            return "no messages";
        }
        return null;
    }

    private static String text(final JsonNode node, final String field, final String name) {
        final JsonNode value = node.path(field);
        final String text = value.isMissingNode() || value.isNull() ? "" : value.asText();
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                // UTF-8 cannot carry it: Avro would write '?' and the record would arrive altered.
                throw new InvalidLine(name + " has a lone UTF-16 surrogate at character " + i);
            }
        }
        return text;
    }

    /** ISO-8601 with an offset ({@code 2025-02-03T09:12:00Z}), or epoch milliseconds as a number. */
    private static Instant instant(final JsonNode value, final String name) {
        if (value.isIntegralNumber()) {
            return Instant.ofEpochMilli(value.longValue());
        }
        if (!value.isTextual()) {
            throw new InvalidLine(name + " is missing or not an ISO-8601 timestamp");
        }
        try {
            return OffsetDateTime.parse(value.asText()).toInstant();
        } catch (DateTimeParseException e) {
            throw new InvalidLine(name + " is not an ISO-8601 timestamp with offset: " + value.asText());
        }
    }

    /** A line that cannot become a record; the message is the reason. */
    static final class InvalidLine extends RuntimeException {
        InvalidLine(final String message) {
            super(message, null, false, false);
        }
    }
}
