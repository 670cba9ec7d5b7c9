package dev.engram.text;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A regular expression matched without regard to case, Unicode case folding included
 * ({@link Pattern#CASE_INSENSITIVE} | {@link Pattern#UNICODE_CASE}), that matches an ASCII text with the same pattern
 * compiled without {@link Pattern#UNICODE_CASE}: the same matches, groups and positions, at a fraction of the cost.
 *
 * <p>Why: with Unicode case folding every literal character of a pattern is compared through
 * {@link Character#toUpperCase(int)} and {@link Character#toLowerCase(int)} at every position a search tries
 * ({@code Pattern$SliceU}, {@code SingleU}); JFR of {@code bench ingest} put those two calls at a quarter of the
 * offline extractor's CPU (its statement and date rules are tried on every sentence), while 99 % of LoCoMo's turns are
 * ASCII once typographic quotes are straightened.
 *
 * <p>Why the matches are the same: the two compilations build the same node tree and differ only in how a literal,
 * a class member, a range or a back reference compares one character of the text with the pattern (JDK
 * {@code Pattern#single}, {@code newSlice}, {@code range}, {@code bitsOrSingle}, {@code CIBackRef}; property classes
 * such as {@code \p{Lu}} and the predefined ones depend on {@link Pattern#CASE_INSENSITIVE} alone, which both have).
 * For a text character c below 128 both compare the ASCII lower case of c with the pattern character's lower case,
 * except for a pattern character outside ASCII whose Unicode case maps into ASCII ({@link #FOLDS_TO_ASCII}: İ, ı, ſ
 * and the Kelvin sign, which Unicode folding lets match i, s or k and ASCII folding does not). A pattern holding one
 * of them, or an escape that may name one ({@code \}{@code u}, {@code \x}, {@code \0}, {@code \N}), is therefore
 * always matched with Unicode folding. {@code CaselessPatternTest} checks the list against the JDK's case tables over
 * every code point.
 *
 * <p>Immutable and thread-safe, like {@link Pattern}.
 */
public final class CaselessPattern {

    /** The code points outside ASCII whose upper or lower case (or the lower case of the upper) lies in ASCII. */
    static final String FOLDS_TO_ASCII = "\u0130\u0131\u017F\u212A";

    /** Flags under which a regex's characters do not mean what {@link RequiredLiterals} reads. */
    private static final int UNREAD_FLAGS = Pattern.COMMENTS | Pattern.LITERAL | Pattern.CANON_EQ;

    private final Pattern unicode;
    private final Pattern ascii;
    /** {@link RequiredLiterals#of}: clauses of which a match holds a string each; empty when unknown. */
    private final String[][] required;

    private CaselessPattern(final Pattern unicode, final Pattern ascii, final String[][] required) {
        this.unicode = unicode;
        this.ascii = ascii;
        this.required = required;
    }

    /**
     * @param regex a regular expression
     * @return it compiled with {@link Pattern#CASE_INSENSITIVE} | {@link Pattern#UNICODE_CASE}
     * @throws java.util.regex.PatternSyntaxException for an invalid expression
     */
    public static CaselessPattern compile(final String regex) {
        return compile(regex, 0);
    }

    /**
     * @param regex a regular expression
     * @param flags further {@link Pattern} flags ({@link Pattern#CASE_INSENSITIVE} | {@link Pattern#UNICODE_CASE} are
     *     added)
     * @return the pattern
     * @throws java.util.regex.PatternSyntaxException for an invalid expression
     */
    public static CaselessPattern compile(final String regex, final int flags) {
        final int caseless = flags | Pattern.CASE_INSENSITIVE;
        final Pattern unicode = Pattern.compile(regex, caseless | Pattern.UNICODE_CASE);
        final boolean safe = asciiSafe(regex);
        final Pattern ascii = safe ? Pattern.compile(regex, caseless & ~Pattern.UNICODE_CASE) : unicode;
        // a pattern naming a character that folds into ASCII may match an ASCII text without its literal's letters
        final String[][] required = safe && (flags & UNREAD_FLAGS) == 0 ? RequiredLiterals.of(regex) : new String[0][];
        return new CaselessPattern(unicode, ascii, required);
    }

    /**
     * @param regex a regular expression
     * @return whether its ASCII-folding compilation matches every ASCII text as the Unicode-folding one: it names no
     *     character of {@link #FOLDS_TO_ASCII}, literally or by an escape that could
     */
    static boolean asciiSafe(final String regex) {
        for (int i = 0; i < regex.length(); i++) {
            final char c = regex.charAt(i);
            if (FOLDS_TO_ASCII.indexOf(c) >= 0) {
                return false;
            }
            if (c == '\\' && i + 1 < regex.length()) {
                final char next = regex.charAt(i + 1);
                if (next == 'u' || next == 'x' || next == '0' || next == 'N') {
                    return false;
                }
                i++; // an escaped character is taken literally: "\\\\u" is a backslash and a u
            }
        }
        return true;
    }

    /**
     * @param text any text
     * @return whether every character of it is ASCII (below 128)
     */
    public static boolean isAscii(final CharSequence text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) >= 128) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param text the text to match
     * @return a matcher of the text, as {@link Pattern#matcher} of the Unicode-folding pattern gives
     */
    public Matcher matcher(final CharSequence text) {
        return matcher(text, isAscii(text));
    }

    /**
     * For a caller that matches many patterns against one text and tested it once.
     *
     * @param text the text to match
     * @param ascii {@link #isAscii} of the text
     * @return a matcher of the text, as {@link Pattern#matcher} of the Unicode-folding pattern gives
     */
    public Matcher matcher(final CharSequence text, final boolean ascii) {
        return (ascii ? this.ascii : unicode).matcher(text);
    }

    /**
     * A test cheaper than a search, for callers that try many patterns on one text: most texts lack a word the
     * pattern cannot match without (derived from the regex: "live" or "reside" for {@code i\\s+(?:live|reside)\\s+in}).
     *
     * @param text the text, prepared once
     * @return false only when no search of the text can find a match; true when one may
     */
    public boolean mayMatch(final CaselessText text) {
        for (final String[] clause : required) {
            if (!text.mayContainOneOf(clause)) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param text the text, prepared once
     * @return a matcher of the text, as {@link Pattern#matcher} of the Unicode-folding pattern gives
     */
    public Matcher matcher(final CaselessText text) {
        return matcher(text.text(), text.ascii());
    }

    /** @return the clauses of {@link #mayMatch} (for tests) */
    String[][] required() {
        return required;
    }

    /** @return the pattern with Unicode case folding (its flags, for tests and messages) */
    public Pattern pattern() {
        return unicode;
    }

    @Override
    public String toString() {
        return unicode.pattern();
    }
}
