package dev.engram.stack;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
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
import dev.engram.core.Utf8Text;

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
 * <p>Bad input is never silently dropped, and one bad line never stops the file. A line that is a JSON
 * object with parseable timestamps is turned into a record even when it is invalid (blank tenant or user,
 * no messages): it is published, the extractor's validation sends it to {@code engram-extractor-dlq},
 * and a {@link Problem} ({@link Outcome#DEAD_LETTER}) names it. Invalid UTF-8 and lone surrogates in
 * text (content, role, metadata) are replaced with U+FFFD and counted ({@link Outcome#REPLACED},
 * {@link Report#replaced()}); in identifiers they are not repaired. A line that cannot become a record
 * (not JSON, two JSON values, not an object, an unreadable or out-of-range timestamp, a broken
 * identifier) or that the sink refuses (over the size limit) is reported with its line number
 * ({@link Outcome#REJECTED}) and counted in {@link Report#rejected()}.
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
        JSON_LINES,
        /** A MemoryBank history object keyed by user name ({@link MemoryBankSource}). */
        MEMORYBANK
    }

    /** What became of an input unit that has a problem. */
    public enum Outcome {
        /** not published: the reason says why (the exit code of {@code bin/engram ingest} says so too) */
        REJECTED,
        /** published as it is; the extractor's validation will dead-letter it */
        DEAD_LETTER,
        /** published with invalid UTF-8 or lone surrogates replaced by U+FFFD (counted) */
        REPLACED
    }

    /**
     * One problem with the input.
     *
     * @param location {@code line <n>} (JSON Lines, 1-based) or {@code <sample_id>/session_<n>} (LoCoMo)
     * @param reason what is wrong
     * @param outcome what became of it
     */
    public record Problem(String location, String reason, Outcome outcome) {
        /**
         * @param location as above
         * @param reason as above
         * @param published true for {@link Outcome#DEAD_LETTER}, false for {@link Outcome#REJECTED}
         */
        public Problem(final String location, final String reason, final boolean published) {
            this(location, reason, published ? Outcome.DEAD_LETTER : Outcome.REJECTED);
        }

        /** @return whether a record was published for it */
        public boolean published() {
            return outcome != Outcome.REJECTED;
        }

        @Override
        public String toString() {
            return location + ": " + reason + switch (outcome) {
                case REJECTED -> " (not published)";
                case DEAD_LETTER -> " (published; the extractor will dead-letter it)";
                case REPLACED -> " (published with U+FFFD in their place)";
            };
        }
    }

    /**
     * What a read produced.
     *
     * @param format the detected format
     * @param records records handed to the sink, invalid ones included
     * @param rejected input units (lines, sessions) that could not become a record, or that the sink refused
     * @param replaced invalid UTF-8 sequences and lone surrogates replaced with U+FFFD in published text
     * @param problems every problem, in input order
     */
    public record Report(Format format, int records, int rejected, int replaced, List<Problem> problems) {
        /** @return records handed to the sink that the extractor will not dead-letter */
        public int valid() {
            return records - (int) problems.stream().filter(p -> p.outcome() == Outcome.DEAD_LETTER).count();
        }
    }

    /** Receives each record with where it came from; may refuse it. */
    @FunctionalInterface
    public interface Sink {
        /**
         * @param location {@code line <n>} or {@code <sample_id>/session_<n> as <speaker>}
         * @param record the record
         * @throws Refused if the record cannot be published (e.g. over the size limit); the read reports
         *     it at its location and goes on
         */
        void accept(String location, ConversationCompleted record);
    }

    /** A sink's refusal of one record; the message is the reason. */
    public static final class Refused extends RuntimeException {
        /**
         * @param reason why, naming the limit or setting involved
         */
        public Refused(final String reason) {
            super(reason, null, false, false);
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
        return readLocated(file, (location, record) -> sink.accept(record));
    }

    /**
     * Reads a file and hands each record, with its location, to {@code sink} in input order. Bytes that
     * are not UTF-8 and lone surrogates in JSON escapes are replaced with U+FFFD and counted
     * ({@link Utf8Text}); a line that cannot become a record, or that the sink refuses, is reported by its
     * number and the rest of the file goes on.
     *
     * @param file a LoCoMo JSON or JSON Lines file
     * @param sink receives each record; may throw {@link Refused}
     * @return counts and problems
     * @throws IOException if the file cannot be read, or LoCoMo JSON is malformed as a whole
     */
    public static Report readLocated(final Path file, final Sink sink) throws IOException {
        final Format format = detect(file);
        if (format == Format.LOCOMO) {
            final Utf8Text.Clean text = Utf8Text.decode(Files.readAllBytes(file));
            return readLoCoMo(text, sink);
        }
        if (format == Format.MEMORYBANK) {
            return MemoryBankSource.read(JSON.readTree(file.toFile()), sink);
        }
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            return readJsonLines(in, sink);
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
     * Tells the format by the first non-blank character: {@code [} is LoCoMo; otherwise a first line
     * that is a MemoryBank history object ({@link MemoryBankSource#looksLike}) is MemoryBank, anything
     * else JSON Lines.
     *
     * @param file the input
     * @return its format
     * @throws IOException if it cannot be read
     */
    public static Format detect(final Path file) throws IOException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            int c;
            int bom = 0;
            while ((c = in.read()) != -1) {
                // the UTF-8 byte order mark EF BB BF, and ASCII white space
                if (bom < 3 && c == new int[] {0xEF, 0xBB, 0xBF}[bom]) {
                    bom++;
                    continue;
                }
                if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                    continue;
                }
                if (c == '[') {
                    return Format.LOCOMO;
                }
                final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
                line.write(c);
                while ((c = in.read()) != -1 && c != '\n') {
                    line.write(c);
                }
                return memoryBank(line.toString(java.nio.charset.StandardCharsets.UTF_8)) ? Format.MEMORYBANK : Format.JSON_LINES;
            }
        }
        return Format.JSON_LINES;
    }

    private static boolean memoryBank(final String firstLine) {
        try {
            return MemoryBankSource.looksLike(JSON.readTree(firstLine));
        } catch (JsonProcessingException e) {
            return false;
        }
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

    private static Report readLoCoMo(final Utf8Text.Clean text, final Sink sink) throws IOException {
        final JsonNode root = JSON.readTree(text.text());
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
                    final String where = location + " as " + speaker;
                    try {
                        sink.accept(where, record);
                    } catch (Refused e) {
                        problems.add(new Problem(where, e.getMessage(), Outcome.REJECTED));
                        rejected++;
                        continue;
                    }
                    final String invalid = invalidReason(record);
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

    private static Report readJsonLines(final InputStream in, final Sink sink) throws IOException {
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
            final String location = "line " + lineNumber;
            try {
                final Repairs repairs = new Repairs(line.replaced());
                final ConversationCompleted record = fromJson(onlyObject(line.text()), repairs);
                sink.accept(location, record);
                records++;
                if (repairs.count > 0) {
                    replaced += repairs.count;
                    problems.add(new Problem(location, repairs.count + " invalid UTF-8 sequence(s) or lone surrogate(s) replaced",
                        Outcome.REPLACED));
                }
                final String invalid = invalidReason(record);
                if (invalid != null) {
                    problems.add(new Problem(location, invalid, true));
                }
            } catch (JsonProcessingException e) {
                problems.add(new Problem(location, "not JSON: " + e.getOriginalMessage(), false));
                rejected++;
            } catch (InvalidLine | Refused e) {
                problems.add(new Problem(location, e.getMessage(), false));
                rejected++;
            } catch (RuntimeException e) {
                // whatever else one line does, the rest of the file goes on
                problems.add(new Problem(location, "cannot be read: " + e, false));
                rejected++;
            }
        }
        return new Report(Format.JSON_LINES, records, rejected, replaced, List.copyOf(problems));
    }

    /**
     * @param line one line of JSON Lines
     * @return its one JSON object
     * @throws InvalidLine if it holds something else than exactly one object (e.g. two objects: JSON Lines
     *     has one value per line, and publishing one of them would drop the other silently)
     * @throws JsonProcessingException if it is not JSON
     */
    private static JsonNode onlyObject(final String line) throws JsonProcessingException {
        try (com.fasterxml.jackson.core.JsonParser parser = JSON.createParser(line)) {
            final JsonNode node = JSON.readTree(parser);
            if (node == null || !node.isObject()) {
                throw new InvalidLine("not a JSON object");
            }
            int values = 1;
            try {
                while (parser.nextToken() != null) {
                    JSON.readTree(parser);
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
                .setRole(text(m, "role", repairs))
                .setContent(text(m, "content", repairs))
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
        node.path("metadata").fields().forEachRemaining(e -> metadata.put(e.getKey(), text(e.getValue(), repairs)));
        return ConversationCompleted.newBuilder()
            .setTenantId(id(node, "tenantId"))
            .setUserId(id(node, "userId"))
            .setConversationId(id(node, "conversationId"))
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

    /** A text field: lone surrogates (from JSON escapes) become U+FFFD, counted in {@code repairs}. */
    private static String text(final JsonNode node, final String field, final Repairs repairs) {
        return text(node.path(field), repairs);
    }

    private static String text(final JsonNode value, final Repairs repairs) {
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

    /** Earliest event time: Kafka record timestamps cannot be negative. */
    static final Instant MIN_TIME = Instant.EPOCH;
    /** Latest event time accepted: the last instant of year 9999. */
    static final Instant MAX_TIME = Instant.parse("9999-12-31T23:59:59.999Z");

    /**
     * ISO-8601 with an offset ({@code 2025-02-03T09:12:00Z}), or epoch milliseconds as a number, within
     * {@link #MIN_TIME}..{@link #MAX_TIME}.
     */
    private static Instant instant(final JsonNode value, final String name) {
        final Instant at;
        if (value.isIntegralNumber()) {
            if (!value.canConvertToLong()) {
                throw new InvalidLine(name + " is out of range: " + value.asText() + " ms");
            }
            at = Instant.ofEpochMilli(value.longValue());
        } else if (!value.isTextual()) {
            throw new InvalidLine(name + " is missing or not an ISO-8601 timestamp");
        } else {
            try {
                at = OffsetDateTime.parse(value.asText()).toInstant();
            } catch (DateTimeParseException e) {
                throw new InvalidLine(name + " is not an ISO-8601 timestamp with offset: " + value.asText());
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
