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

    /** Invisible characters inside a word that change no letter: zero-width space, word joiner, BOM, soft hyphen. */
    private static final java.util.regex.Pattern INVISIBLE_IN_WORD = java.util.regex.Pattern.compile(
        "(?<=[\\p{L}\\p{N}\\p{M}])[\\u200B\\u2060\\uFEFF\\u00AD]+(?=[\\p{L}\\p{N}])");
    /**
     * Zero-width (non-)joiners between two Latin letters, where they join nothing; in Arabic, Persian, Indic scripts
     * and emoji sequences they are part of the spelling and stay.
     */
    private static final java.util.regex.Pattern JOINER_IN_LATIN_WORD = java.util.regex.Pattern.compile(
        "(?<=\\p{IsLatin}\\p{M}{0,3})[\\u200C\\u200D]+(?=\\p{IsLatin})");

    /**
     * The one form text of a conversation is read in, on every way a conversation enters (HTTP ingest, the ingest
     * command, records on {@code conversations-completed}: the extractor's decoding, which all of them pass): Unicode
     * NFC ("Zu\u0308rich", U+0308 combining, is "Z\u00fcrich"), and format characters inside a word removed (a
     * zero-width space, word joiner, BOM or soft hyphen between letters; a zero-width (non-)joiner between Latin
     * letters), so that "Zu\u200Brich" is the word "Zürich"'s spelling without accents, not "Zu" and "rich".
     *
     * @param text any text, or null
     * @return the text in that form (the same instance when it already is); null stays null
     */
    public static String canonical(final String text) {
        if (text == null) {
            return null;
        }
        String out = java.text.Normalizer.isNormalized(text, java.text.Normalizer.Form.NFC)
            ? text : java.text.Normalizer.normalize(text, java.text.Normalizer.Form.NFC);
        if (out.indexOf('\u200B') >= 0 || out.indexOf('\u2060') >= 0 || out.indexOf('\uFEFF') >= 0
            || out.indexOf('\u00AD') >= 0) {
            out = INVISIBLE_IN_WORD.matcher(out).replaceAll("");
        }
        if (out.indexOf('\u200C') >= 0 || out.indexOf('\u200D') >= 0) {
            out = JOINER_IN_LATIN_WORD.matcher(out).replaceAll("");
        }
        return out.equals(text) ? text : out;
    }
}
