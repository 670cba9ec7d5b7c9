package dev.engram.rules;

import java.util.Set;

/**
 * Regular-expression fragments and word lists shared by the statement rules of {@link FactRules}
 * ({@link IdentityRules}, {@link TechRules}, {@link LikingRules}, {@link LifeRules}, …). Every fragment
 * is meant for {@link FactRules#FLAGS} (case-insensitive, Unicode case); {@link #PROPER} switches case
 * sensitivity back on for itself.
 */
final class FactPatterns {

    /** Adverbs allowed between the subject and the verb ("I mostly use", "we recently moved"). */
    private static final String ADV = "(?:mostly|mainly|now|primarily|usually|always|still|also|really|just|actually"
        + "|currently|exclusively|only|basically|pretty\\s+much|recently|finally|totally|completely|absolutely"
        + "|kind\\s+of|sort\\s+of|officially|even)";

    static final String ADVS = "(?:" + ADV + "\\s+){0,2}";

    /** A capitalized name of up to four words ("Ferrovia Labs", "New York"); never the pronoun "I". */
    static final String PROPER = "(?-i:(?!I\\b)\\p{Lu}[\\p{L}\\p{N}&'.-]*(?:\\s+(?!I\\b)\\p{Lu}[\\p{L}\\p{N}&'.-]*){0,3})";

    static final String NUM = "(" + NumberWords.NUMBER + ")";

    /** A noun phrase of up to four words, cut at the first stop word by {@link #subject(String)}. */
    static final String SUBJ = "(\\p{L}[\\p{L}'-]*(?:\\s+\\p{L}[\\p{L}'-]*){0,3})";

    static final Set<String> STOP_WORDS = Set.of("and", "but", "or", "so", "because", "with", "when", "if",
        "since", "as", "for", "too", "very", "much", "lot", "anymore", "again", "now", "these", "all", "of", "on",
        "in", "at", "to", "more", "than", "though", "lately", "either", "really", "is", "are", "was", "were", "be",
        "which", "that", "who", "while", "from", "by", "about", "like", "the", "this", "those", "its",
        "it", "them", "there", "here", "then", "just", "still", "every", "most", "best", "ever", "any", "some", "out", "up", "into", "off", "over",
        "around", "through", "back", "down");

    static final Set<String> NOT_A_SUBJECT = Set.of("it", "that", "this", "them", "those", "these", "you",
        "him", "her", "me", "us", "what", "how", "when", "where", "why", "who", "to", "being", "having", "doing",
        "going", "getting", "everything", "anything", "something", "nothing", "it's", "that's", "there", "here",
        "your", "his", "their", "our", "my", "lots", "all", "some", "any", "every", "each", "both", "one", "myself",
        "yourself", "so", "too", "much", "way", "idea", "thought", "sound", "sounds", "hearing", "seeing", "know",
        "the", "a", "an", "such", "spending", "i", "i'm", "people", "whenever");

    static final Set<String> NOT_A_PLACE = Set.of("monday", "tuesday", "wednesday", "thursday", "friday",
        "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july", "august", "september",
        "october", "november", "december", "christmas", "easter", "the");

    private FactPatterns() {
    }
}
