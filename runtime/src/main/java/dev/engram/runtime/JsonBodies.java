package dev.engram.runtime;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Strict parsing of a write request's JSON body, every refusal a 400 {@link ApiProblem} naming the fault:
 * the body must be UTF-8 (an invalid byte is refused with its offset, never stored as U+FFFD), exactly one
 * JSON value (two concatenated objects are refused, not the first one taken), an object, without a
 * duplicate field (never "the last one wins") and without a field the route does not know (named, with the
 * fields it accepts). A lone surrogate written as a JSON escape ({@code \ud800}) is valid JSON: the route
 * decides what to do with it. A UTF-8 byte order mark before the value is skipped (RFC 8259 §8.1).
 */
public final class JsonBodies {

    private static final ObjectMapper STRICT = new ObjectMapper()
        .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** Deepest nesting of arrays and objects a body may have (the parser's default, {@code StreamReadConstraints}). */
    static final int NESTING_LIMIT = STRICT.getFactory().streamReadConstraints().getMaxNestingDepth();

    private JsonBodies() {
    }

    /**
     * @param body the raw body bytes
     * @param fields the fields the route accepts
     * @return the body as a JSON object holding only known fields
     * @throws ApiProblem 400 for an empty body, invalid UTF-8, invalid JSON, more than one value, a value that
     *     is not an object, a duplicate field or an unknown field
     */
    public static ObjectNode object(final byte[] body, final Set<String> fields) {
        final String text = utf8(body);
        if (text.isBlank()) {
            throw ApiProblem.badRequest("a JSON body is required: an object with " + accepted(fields));
        }
        final ObjectNode node = parse(text, "a JSON object with " + accepted(fields));
        final List<String> unknown = new ArrayList<>();
        for (final Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            final String name = names.next();
            if (!fields.contains(name)) {
                unknown.add(name);
            }
        }
        if (!unknown.isEmpty()) {
            throw ApiProblem.badRequest("unknown field" + (unknown.size() > 1 ? "s " : " ") + quoted(unknown)
                + " in the body; accepted: " + quoted(fields));
        }
        return node;
    }

    /**
     * @param body the raw body bytes
     * @return the body as a JSON object, whatever its fields (the caller checks them)
     * @throws ApiProblem 400 for an empty body, invalid UTF-8, invalid JSON, more than one value, a value that is
     *     not an object, or a duplicate field
     */
    public static ObjectNode object(final byte[] body) {
        final String text = utf8(body);
        if (text.isBlank()) {
            throw ApiProblem.badRequest("a JSON body is required");
        }
        return parse(text, "a JSON object");
    }

    /**
     * The strict parse of any JSON body (the MCP endpoint's JSON-RPC messages, whose shape the caller checks): UTF-8,
     * exactly one JSON value, no duplicate field in any object.
     *
     * @param body the raw body bytes
     * @return the value
     * @throws ApiProblem 400 for an empty body, invalid UTF-8, invalid JSON, more than one value or a duplicate field,
     *     its detail naming the fault and where it is
     */
    public static JsonNode value(final byte[] body) {
        final String text = utf8(body);
        if (text.isBlank()) {
            throw ApiProblem.badRequest("a JSON body is required");
        }
        return strict(text);
    }

    private static JsonNode strict(final String text) {
        try {
            return STRICT.readTree(text);
        } catch (JsonProcessingException e) {
            throw ApiProblem.badRequest(syntax(e));
        }
    }

    private static ObjectNode parse(final String text, final String expected) {
        final JsonNode node = strict(text);
        if (node == null || !node.isObject()) {
            throw ApiProblem.badRequest("the body must be " + expected + ", not "
                + (node == null ? "nothing" : node.getNodeType().name().toLowerCase(java.util.Locale.ROOT)));
        }
        return (ObjectNode) node;
    }

    /** @return the text of UTF-8 bytes; a 400 naming the offset of the first invalid byte sequence */
    static String utf8(final byte[] body) {
        final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        final ByteBuffer in = ByteBuffer.wrap(body);
        final CharBuffer out = CharBuffer.allocate(body.length + 1);
        final CoderResult result = decoder.decode(in, out, true);
        if (result.isError()) {
            final int at = in.position();
            throw ApiProblem.badRequest(String.format(java.util.Locale.ROOT,
                "the body is not valid UTF-8: byte 0x%02X at offset %d does not start or continue a character", body[at] & 0xFF, at));
        }
        try {
            decoder.flush(out);
        } catch (IllegalStateException e) {
            throw ApiProblem.badRequest("the body is not valid UTF-8");
        }
        out.flip();
        // a UTF-8 byte order mark before the value: RFC 8259 §8.1 lets a parser ignore it, and editors on Windows
        // write one (it was refused with the parser's message about an unexpected character)
        return out.length() > 0 && out.charAt(0) == BOM ? out.subSequence(1, out.length()).toString() : out.toString();
    }

    /** U+FEFF, the byte order mark (EF BB BF in UTF-8). */
    private static final char BOM = '\uFEFF';

    /**
     * @param body a request body
     * @return the body without a leading UTF-8 byte order mark (EF BB BF), the same array when it has none: for a
     *     reader that parses the bytes itself (the MCP SDK), as {@link #utf8} skips it
     */
    public static byte[] withoutBom(final byte[] body) {
        return body.length >= 3 && (body[0] & 0xFF) == 0xEF && (body[1] & 0xFF) == 0xBB && (body[2] & 0xFF) == 0xBF
            ? java.util.Arrays.copyOfRange(body, 3, body.length) : body;
    }

    /**
     * @param value a JSON value of the wrong type or a blank string
     * @return what it is, for a 400 detail: {@code a number (42)}, {@code an empty string}, {@code a string ("yes")}
     *     (its first 40 characters), {@code an object}
     */
    public static String describe(final JsonNode value) {
        if (value.isTextual()) {
            final String text = value.asText();
            return text.isEmpty() ? "an empty string" : text.isBlank() ? "a blank string"
                : "a string (\"" + (text.length() > 40 ? text.substring(0, 40) + "…" : text) + "\")";
        }
        if (value.isNumber()) {
            return "a number (" + value.asText() + ")";
        }
        if (value.isBoolean()) {
            return "a boolean (" + value.asText() + ")";
        }
        return value.isArray() ? "an array" : value.isObject() ? "an object" : "null";
    }

    /**
     * The one wording of a text field that is not a JSON string, shared by {@code POST …/conversations} and
     * {@code bin/engram ingest} (a fresh user's trial: ingest published {@code "content": 5} as "5" while the route
     * refused it).
     *
     * @param name the field as the caller names it ({@code messages[0].content})
     * @param value its JSON value; null or missing when the field is absent
     * @return {@code NAME must be a string, not a number (5)}; {@code NAME must be a string} when absent
     */
    public static String notAString(final String name, final JsonNode value) {
        return value == null || value.isMissingNode() ? name + " must be a string"
            : name + " must be a string, not " + describe(value);
    }

    private static String syntax(final JsonProcessingException e) {
        final JsonLocation at = e.getLocation();
        final String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
        final String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        if (e instanceof StreamConstraintsException && message.contains("nesting depth")) {
            return String.format(java.util.Locale.ROOT, "the body nests arrays and objects deeper than the %,d levels "
                + "the JSON parser allows%s; send a flatter document", NESTING_LIMIT, where);
        }
        if (e instanceof StreamConstraintsException) {
            return "the body exceeds a limit of the JSON parser" + where + ": " + firstLine(message);
        }
        if (message.startsWith("Duplicate field")) {
            return "duplicate field in the body" + where + ": " + message.substring("Duplicate field ".length())
                + " (each field at most once)";
        }
        if (message.contains("Trailing token")) {
            return "the body holds more than one JSON value" + where + ": send exactly one object";
        }
        return "the body is not valid JSON" + where + (e instanceof JsonParseException ? ": " + plain(firstLine(message)) : "");
    }

    /**
     * A parser message without the parser's switches: Jackson tells how to turn on a non-standard reading ("enable
     * `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow", "Feature 'ALLOW_COMMENTS' not enabled for parser"), which
     * a client of this API cannot do (README trial): said as what JSON does not have; a position inside the message
     * ("start marker at [Source: REDACTED (`StreamReadFeature…` disabled); line: 1, column: 1]") as its line and column.
     */
    static String plain(final String message) {
        return message
            // "(start marker at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1,
            // column: 1])": the parser's switch again, where only the position means something to a client
            .replaceAll("\\[Source: [^\\]]*?; line: (\\d+), column: (\\d+)\\]", "line $1, column $2")
            .replaceAll(": enable `[A-Za-z_.]+` to allow$", " (JSON has no NaN or Infinity: send a number or null)")
            .replaceAll(" \\(not recognized as one since Feature '[A-Z_]+' not enabled for parser\\)$",
                " (JSON has no comments)");
    }

    private static String firstLine(final String message) {
        final int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private static String accepted(final Set<String> fields) {
        return fields.size() == 1 ? "the field " + quoted(fields) : "the fields " + quoted(fields);
    }

    private static String quoted(final java.util.Collection<String> names) {
        return String.join(", ", names.stream().sorted().map(n -> "\"" + n + "\"").toList());
    }
}
