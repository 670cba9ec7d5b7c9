package dev.engram.consolidation;

import java.util.regex.Pattern;

/**
 * How {@link Outdated} finds a fact's value as a word of a memory's text: the value as a whole word, letters compared
 * without case; a lowercase one-word value also in its regular plural. Stateless.
 */
final class ValueWords {

    private ValueWords() {
    }

    /** @return whether a value is one lowercase word of letters, which a sentence may say in the plural */
    static boolean isCommonNoun(final String value) {
        return value.chars().allMatch(c -> c >= 'a' && c <= 'z');
    }

    /**
     * The value as a word or its regular plural: a fact keeps an item in the singular ("allergy:peanut" = "peanut")
     * that the user said in the plural ("I'm allergic to peanuts"; a fresh user's trial kept that sentence current
     * after "I'm not allergic to peanuts anymore").
     */
    static Pattern plural(final String value) {
        final String forms = value.endsWith("y") && value.length() > 3
            ? Pattern.quote(value.substring(0, value.length() - 1)) + "(?:y|ies)"
            : Pattern.quote(value) + "(?:s|es)?";
        return Pattern.compile("(?<![\\p{L}\\p{N}])" + forms + "(?![\\p{L}\\p{N}])",
            Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    }

    /** The value as a word, letters compared without case (see {@code Outdated#sameName} for a name). */
    static Pattern word(final String value) {
        return Pattern.compile("(?<![\\p{L}\\p{N}])" + Pattern.quote(value) + "(?![\\p{L}\\p{N}])",
            Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    }
}
