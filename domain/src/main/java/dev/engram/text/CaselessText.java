package dev.engram.text;

/**
 * A text prepared once to be matched by many {@link CaselessPattern}s: whether it is ASCII, and its ASCII lower case,
 * in which {@link CaselessPattern#mayMatch} looks for the literal words a pattern cannot match without.
 *
 * <p>Immutable and thread-safe.
 */
public final class CaselessText {

    private final String text;
    private final boolean ascii;
    private final String lower;
    /**
     * Whether an ASCII literal of a pattern can match only ASCII characters of this text: true unless the text holds
     * a character outside ASCII whose Unicode case folds into ASCII ({@link CaselessPattern#FOLDS_TO_ASCII}).
     */
    private final boolean comparable;

    private CaselessText(final String text) {
        this.text = text;
        this.ascii = CaselessPattern.isAscii(text);
        this.lower = RequiredLiterals.asciiLowerCase(text);
        this.comparable = ascii || text.chars().noneMatch(c -> CaselessPattern.FOLDS_TO_ASCII.indexOf(c) >= 0);
    }

    /**
     * @param text any text
     * @return it prepared for matching
     */
    public static CaselessText of(final String text) {
        return new CaselessText(text);
    }

    /** @return the text as given */
    public String text() {
        return text;
    }

    /** @return whether every character of the text is ASCII ({@link CaselessPattern#isAscii}) */
    public boolean ascii() {
        return ascii;
    }

    /**
     * @param clause ASCII-lower-case strings ({@link RequiredLiterals})
     * @return whether the ASCII lower case of the text holds one of them (for a pattern without Unicode case)
     */
    boolean containsOneOf(final String[] clause) {
        for (final String s : clause) {
            if (lower.contains(s)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param clause ASCII-lower-case strings ({@link RequiredLiterals})
     * @return false only when no string of the clause can be in the text under case-insensitive matching: an ASCII
     *     text is searched for each; in other text a string outside ASCII counts as present (Unicode folding may
     *     match it in another case), and every string counts as present when the text holds a character folding into
     *     ASCII
     */
    boolean mayContainOneOf(final String[] clause) {
        if (!comparable) {
            return true;
        }
        for (final String s : clause) {
            if (lower.contains(s) || !ascii && !CaselessPattern.isAscii(s)) {
                return true;
            }
        }
        return false;
    }
}
