package dev.engram.runtime;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * What is wrong with the raw (still percent-encoded) path or query string of a request, as one sentence for
 * a 400 problem's detail; null when nothing is. Three faults, checked in this order:
 *
 * <ol>
 *   <li>a {@code %} not followed by two hexadecimal digits ({@code %zz}, a trailing {@code %2});</li>
 *   <li>in the path only, a control character, raw or encoded ({@code %00} NUL, {@code %0A}, DEL): never
 *       part of an Engram identifier (the {@code UserKey} rule; a query text may hold a line break);</li>
 *   <li>percent-encoded bytes that are not UTF-8 (RFC 3986 §2.5 with the UTF-8 of RFC 3629): a stray
 *       continuation byte ({@code %FF}, {@code %C3%28}) or an encoded surrogate, i.e. a lone surrogate
 *       ({@code %ED%A0%80}; an emoji is four bytes {@code %F0%9F%8C%9F} and passes).</li>
 * </ol>
 *
 * <p>Jetty and Javalin would otherwise decode a bad sequence to U+FFFD and answer as if another id had
 * been asked (404 for user "�"), or drop the query parameter (the whole list for {@code query=%FF}); and
 * the first two faults in the path Jetty refuses itself with a bare "Bad Request".
 */
final class RequestTarget {

    /** The name of the path part, the one where control characters are refused. */
    static final String PATH = "path";
    /** The name of the query part. */
    static final String QUERY = "query string";

    private RequestTarget() {
    }

    /**
     * @param raw the raw path or query string, or null
     * @param part how the detail names it: {@link #PATH} or {@link #QUERY}
     * @return e.g. {@code "Invalid UTF-8 in the path at character 8 (%ED%A0%80 …): …"}, or null when valid
     */
    static String problem(final String raw, final String part) {
        if (raw == null) {
            return null;
        }
        for (int i = 0; i < raw.length(); i++) {
            final char c = raw.charAt(i);
            if (c == '%' && (i + 2 >= raw.length() || hex(raw.charAt(i + 1)) < 0 || hex(raw.charAt(i + 2)) < 0)) {
                return "Malformed percent-encoding in the " + part + " (at character " + (i + 1)
                    + "): every % must be followed by two hexadecimal digits";
            }
            final int control = c == '%' ? hex(raw.charAt(i + 1)) * 16 + hex(raw.charAt(i + 2)) : c;
            if (PATH.equals(part) && (control < 0x20 || control == 0x7F)) {
                return "A control character (" + (control == 0 ? "NUL, " : "") + String.format("U+%04X", control)
                    + (c == '%' ? ", encoded as " + raw.substring(i, i + 3) : "") + ") in the " + part
                    + " at character " + (i + 1) + ": identifiers cannot contain control characters";
            }
        }
        return invalidUtf8(raw, part);
    }

    /** @return the detail for the first run of encoded bytes that is not UTF-8, or null */
    private static String invalidUtf8(final String raw, final String part) {
        int i = 0;
        while (i < raw.length()) {
            if (raw.charAt(i) != '%') {
                i++;
                continue;
            }
            final int start = i;
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            while (i + 2 < raw.length() && raw.charAt(i) == '%') {
                bytes.write(hex(raw.charAt(i + 1)) * 16 + hex(raw.charAt(i + 2)));
                i += 3;
            }
            final String bad = firstInvalid(bytes.toByteArray());
            if (bad != null) {
                return "Invalid UTF-8 in the " + part + " at character " + (start + 1) + " (" + raw.substring(start, i)
                    + "): " + bad + "; percent-encode the UTF-8 bytes of the text (an unpaired surrogate has none)";
            }
        }
        return null;
    }

    /** @return why {@code bytes} are not UTF-8, or null when they are */
    private static String firstInvalid(final byte[] bytes) {
        final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        final ByteBuffer in = ByteBuffer.wrap(bytes);
        final CoderResult result = decoder.decode(in, java.nio.CharBuffer.allocate(bytes.length), true);
        if (!result.isError()) {
            return null;
        }
        final int at = in.position();
        final int lead = bytes[at] & 0xFF;
        if (lead == 0xED && at + 1 < bytes.length && (bytes[at + 1] & 0xFF) >= 0xA0) {
            return "the bytes at " + (at + 1) + " encode a lone surrogate (U+D800–U+DFFF)";
        }
        return String.format("byte %d (0x%02X) does not start or continue a UTF-8 character", at + 1, lead);
    }

    private static int hex(final char c) {
        return Character.digit(c, 16);
    }
}
