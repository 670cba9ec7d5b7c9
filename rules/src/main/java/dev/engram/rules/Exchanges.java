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
 *   <li><b>Claims about the user.</b> A reply's sentence telling the user where they live or work ("Oh, so you live in
 *       Hamburg now?", "Great that you're in Hamburg now", "you work at SAP"; {@link #claimsAboutUser}) is the
 *       assistant's guess, possibly wrong: it is left out of the exchange unless the user's next turn confirms it
 *       ("Yes, …", "Right, …"), so a wrong echo the user corrects ("No, I still live in Berlin") or ignores is never
 *       served as a statement about the user. The rest of the reply stays.</li>
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

    /**
     * A second-person claim of where the user lives or works, the place or employer capitalized: "you live in X",
     * "you're (now) in X", "you moved to X", "you work at X"; not asked ("Do you live in X?", "where do you work"), not
     * supposed ("if you moved to X").
     */
    private static final Pattern CLAIM = Pattern.compile(
        "(?<!(?i:\\b(?:do|did|if|when|where|would|could|can|will|whether|unless|once|before|after)\\s))"
            + "\\b(?i:you(?:['\u2019]re|\\s+are)\\s+(?:now\\s+|still\\s+)?(?:living\\s+in|based\\s+in|staying\\s+in"
            + "|working\\s+(?:at|for)|settled\\s+in|settling\\s+into?|in)"
            + "|you(?:['\u2019]ve|\\s+have)?\\s+(?:now\\s+|still\\s+)?(?:live\\s+in|moved\\s+to|relocated\\s+to"
            + "|work\\s+(?:at|for)))\\s+(?:the\\s+)?\\p{Lu}");
    /** A user turn that confirms what it answers: "Yes", "Yep, since May", "Right", "Exactly", "That's right", 对. */
    private static final Pattern CONFIRMS = Pattern.compile(
        "^\\W*(?i:(?:yes|yeah|yep|yup|right|exactly|correct|indeed|true|that['\u2019]?s\\s+right|that\\s+is\\s+right)\\b)"
            + "|^\\s*(?:是的|对|對|没错)");

    private Exchanges() {
    }

    /**
     * @param sentence a sentence of the assistant's reply
     * @return whether it tells the user where they live or work (see {@link #CLAIM})
     */
    static boolean claimsAboutUser(final String sentence) {
        return CLAIM.matcher(sentence).find();
    }

    /**
     * @param sentences the reply's sentences
     * @param next the user's turn after the reply, or null
     * @return the sentences without the claims about the user ({@link #claimsAboutUser}) unless {@code next} confirms
     *     them; the same list when there is none or the user confirmed
     */
    static List<String> withoutUnconfirmedClaims(final List<String> sentences, final String next) {
        if (next != null && CONFIRMS.matcher(next).find() || sentences.stream().noneMatch(Exchanges::claimsAboutUser)) {
            return sentences;
        }
        return sentences.stream().filter(s -> !claimsAboutUser(s)).toList();
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
