package dev.engram.embedded;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How {@link RuleBasedExtractor} splits a user turn into sentences, recognises small talk, and rates
 * how much an episodic memory of the turn is worth (its importance).
 *
 * <h2>Importance of an episodic memory (this heuristic's own numbers)</h2>
 * Computed over the turn's substantive sentences (small talk removed), then rounded to two decimals:
 * <pre>
 *   0.20  base: something was said beyond small talk
 * + 0.15  the user speaks about themselves (I, me, my, we, our …): memory is about the user
 * + 0.15  a named entity (a capitalized word that does not start a sentence): people, places, products
 *         are what later questions ask about
 * + 0.15  a number, date or time word (digits, one..twenty, months, weekdays, yesterday, last week …):
 *         "when" and "how many" questions need them
 * + 0.10  at least {@value #LONG_WORDS} words, + 0.10 more at {@value #VERY_LONG_WORDS}: longer turns carry more detail
 * capped at 0.90 (1.0 is left for facts the user corrects)
 * </pre>
 * So a substantive turn without any signal scores 0.2 and falls below the 0.3 floor ({@code memory.min.importance}),
 * one signal (first person, an entity, or a date) lifts it to 0.35 and keeps it, and a long, dated,
 * first-person turn with names reaches 0.85. A turn that is only small talk ("Hey Mel! Good to see
 * you!", "Thanks!", "Wow, cool") makes no episodic candidate at all.
 */
final class TurnHeuristics {

    /** Importance of a substantive turn with no signal. */
    static final double BASE = 0.2;
    /** Added for first person, a named entity, or a number/date each. */
    static final double SIGNAL = 0.15;
    /** Added at {@link #LONG_WORDS} words and again at {@link #VERY_LONG_WORDS}. */
    static final double LENGTH = 0.1;
    /** Words from which a turn counts as long. */
    static final int LONG_WORDS = 8;
    /** Words from which a turn counts as very long. */
    static final int VERY_LONG_WORDS = 20;
    /** Upper bound of an episodic importance. */
    static final double MAX = 0.9;

    private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?\u2026])\\s+|\\s*\\n+\\s*");
    private static final Pattern IMAGE = Pattern.compile("\\s*\\[image:[^\\]]*\\]");
    private static final Pattern SMALL_TALK = Pattern.compile("\\b(?:hi|hey|hello|hiya|yo|heya|thanks|thank\\s+you"
        + "(?:\\s+so\\s+much)?|thx|ty|bye|goodbye|ok|okay|sure|yes|yeah|yep|yup|no|nope|nah|wow|whoa|cool|nice|great"
        + "|awesome|amazing|lol|ha(?:ha)+|hah|hm+|oh|ah|aw+|good|alright|right|true|indeed|exactly|totally|absolutely"
        + "|definitely|congrats|congratulations|cheers|agreed?|i\\s+agree|sounds\\s+(?:good|great|fun|amazing|awesome)"
        + "|good\\s+to\\s+(?:see|hear\\s+from)\\s+you|good\\s+to\\s+hear|nice\\s+to\\s+meet\\s+you|see\\s+you(?:\\s+soon)?"
        + "|see\\s+ya|talk\\s+soon|talk\\s+to\\s+you\\s+(?:soon|later)|take\\s+care|have\\s+a\\s+(?:good|nice|great)"
        + "\\s+(?:day|night|one|weekend)|how\\s+are\\s+you|how\\s+have\\s+you\\s+been|how's\\s+it\\s+going|what's\\s+up"
        + "|you\\s+too|me\\s+too|no\\s+problem|no\\s+worries|of\\s+course|got\\s+it|makes\\s+sense|i\\s+see|that's"
        + "(?:\\s+(?:so|really|very|super|pretty))?(?:\\s+(?:cool|great|awesome|amazing|nice|sweet|wonderful|fantastic"
        + "|good|lovely|interesting|fun))?|(?:i\\s+)?(?:love|loved|like|liked|adore|enjoyed)\\s+(?:it|that|this|them)|glad\\s+to\\s+hear(?:\\s+(?:that|it))?|good\\s+(?:morning|afternoon|evening"
        + "|night)|so|really|very|super|too|what|now|well|man|dude|buddy)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern FIRST_PERSON = Pattern.compile("\\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we"
        + "|we're|we've|our|ours|us)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern NUMBER_OR_DATE = Pattern.compile("\\d|\\b(?:one|two|three|four|five|six|seven|eight"
        + "|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|hundred"
        + "|january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday"
        + "|wednesday|thursday|friday|saturday|sunday|yesterday|today|tomorrow|tonight|weekend|ago|last\\s+(?:week"
        + "|month|year|night)|next\\s+(?:week|month|year)|years?|months?|weeks?|days?)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern ENTITY = Pattern.compile("(?<=[\\p{L},;:]\\s)(?!I\\b|I'|I\u2019)\\p{Lu}[\\p{L}\\p{N}]+");

    private TurnHeuristics() {
    }

    /**
     * @param text a turn
     * @return the turn without LoCoMo's " [image: caption]" part: a caption describes a photo, it is not
     *     a statement of the user
     */
    static String withoutImage(final String text) {
        return IMAGE.matcher(text).replaceAll("");
    }

    /**
     * @param text a turn
     * @return its sentences (split after . ! ? … and at line breaks), stripped, none empty
     */
    static List<String> sentences(final String text) {
        final List<String> out = new ArrayList<>();
        for (final String s : SENTENCE_END.split(text)) {
            if (!s.isBlank()) {
                out.add(s.strip());
            }
        }
        return out;
    }

    /**
     * A question is a request to the assistant, not something the user told about themselves
     * ("What was my locker code again?" must not become a memory of the asker: case-05).
     *
     * @param sentence one sentence
     * @return true when it ends with a question mark
     */
    static boolean isQuestion(final String sentence) {
        return sentence.strip().endsWith("?");
    }

    /**
     * @param sentence one sentence
     * @return true when, after removing greetings, thanks, reactions and one following name, fewer than
     *     two words remain ("Thanks, Melanie!", "That's really sweet.", "Wow, cool")
     */
    static boolean isSmallTalk(final String sentence) {
        final String rest = SMALL_TALK.matcher(FactRules.normalizeQuotes(sentence)).replaceAll(" ");
        int words = 0;
        for (final String w : rest.split("[^\\p{L}\\p{N}']+")) {
            if (!w.isEmpty()) {
                words++;
            }
        }
        return words < 2;
    }

    /**
     * @param substantive the substantive sentences of a turn, non-empty
     * @return the importance of the turn's episodic memory, 0.2..0.9 (see the class comment)
     */
    static double importance(final List<String> substantive) {
        final String text = FactRules.normalizeQuotes(String.join(" ", substantive));
        double score = BASE;
        if (FIRST_PERSON.matcher(text).find()) {
            score += SIGNAL;
        }
        if (ENTITY.matcher(text).find()) {
            score += SIGNAL;
        }
        if (NUMBER_OR_DATE.matcher(text).find()) {
            score += SIGNAL;
        }
        final int words = text.split("\\s+").length;
        if (words >= LONG_WORDS) {
            score += LENGTH;
        }
        if (words >= VERY_LONG_WORDS) {
            score += LENGTH;
        }
        return Math.round(Math.min(MAX, score) * 100) / 100.0;
    }
}
