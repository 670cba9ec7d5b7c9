package dev.engram.retriever;

import dev.engram.core.Utf8Text;
import dev.engram.runtime.ApiProblem;

/**
 * The control-character rule for strings in a request body, the one the path has ({@code RequestTarget}): C0
 * control characters (U+0000 to U+001F) and DEL (U+007F).
 * <ul>
 *   <li>An identifier ({@code conversationId}, {@code agentId}, a metadata key) holding one is a 400 naming the field
 *       and the character, as a path id is: an id is matched, logged and keyed, and a NUL in it was stored
 *       ({@code "u6\u0000x"} was accepted while the same id in a path was refused).</li>
 *   <li>Free text (a message's content and role, a metadata value, a correction's content and value) keeps tab, line
 *       feed and carriage return; any other control character becomes U+FFFD and is counted with the lone surrogates
 *       ({@link WriteRoutes#REPLACED_HEADER}), as the query string's free text is taken as sent rather than refused:
 *       a tool's output with a terminal escape still saves, and nothing invisible is stored.</li>
 * </ul>
 */
final class BodyText {

    private BodyText() {
    }

    /**
     * @param id an identifier from the body
     * @param field its name in the body, e.g. {@code conversationId}
     * @return the id unchanged
     * @throws ApiProblem 400 naming the field, the character and its position when it holds a control character
     */
    static String id(final String id, final String field) {
        for (int i = 0; i < id.length(); i++) {
            if (isControl(id.charAt(i))) {
                final char c = id.charAt(i);
                throw ApiProblem.badRequest("A control character (" + (c == 0 ? "NUL, " : "") + String.format("U+%04X", (int) c)
                    + ") in " + field + " at character " + (i + 1) + ": identifiers cannot contain control characters");
            }
        }
        return id;
    }

    /**
     * @param text free text from the body
     * @param replaced adds the count of characters replaced by U+FFFD (lone surrogates and control characters)
     * @return the text with each lone surrogate ({@link Utf8Text#clean}) and each control character other than tab,
     *     line feed and carriage return replaced by U+FFFD
     */
    static String text(final String text, final int[] replaced) {
        final Utf8Text.Clean clean = Utf8Text.clean(text);
        replaced[0] += clean.replaced();
        final String cleaned = clean.text();
        StringBuilder out = null;
        for (int i = 0; i < cleaned.length(); i++) {
            final char c = cleaned.charAt(i);
            if (isControl(c) && c != '\t' && c != '\n' && c != '\r') {
                if (out == null) {
                    out = new StringBuilder(cleaned);
                }
                out.setCharAt(i, Utf8Text.REPLACEMENT);
                replaced[0]++;
            }
        }
        return out == null ? cleaned : out.toString();
    }

    private static boolean isControl(final char c) {
        return c < 0x20 || c == 0x7F;
    }
}
