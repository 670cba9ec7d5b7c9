package dev.engram.stack;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.ConversationCompleted;
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

    static final ObjectMapper JSON = new ObjectMapper();

    private ConversationSources() {
    }

    /** The input formats. */
    public enum Format {
        /** An array of LoCoMo samples. */
        LOCOMO,
        /** One ConversationCompleted JSON object per line. */
        JSON_LINES,
        /** A JSON array of ConversationCompleted JSON objects, each in the shape of one JSON Lines line. */
        JSON_ARRAY,
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

        /**
         * Told of each input unit of JSON Lines or a JSON array that did not become a record, or that
         * {@link #accept} refused, as the read goes (progress counts; the report has them all at the end). By
         * default nothing.
         *
         * @param location {@code line <n>}
         */
        default void rejected(final String location) {
        }
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

    /** What the formats are, for a refusal: every reader of input files names them the same way. */
    public static final String FORMATS = "JSON Lines (one conversation object {tenantId, userId, conversationId,"
        + " messages[{role, content, timestamp}]} per line), a JSON array of such conversation objects, LoCoMo JSON"
        + " (an array of samples with sample_id and conversation.session_<n>) or a MemoryBank history object";

    /** A file in none of the {@link #FORMATS}: nothing was read from it. */
    public static final class UnknownFormat extends IOException {
        /** @param message what the file holds instead, and the formats */
        public UnknownFormat(final String message) {
            super(message);
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
     * @throws UnknownFormat if the file is a JSON array of something else than conversations or LoCoMo samples
     * @throws IOException if the file cannot be read, or LoCoMo JSON is malformed as a whole
     */
    public static Report readLocated(final Path file, final Sink sink) throws IOException {
        final Format format = detect(file);
        if (format == Format.LOCOMO) {
            final Utf8Text.Clean text = Utf8Text.decode(Files.readAllBytes(file));
            return LoCoMoFile.read(text, sink);
        }
        if (format == Format.JSON_ARRAY) {
            return JsonLinesFile.readArray(Utf8Text.decode(Files.readAllBytes(file)), sink);
        }
        if (format == Format.MEMORYBANK) {
            return MemoryBankSource.read(JSON.readTree(file.toFile()), sink);
        }
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            return JsonLinesFile.read(in, sink);
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
     * Tells the format by the first non-blank character: {@code [} is an array, LoCoMo when its first element
     * is a LoCoMo sample ({@code sample_id} or {@code conversation}), a {@link Format#JSON_ARRAY} of
     * conversations when it is a conversation object ({@code messages}, {@code conversationId} or
     * {@code userId}) or the array is empty; otherwise a first line that is a MemoryBank history object
     * ({@link MemoryBankSource#looksLike}) is MemoryBank, anything else JSON Lines.
     *
     * @param file the input
     * @return its format
     * @throws UnknownFormat for an array whose first element is neither (e.g. an array of strings)
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
                    return arrayFormat(file);
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

    /** @return the format of a file that starts with {@code [}, by its first element */
    private static Format arrayFormat(final Path file) throws IOException {
        final JsonNode first;
        try (com.fasterxml.jackson.core.JsonParser parser = JSON.createParser(file.toFile())) {
            parser.nextToken(); // [
            if (parser.nextToken() == com.fasterxml.jackson.core.JsonToken.END_ARRAY) {
                return Format.JSON_ARRAY; // empty: no conversation, whatever the format
            }
            first = JSON.readTree(parser);
        } catch (JsonProcessingException e) {
            throw new UnknownFormat(file + " starts with [ but is not a JSON array (" + e.getOriginalMessage()
                + "); Engram reads " + FORMATS);
        }
        if (first != null && first.isObject()) {
            if (first.has("sample_id") || first.has("conversation")) {
                return Format.LOCOMO;
            }
            if (first.has("messages") || first.has("conversationId") || first.has("userId")) {
                return Format.JSON_ARRAY;
            }
        }
        final List<String> fields = new ArrayList<>();
        if (first != null && first.isObject()) {
            first.fieldNames().forEachRemaining(fields::add);
        }
        throw new UnknownFormat(file + " is a JSON array whose first element is " + (first == null || !first.isObject()
            ? "not an object" : "an object with the fields " + fields) + ", neither a conversation nor a LoCoMo sample;"
            + " Engram reads " + FORMATS);
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

    /**
     * The extractor's checks that do not depend on its configured limits (roles, blank content, timestamps, user key);
     * the limits (messages, characters, record size) are the deployment's, and the record size is checked at send.
     */
    private static final dev.engram.validation.ConversationValidator RULES =
        new dev.engram.validation.ConversationValidator(Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE);

    /**
     * @return why {@code POST …/conversations} and the extractor refuse one of this record's messages
     *     ({@link dev.engram.validation.ConversationValidator#messagesProblem}, without the deployment's size limits), or
     *     empty
     */
    static java.util.Optional<String> messagesProblem(final ConversationCompleted record) {
        return RULES.messagesProblem(record.getMessages());
    }

    /**
     * @return why the extractor will reject this record ({@link dev.engram.validation.ConversationValidator}: e.g. a
     *     message with the role 'robot'), or null if it looks valid
     */
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
        return RULES.problem(record).orElse(null);
    }
}
