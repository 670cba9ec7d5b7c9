package dev.engram.text;

import java.util.regex.Pattern;

/**
 * The literal words a plain {@link Pattern} (case-sensitive, or {@link Pattern#CASE_INSENSITIVE} without Unicode case)
 * cannot match without ({@link RequiredLiterals}), tested before the pattern runs: "password" or "passcode" before a
 * search for a password's value. For a {@link CaselessPattern} use {@link CaselessPattern#mayMatch}.
 *
 * <p>Why a plain pattern needs no care for case: it matches a literal character only as itself or, case-insensitive,
 * as its ASCII other case, so the ASCII lower case of a matching text holds the lower-cased literal. A pattern with
 * {@link Pattern#UNICODE_CASE}, {@link Pattern#UNICODE_CHARACTER_CLASS}, {@link Pattern#COMMENTS},
 * {@link Pattern#LITERAL} or {@link Pattern#CANON_EQ} (or an inline {@code u}, {@code U} or {@code x}) gets a gate
 * that is always open.
 *
 * <p>Immutable and thread-safe.
 */
public final class LiteralGate {

    private static final int UNREAD_FLAGS = Pattern.UNICODE_CASE | Pattern.UNICODE_CHARACTER_CLASS | Pattern.COMMENTS
        | Pattern.LITERAL | Pattern.CANON_EQ;

    private final String[][] required;

    private LiteralGate(final String[][] required) {
        this.required = required;
    }

    /**
     * @param pattern a compiled pattern
     * @return its gate: open for every text the pattern can match in, closed for most others
     */
    public static LiteralGate of(final Pattern pattern) {
        return new LiteralGate((pattern.flags() & UNREAD_FLAGS) == 0 ? RequiredLiterals.of(pattern.pattern())
            : new String[0][]);
    }

    /**
     * @param text the text, prepared once
     * @return false only when the pattern cannot match anywhere in the text
     */
    public boolean mayMatch(final CaselessText text) {
        for (final String[] clause : required) {
            if (!text.containsOneOf(clause)) {
                return false;
            }
        }
        return true;
    }

    /** @return the clauses tested (for tests) */
    String[][] required() {
        return required;
    }
}
