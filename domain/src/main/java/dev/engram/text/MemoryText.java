package dev.engram.text;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reading a memory's content: what of it are the user's own words. Shared by consolidation (an observation
 * states its statements' own words) and ranking (a statement an observation already states is left out).
 */
public final class MemoryText {

    /** The {@code (re: "…")} context an exchange episode carries at its end: the turn it answers. */
    private static final Pattern CONTEXT = Pattern.compile("\\s*\\(re: \".*\"\\)\\s*$", Pattern.DOTALL);
    /** What every match of {@link #CONTEXT} holds: a content without it has no context. */
    private static final String CONTEXT_OPENING = "(re: \"";

    /**
     * A yes or a no (or an agreement, a refusal) in a sentence that is otherwise small talk: "Yes!" answers the
     * question before it and "Nope." says the opposite, so a rendering that leaves out small talk keeps them.
     */
    private static final CaselessPattern ANSWER = CaselessPattern.compile("\\b(?:yes|yeah|yep|yup|no|nope|nah|not|never|sure|true"
        + "|right|exactly|indeed|definitely|absolutely|totally|agreed?|of\\s+course)\\b|是的|是啊|对|不|没|好的|好吧"
        + "|はい|いいえ|うん|ううん|네|아니|oui|non|sí|ja|nein|sim|não");
    /** How an exchange episode begins: the label of the user's part. */
    private static final String USER_PART = "User: ";
    /** What separates an exchange episode's parts and labels the assistant's. */
    private static final String ASSISTANT_PART = " \u2014 Assistant: ";

    private MemoryText() {
    }

    /**
     * @param content a statement's content
     * @return the statement without the {@code (re: "…")} context at its end: what an observation states of it
     */
    public static String ownWords(final String content) {
        // most contents have no context: the regex scan and the copy of replaceFirst are for those that do (a list
        // request reads the own words of every hit it ranks)
        return !content.contains(CONTEXT_OPENING) ? content.strip() : CONTEXT.matcher(content).replaceFirst("").strip();
    }

    /**
     * @param content a statement's content
     * @return the {@code (re: "…")} context at its end (as written, without the space before it), or "" when it has none
     */
    public static String context(final String content) {
        if (!content.contains(CONTEXT_OPENING)) {
            return "";
        }
        final Matcher m = CONTEXT.matcher(content);
        return m.find() ? m.group().strip() : "";
    }

    /**
     * The words of a turn that tell something: its sentences ({@link TurnHeuristics#sentences}) without the small
     * talk ({@link TurnHeuristics#isSmallTalk}: greetings, thanks, reactions) unless it holds a yes or a no
     * ({@link #ANSWER}), and without questions when asked to.
     *
     * @param text a turn, or one party's part of an exchange
     * @param withoutQuestions also leave out question sentences ({@link TurnHeuristics#isQuestion})
     * @return the sentences kept, joined by a space; the text stripped when none would be kept
     */
    public static String withoutSmallTalk(final String text, final boolean withoutQuestions) {
        final StringBuilder out = new StringBuilder();
        for (final String sentence : TurnHeuristics.sentences(text)) {
            final boolean chat = TurnHeuristics.isSmallTalk(sentence)
                && !ANSWER.matcher(TurnHeuristics.normalizeQuotes(sentence)).find();
            if (!chat && !(withoutQuestions && TurnHeuristics.isQuestion(sentence))) {
                out.append(out.length() == 0 ? "" : " ").append(sentence);
            }
        }
        return out.length() == 0 ? text.strip() : out.toString();
    }

    /**
     * An exchange episode's two parts: the user's turn and the assistant's reply, as the content holds them.
     *
     * @param turn the user's message
     * @param reply the assistant's reply
     */
    public record Exchange(String turn, String reply) {

        /** @return the content of an exchange episode: {@code User: <turn> — Assistant: <reply>} */
        public String content() {
            return USER_PART + turn + ASSISTANT_PART + reply;
        }

        /**
         * @param content a memory's content
         * @return its parts when it is an exchange episode's content ({@link #content}), else null
         */
        public static Exchange parse(final String content) {
            final int reply = content.indexOf(ASSISTANT_PART);
            return content.startsWith(USER_PART) && reply >= USER_PART.length()
                ? new Exchange(content.substring(USER_PART.length(), reply), content.substring(reply + ASSISTANT_PART.length()))
                : null;
        }
    }

    /**
     * @param content an exchange episode's content ({@code User: <turn> — Assistant: <reply>})
     * @return the user's turn as a statement of it reads ({@link #ownWords}), or null when the content is not of
     *     that shape
     */
    public static String exchangeTurn(final String content) {
        final Exchange exchange = Exchange.parse(content);
        return exchange == null ? null : ownWords(exchange.turn());
    }
}
