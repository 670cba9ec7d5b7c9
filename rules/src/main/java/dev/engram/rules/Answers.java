package dev.engram.rules;

import static dev.engram.rules.FactPatterns.PROPER;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.text.TurnHeuristics;

/**
 * A user's short answer to the other party's yes/no question about one of the user's slots, read as the statement it
 * makes: to "Are you still living in Toronto?", "No, Ottawa now." says "I live in Ottawa" (the new city supersedes the
 * old one downstream; to "Do you still use Jira?", "No, Linear." says "I use Linear instead of Jira") and a bare "No." says "I no longer live in Toronto". The question names the slot and the old
 * value; the answer alone ("No, Ottawa now.") names neither a verb nor a subject, so no statement rule reads it.
 *
 * <p>Slots asked about: where the user lives ("Are you still living in X?", "Do you still live in X?", "Are you
 * still based in X?"), works ("Are you still working at X?", "Do you still work for X?") and which tool they use
 * ("Are you still using X?", "Do you still use X?"). Only the answer's first sentence is read, and only when it is a
 * "no" alone or a "no" with one capitalized name ("No, Ottawa now.", "Nope, in Ottawa these days."): a longer answer
 * says what it says in its own words. A "yes" restates nothing new and is left alone.
 */
final class Answers {

    /**
     * A question about a slot (the old value in group 1 or 2), the statement of a new value (%1$s; %2$s the old one:
     * a tool is one of many, so a switch names the one it replaces) and of a bare "no" (%s the old value).
     */
    private record Asked(Pattern question, String stated, String retracted) {
    }

    private static final String STILL = "(?:still\\s+|currently\\s+)?";

    private static final List<Asked> ASKED = List.of(
        new Asked(Pattern.compile("\\b(?:are|r)\\s+(?:you|u)\\s+" + STILL + "(?:living|based)\\s+in\\s+(" + PROPER + ")"
            + "|\\bdo\\s+(?:you|u)\\s+" + STILL + "live\\s+in\\s+(" + PROPER + ")", Pattern.CASE_INSENSITIVE),
            "I live in %s.", "I no longer live in %s."),
        new Asked(Pattern.compile("\\b(?:are|r)\\s+(?:you|u)\\s+" + STILL + "working\\s+(?:at|for)\\s+(" + PROPER + ")"
            + "|\\bdo\\s+(?:you|u)\\s+" + STILL + "work\\s+(?:at|for)\\s+(" + PROPER + ")", Pattern.CASE_INSENSITIVE),
            "I work at %s.", "I no longer work at %s."),
        new Asked(Pattern.compile("\\b(?:are|r)\\s+(?:you|u)\\s+" + STILL + "using\\s+(" + PROPER + ")"
            + "|\\bdo\\s+(?:you|u)\\s+" + STILL + "use\\s+(" + PROPER + ")", Pattern.CASE_INSENSITIVE),
            "I use %1$s instead of %2$s.", "I no longer use %s."));

    private static final String NO = "^\\W*(?:no|nope|nah|not\\s+any\\s?more|no\\s+longer)\\b";

    /** "No." alone. */
    private static final Pattern BARE_NO = Pattern.compile(NO + "[\\s.!]*$", Pattern.CASE_INSENSITIVE);

    /** "No, Ottawa now.", "Nope, in Ottawa these days.": a "no" and one name. */
    private static final Pattern NO_AND_NAME = Pattern.compile(NO + "[\\s,;:.!-]*(?:(?:i'm\\s+in|i\\s+am\\s+in|in|at"
        + "|it's|using)\\s+)?(" + PROPER + ")(?:\\s+(?:now|these\\s+days|nowadays|instead))?[\\s.!]*$",
        Pattern.CASE_INSENSITIVE);

    private Answers() {
    }

    /**
     * @param asked the other party's message right before the turn
     * @param sentence the turn's first sentence, quotes normalized
     * @return the statement the sentence makes as the answer to the message's last question ("I live in Ottawa."),
     *     or null when the message asks no such question or the sentence is no such answer
     */
    static String restated(final String asked, final String sentence) {
        final String question = lastQuestion(asked);
        if (question == null) {
            return null;
        }
        for (final Asked slot : ASKED) {
            final String asking = TurnHeuristics.normalizeQuotes(question);
            Matcher q = slot.question().matcher(asking);
            if (!q.find()) {
                // "do you still live in toronto?" typed in lower case names its city so too
                q = slot.question().matcher(LowercaseNames.applies(asking) ? LowercaseNames.capitalized(asking) : "");
                if (!q.find()) {
                    continue;
                }
            }
            final String old = FactRules.first(q, 1, 2);
            // "no, ottawa now": a user who types in lower case names the new value so too (LowercaseNames)
            final String answer = LowercaseNames.applies(sentence) ? LowercaseNames.answer(sentence.strip()) : sentence.strip();
            final Matcher named = NO_AND_NAME.matcher(answer);
            if (named.find() && !FactRules.trimValue(named.group(1)).equalsIgnoreCase(FactRules.trimValue(old))) {
                return String.format(slot.stated(), FactRules.trimValue(named.group(1)), FactRules.trimValue(old));
            }
            return BARE_NO.matcher(sentence.strip()).find() ? String.format(slot.retracted(), FactRules.trimValue(old))
                : null;
        }
        return null;
    }

    private static String lastQuestion(final String message) {
        String last = null;
        for (final String sentence : TurnHeuristics.sentences(TurnHeuristics.withoutImage(message))) {
            if (TurnHeuristics.isQuestion(sentence)) {
                last = sentence;
            }
        }
        return last;
    }
}
