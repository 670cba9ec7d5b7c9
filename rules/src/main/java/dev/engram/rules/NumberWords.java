package dev.engram.rules;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * English number words one..twenty as digits, so that "three years" and "3 years" compare equal
 * (the consolidator compares the numbers of two facts with the same key and value).
 */
final class NumberWords {

    /** Index = value: "zero" is unused, "one" = 1 … "twenty" = 20. */
    private static final List<String> WORDS = List.of("zero", "one", "two", "three", "four", "five", "six",
        "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
        "seventeen", "eighteen", "nineteen", "twenty");

    /** A number word one..twenty, or "a"/"an" (as in "for a year"), or 1–3 digits. */
    static final String NUMBER = "(?:\\d{1,3}|" + String.join("|", WORDS.subList(1, WORDS.size())) + "|an?)";

    private static final Pattern WORD = Pattern.compile("\\b(" + String.join("|", WORDS.subList(1, WORDS.size()))
        + ")\\b", Pattern.CASE_INSENSITIVE);

    private NumberWords() {
    }

    /**
     * @param token a digit string, a number word one..twenty or "a"/"an" (any case)
     * @return its value, or -1 when it is none of these
     */
    static int parse(final String token) {
        final String t = token.strip().toLowerCase(Locale.ROOT);
        if (t.equals("a") || t.equals("an")) {
            return 1;
        }
        if (!t.isEmpty() && t.chars().allMatch(Character::isDigit) && t.length() <= 3) {
            return Integer.parseInt(t);
        }
        final int index = WORDS.indexOf(t);
        return index >= 1 ? index : -1;
    }

    /**
     * @param text any text
     * @return the text with every number word one..twenty replaced by its digits
     */
    static String toDigits(final String text) {
        final Matcher m = WORD.matcher(text);
        final StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Integer.toString(WORDS.indexOf(m.group(1).toLowerCase(Locale.ROOT))));
        }
        m.appendTail(out);
        return out.toString();
    }
}
