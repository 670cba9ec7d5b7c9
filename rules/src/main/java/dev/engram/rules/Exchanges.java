package dev.engram.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import dev.engram.port.ExtractedMemory;
import dev.engram.text.CaselessPattern;
import dev.engram.text.TurnHeuristics;

/**
 * How {@link RuleBasedExtractor} writes what the other party said: the question a user turn answers
 * (context appended to the turn's episode) and the exchange episode of an assistant's reply.
 *
 * <ul>
 *   <li><b>Question context.</b> When the message before a user turn asks something, the turn's episode
 *       ends with {@code (re: "<question>")}: the last {@value #QUESTIONS} question sentences of that
 *       message, their last {@value #QUESTION_WORDS} words at most. Later questions are often the asker's words for
 *       the same thing ("What did you do to destress?" → "What does Melanie do to destress?"), and a reply
 *       such as "Yep, he loves new trails" means nothing without them. Only the question is kept, not the
 *       other party's statements: the memory stays the user's, and its sources stay the user's turn.</li>
 *   <li><b>Exchange.</b> An assistant reply to a user turn that says something beyond small talk and
 *       questions becomes {@code User: <turn> — Assistant: <reply>}, with both messages as sources, so
 *       "what did you recommend to me?" finds the recommendation. It is an episode, never a fact: facts
 *       keep the user as their subject and only come from the user's own sentences.</li>
 * </ul>
 */
final class Exchanges {

    /** Compiled once: String#split compiles a pattern of more than one character at every call. */
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    private static final Pattern NOT_A_WORD = Pattern.compile("[^\\p{L}\\p{M}\\p{N}']+");

    /** Question sentences kept as context. */
    static final int QUESTIONS = 2;
    /** Longest context, in words (a longer one keeps its last words). */
    static final int QUESTION_WORDS = 30;
    /** Words a reply must add to the user's turn to be worth an exchange ("Noted, Kotlin it is." adds 1). */
    static final int MIN_NEW_WORDS = 3;

    private static final CaselessPattern RECOMMENDS = CaselessPattern.compile("\\b(?:recommend\\w*|suggest\\w*|try|consider|check\\s+out"
        + "|you\\s+(?:could|should|might|can)|how\\s+about|i'd\\s+(?:go|start)|start\\s+with)\\b|推荐|建议|试试|可以");

    private Exchanges() {
    }

    /**
     * @param text the other party's message
     * @return its last question sentences (image captions removed), or null when it asks nothing
     */
    static String questionOf(final String text) {
        final List<String> questions = new ArrayList<>();
        for (final String sentence : TurnHeuristics.sentences(TurnHeuristics.withoutImage(text))) {
            if (TurnHeuristics.isQuestion(sentence)) {
                questions.add(sentence);
            }
        }
        if (questions.isEmpty()) {
            return null;
        }
        final String joined = String.join(" ", questions.subList(Math.max(0, questions.size() - QUESTIONS),
            questions.size())).replace('"', '\'');
        final String[] words = WHITESPACE.split(joined);
        return words.length <= QUESTION_WORDS ? joined
            : String.join(" ", java.util.Arrays.copyOfRange(words, words.length - QUESTION_WORDS, words.length));
    }

    /**
     * @param turn the user's turn
     * @param substantive the reply's sentences that are neither small talk nor questions
     * @return true when they add at least {@value #MIN_NEW_WORDS} words the turn does not have (words of
     *     three letters or more; in scripts without spaces, two letters count as a word)
     */
    static boolean addsToTurn(final String turn, final List<String> substantive) {
        final java.util.Set<String> known = new java.util.HashSet<>(words(turn));
        final java.util.Set<String> added = new java.util.HashSet<>();
        int unspaced = 0;
        for (final String w : words(String.join(" ", substantive))) {
            if (known.contains(w) || !added.add(w)) {
                continue;
            }
            if (w.codePointCount(0, w.length()) == 1) {
                unspaced++;
            }
        }
        return added.size() - unspaced + unspaced / TurnHeuristics.UNSPACED_LETTERS_PER_WORD >= MIN_NEW_WORDS;
    }

    /** Lower-case words of three letters or more, and every letter of a script written without spaces. */
    private static List<String> words(final String text) {
        final List<String> out = new ArrayList<>();
        for (final String w : NOT_A_WORD.split(text.toLowerCase(java.util.Locale.ROOT))) {
            if (w.codePoints().anyMatch(TurnHeuristics::unspacedScript)) {
                w.codePoints().filter(TurnHeuristics::unspacedScript).forEach(cp -> out.add(Character.toString(cp)));
            } else if (w.length() >= 3) {
                out.add(w);
            }
        }
        return out;
    }

    /**
     * @param reply the assistant's reply
     * @return the exchange's display name: "Assistant recommendation" when the reply recommends or
     *     suggests something, "Assistant reply" otherwise
     */
    static String displayName(final String reply) {
        return RECOMMENDS.matcher(reply).find() ? ExtractedMemory.EXCHANGE_RECOMMENDATION : ExtractedMemory.EXCHANGE_REPLY;
    }
}
