package dev.engram.core;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The one rule for text that cannot be carried as UTF-8, on every way text enters Engram (ingest, HTTP
 * writes): each invalid UTF-8 byte sequence and each lone UTF-16 surrogate becomes U+FFFD (the Unicode
 * replacement character), and the replacements are counted so that the caller can report them. Nothing is
 * refused for it, and nothing is silently altered: without this, Avro writes a lone surrogate as {@code ?}
 * and a strict decoder stops at the first bad byte.
 *
 * <p>Counting follows the JDK's UTF-8 decoder: one replacement per malformed sequence it reports (a
 * stray byte, a lead byte without its continuation, an encoded surrogate such as CESU-8's ED A0 80), and
 * one per lone surrogate in a Java string.
 */
public final class Utf8Text {

    /** U+FFFD, what every invalid sequence becomes. */
    public static final char REPLACEMENT = '\uFFFD';

    private Utf8Text() {
    }

    /**
     * Text and how many characters were replaced to make it.
     *
     * @param text the clean text (valid UTF-16, encodable as UTF-8)
     * @param replaced invalid sequences or lone surrogates replaced with U+FFFD (0 when the input was clean)
     */
    public record Clean(String text, int replaced) {
    }

    /**
     * Decodes UTF-8 bytes, replacing each malformed sequence with U+FFFD.
     *
     * @param bytes the bytes
     * @param offset first byte
     * @param length byte count
     * @return the text and the count of replaced sequences
     */
    public static Clean decode(final byte[] bytes, final int offset, final int length) {
        final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        final ByteBuffer in = ByteBuffer.wrap(bytes, offset, length);
        final CharBuffer out = CharBuffer.allocate(length + 1);
        int replaced = 0;
        while (true) {
            final CoderResult result = decoder.decode(in, out, true);
            if (result.isError()) {
                in.position(in.position() + result.length());
                out.put(REPLACEMENT);
                replaced++;
            } else if (result.isUnderflow()) {
                decoder.flush(out);
                break;
            }
        }
        out.flip();
        return new Clean(out.toString(), replaced);
    }

    /**
     * @param bytes UTF-8 bytes
     * @return as {@link #decode(byte[], int, int)} over the whole array
     */
    public static Clean decode(final byte[] bytes) {
        return decode(bytes, 0, bytes.length);
    }

    /**
     * Replaces each lone UTF-16 surrogate (a high surrogate not followed by a low one, or a low one not
     * preceded by a high one) with U+FFFD.
     *
     * @param text any string, or null
     * @return the clean text ({@code null} stays null, with 0 replaced)
     */
    public static Clean clean(final String text) {
        if (text == null) {
            return new Clean(null, 0);
        }
        StringBuilder out = null;
        int replaced = 0;
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                if (out != null) {
                    out.append(c).append(text.charAt(i + 1));
                }
                i++;
            } else if (Character.isSurrogate(c)) {
                if (out == null) {
                    out = new StringBuilder(text.length()).append(text, 0, i);
                }
                out.append(REPLACEMENT);
                replaced++;
            } else if (out != null) {
                out.append(c);
            }
        }
        return new Clean(out == null ? text : out.toString(), replaced);
    }
}
