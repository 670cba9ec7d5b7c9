package dev.engram.bench;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * How {@code bench consistency} reads a context block: whether it holds a value, and whether it states an outdated
 * value as current. Pure functions over the block's text.
 *
 * <ul>
 *   <li><b>Holds a value</b>: one of its aliases occurs, case-insensitively, on word boundaries (in scripts without
 *       spaces, as a substring); <b>as current</b>: on a line not marked as past (below).</li>
 *   <li><b>States an outdated value as current</b>: a sentence of a line holds it, and that line is not marked as
 *       past, and the sentence neither also names a current value (the change itself: "I moved from Porto to
 *       Braga"), nor says it ended ("no longer", "broke up", "left", "died", "switched from", …), nor is about
 *       someone else ("my sister lives in Vancouver": her city, not the user's); and no other sentence of the line
 *       says that value ended ("Biscuit died last night. — Assistant: I'm so sorry about Biscuit."). A line is marked as
 *       past when it carries "(until …" or "earlier", or sits under a heading (a line not starting with
 *       {@code "- "} or {@code "#"}) that says "no longer current" or "earlier".</li>
 * </ul>
 */
final class ConsistencyScoring {

    private static final Pattern ENDED = Pattern.compile("\\b(?:no\\s+longer|not\\s+any\\s*more|anymore|any\\s+more"
        + "|broke\\s+up|split\\s+up|divorced|left|quit|died|passed\\s+away|switched\\s+from|moved\\s+(?:away\\s+)?from"
        + "|used\\s+to|former|formerly|previously|ex|not|instead\\s+of|changed)\\b|n't|不再|以前|曾经|搬到|离开",
        Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    private static final Pattern PAST_MARK = Pattern.compile("\\(until\\s|\\buntil\\s+\\d{4}|\\bearlier\\b|no\\s+longer\\s+current",
        Pattern.CASE_INSENSITIVE);
    /** A sentence about someone else: its values are that person's, not the user's. */
    private static final Pattern OTHER_PERSON = Pattern.compile("\\bmy\\s+(?:sister|brother|mother|mom|mum|father|dad"
        + "|friend|colleague|boss|son|daughter|cousin|aunt|uncle|neighbou?r|flatmate|roommate)\\b|\\b(?:he|she|they)\\s+"
        + "(?:lives?|works?|moved|is|are)\\b|我(?:的)?(?:姐姐|妹妹|哥哥|弟弟|妈妈|爸爸|朋友|同事)",
        Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?。！？;；])\\s*|\\s+—\\s+");

    private ConsistencyScoring() {
    }

    /**
     * @param text a context block or any text
     * @param aliases a value's aliases
     * @return whether one of them occurs in the text
     */
    static boolean holds(final String text, final List<String> aliases) {
        return aliases.stream().anyMatch(a -> mentions(text, a));
    }

    /**
     * @param block a context block
     * @param aliases a value's aliases
     * @return whether one of them occurs on a line of the block not marked as past (a current value told only as
     *     "earlier" is not served as current)
     */
    static boolean holdsAsCurrent(final String block, final List<String> aliases) {
        boolean pastSection = false;
        for (final String line : block.split("\n")) {
            if (!line.startsWith("- ") && !line.startsWith("#")) {
                pastSection = PAST_MARK.matcher(line).find(); // a section heading
            } else if (!pastSection && !PAST_MARK.matcher(line).find() && holds(line, aliases)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param block a context block
     * @param outdated the outdated values
     * @param current the current values (a sentence naming one is the change itself)
     * @return the first line stating an outdated value as current, or null
     */
    static String staleLine(final String block, final List<String> outdated, final List<String> current) {
        boolean pastSection = false;
        for (final String line : block.split("\n")) {
            if (!line.startsWith("- ") && !line.startsWith("#")) {
                pastSection = PAST_MARK.matcher(line).find(); // a section heading
                continue;
            }
            if (pastSection || PAST_MARK.matcher(line).find()) {
                continue;
            }
            final String[] sentences = SENTENCE_END.split(line);
            for (final String value : outdated) {
                boolean told = false; // a sentence of the line tells this value ended: the line is about its end
                for (final String sentence : sentences) {
                    told |= mentions(sentence, value) && ENDED.matcher(sentence).find();
                }
                for (final String sentence : sentences) {
                    if (!told && mentions(sentence, value) && !holds(sentence, current)
                        && !ENDED.matcher(sentence).find() && !OTHER_PERSON.matcher(sentence).find()) {
                        return line;
                    }
                }
            }
        }
        return null;
    }

    /**
     * @param block a context block
     * @param line one of its lines
     * @return the heading of the section the line is in ("" before any heading)
     */
    static String sectionOf(final String block, final String line) {
        String section = "";
        for (final String l : block.split("\n")) {
            if (!l.startsWith("- ") && !l.startsWith("#")) {
                section = l;
            } else if (l.equals(line)) {
                return section;
            }
        }
        return section;
    }

    /** Case-insensitive; on word boundaries when the alias starts and ends with a letter or digit of a spaced script. */
    static boolean mentions(final String text, final String alias) {
        final String a = alias.toLowerCase(Locale.ROOT).strip();
        if (a.isEmpty()) {
            return false;
        }
        final String t = text.toLowerCase(Locale.ROOT);
        if (a.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN)) {
            return t.contains(a);
        }
        return Pattern.compile("(?<![\\p{L}\\p{N}])" + Pattern.quote(a) + "(?![\\p{L}\\p{N}])",
            Pattern.UNICODE_CASE).matcher(t).find();
    }
}
