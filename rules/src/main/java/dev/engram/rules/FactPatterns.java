package dev.engram.rules;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * Regular-expression fragments and word lists shared by the statement rules of {@link FactRules}
 * ({@link IdentityRules}, {@link TechRules}, {@link LikingRules}, {@link LifeRules}, …). Every fragment
 * is meant for {@link FactRules#FLAGS} (case-insensitive, Unicode case); {@link #PROPER} switches case
 * sensitivity back on for itself.
 */
final class FactPatterns {

    /** Compiled once: String#split, #replaceAll and #matches compile their pattern at every call, here per word. */
    private static final Pattern ITEM_WORDS = Pattern.compile("(?<=,)\\s*|\\s+");
    private static final Pattern WORD_END = Pattern.compile("[,.;:!?)\\]\"]+$");
    private static final Pattern COMMA_OR_STOP_END = Pattern.compile("[,.]+$");
    private static final Pattern DIGIT = Pattern.compile(".*\\d.*");

    /** Adverbs allowed between the subject and the verb ("I mostly use", "we recently moved"). */
    private static final String ADV = "(?:mostly|mainly|now|primarily|usually|always|still|also|really|just|actually"
        + "|currently|exclusively|only|basically|pretty\\s+much|recently|finally|totally|completely|absolutely"
        + "|kind\\s+of|sort\\s+of|officially|even|remotely|full-time|part-time|happily|proudly|both|all)";

    static final String ADVS = "(?:" + ADV + "\\s+){0,2}";

    /** A capitalized name of up to four words ("Ferrovia Labs", "New York"); never the pronoun "I". */
    static final String PROPER = "(?-i:(?!I\\b)\\p{Lu}[\\p{L}\\p{N}&'.-]*(?:\\s+(?:&\\s+)?(?!I\\b)\\p{Lu}[\\p{L}\\p{N}&'.-]*){0,3})";

    static final String NUM = "(" + NumberWords.NUMBER + ")";

    /** A noun phrase of up to four words, cut at the first stop word by {@link #subject(String)}. */
    static final String SUBJ = "(\\p{L}[\\p{L}'-]*(?:\\s+\\p{L}[\\p{L}'-]*){0,3})";

    /** A word of a list item; a colon inside joins a name ("CS:GO"). */
    private static final String WORD = "[\\p{L}'-]+(?::\\p{L}+)?";
    private static final String MORE_WORD = "(?:\\s+(?!(?:and|or|but|so|because|since|while|which|who)\\b)" + WORD + ")";
    private static final String NEXT_ITEM = "(?:\\s*,\\s*(?:and\\s+|or\\s+)?|\\s+(?:and|or|&)\\s+)"
        + "(?!(?:i|i'm|i've|i'd|we|we're|my|our|he|she|they|it|so|also|then|now|but|carry|take|use|need|have|am|can't"
        + "|don't|do|live|work|play|love|like|hate|eat|drink|go|get|keep|avoid)\\b)";

    /**
     * A short list as the object of a statement, captured as group 1: items of up to three words separated by commas,
     * "and" or "or", ending before a new clause ("eggs and sesame", not "peanuts and I take insulin"), so a rule
     * claims no more of the sentence than its list; {@link #items} then cuts each item at its stop words.
     */
    static final String LIST = "(" + WORD + MORE_WORD + "{0,2}(?:" + NEXT_ITEM + WORD + MORE_WORD + "{0,2})*)";

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

    /** Words that end a listed item's run ("allergic to eggs and sesame, so …"): a clause or a reason starts. */
    private static final Set<String> LIST_END = Set.of("so", "but", "because", "since", "which", "that", "when",
        "while", "if", "though", "although", "as", "for", "from", "in", "at", "on", "with", "after", "before", "during",
        "every", "each", "twice", "once", "daily", "ago", "last", "until", "whenever", "too", "also",
        "anymore", "again", "now", "please", "is", "are", "was", "were", "be", "has", "have", "had", "most", "more",
        "than", "over", "to", "into", "by", "about", "then", "like", "the");

    /** Words after "and" that start a new clause rather than the next item ("tennis and I'm a fan of jazz"). */
    private static final Set<String> CLAUSE_START = Set.of("i", "i'm", "i've", "i'd", "i'll", "we", "we're", "my",
        "our", "he", "she", "they", "it", "it's", "his", "her", "their", "you", "this", "that", "there", "then", "so",
        "also", "now", "am", "is", "are", "have", "has", "do", "use", "take", "play", "live", "work", "go", "run", "carry",
        "need", "eat", "drink", "get", "love", "like", "hate", "keep", "avoid", "can't", "don't");

    private FactPatterns() {
    }

    /**
     * The items of a list that starts a clause: "eggs and sesame, so I read labels" gives [eggs, sesame];
     * "tennis and I'm a big fan of jazz" gives [tennis]. An item is at most {@code maxWords} words; the list ends at
     * a clause mark, a word of {@link #LIST_END}, a digit, or "and"/"or" followed by a new clause.
     *
     * @param rest the text after the verb, e.g. after "allergic to"
     * @param maxWords words per item at most
     * @return the items as said, in order, without articles; empty when the first word cannot start an item
     */
    static java.util.List<String> items(final String rest, final int maxWords) {
        final java.util.List<String> out = new java.util.ArrayList<>();
        final String[] words = ITEM_WORDS.split(rest.strip());
        final java.util.List<String> current = new java.util.ArrayList<>();
        for (int i = 0; i < words.length; i++) {
            String w = words[i];
            final boolean comma = w.endsWith(",");
            w = WORD_END.matcher(w).replaceAll("");
            final String lower = w.toLowerCase(java.util.Locale.ROOT);
            if (w.isEmpty()) {
                break;
            }
            if (lower.equals("and") || lower.equals("or") || lower.equals("&")) {
                final String next = i + 1 < words.length ? words[i + 1].toLowerCase(java.util.Locale.ROOT) : "";
                if (current.isEmpty() || CLAUSE_START.contains(COMMA_OR_STOP_END.matcher(next).replaceAll(""))) {
                    break;
                }
                out.add(String.join(" ", current));
                current.clear();
                continue;
            }
            if ((lower.equals("a") || lower.equals("an") || lower.equals("some")) && current.isEmpty()) {
                continue;
            }
            if (LIST_END.contains(lower) || DIGIT.matcher(lower).matches() || NumberWords.parse(lower) > 0
                || (current.isEmpty() && (NOT_A_SUBJECT.contains(lower) || STOP_WORDS.contains(lower)))
                || current.size() == maxWords) {
                break;
            }
            current.add(w);
            if (comma) {
                out.add(String.join(" ", current));
                current.clear();
                final String next = i + 1 < words.length ? words[i + 1].toLowerCase(java.util.Locale.ROOT) : "";
                if (!next.equals("and") && !next.equals("or") && (CLAUSE_START.contains(next) || LIST_END.contains(next))) {
                    return out;
                }
            }
        }
        if (!current.isEmpty()) {
            out.add(String.join(" ", current));
        }
        return out;
    }

    /**
     * @param noun a noun phrase
     * @return its last word in the singular by the regular English rules ("peanuts" → "peanut", "strawberries" →
     *     "strawberry", "bee stings" → "bee sting", "tomatoes" → "tomato"); words in -ss, -us, -is and short words kept
     */
    static String singular(final String noun) {
        final int space = noun.lastIndexOf(' ');
        final String head = noun.substring(0, space + 1);
        final String last = noun.substring(space + 1);
        final String lower = last.toLowerCase(java.util.Locale.ROOT);
        if (lower.length() <= 3 || lower.endsWith("ss") || lower.endsWith("us") || lower.endsWith("is")
            || !lower.endsWith("s") || PLURAL_ONLY.contains(lower)) {
            return noun;
        }
        if (lower.endsWith("sses")) {
            return head + last.substring(0, last.length() - 2);
        }
        if (lower.endsWith("ies")) {
            return head + last.substring(0, last.length() - 3) + "y";
        }
        if (lower.endsWith("oes") || lower.endsWith("ches") || lower.endsWith("shes") || lower.endsWith("xes")) {
            return head + last.substring(0, last.length() - 2);
        }
        return head + last.substring(0, last.length() - 1);
    }

    /** Words in -s that are no plural ("diabetes"). */
    private static final Set<String> PLURAL_ONLY = Set.of("diabetes", "rabies", "herpes", "measles", "mumps", "scabies",
        "shingles", "series", "species", "news", "lens", "aids", "hiv", "ibs", "copd", "pcos", "ms");

    /** A sentence whose subject is the speaker: it starts with I, I'm, I've, We … */
    private static final java.util.regex.Pattern FIRST_PERSON_START = java.util.regex.Pattern.compile(
        "^\\W*(?:(?:so|and|but|also|well|yes|yeah|actually|oh|honestly)\\W+)?(?:i|i'm|i've|i'd|we|we're|we've)\\b",
        java.util.regex.Pattern.CASE_INSENSITIVE);
    /** Someone else named before the statement ("I think my mom is … and allergic to"). */
    private static final java.util.regex.Pattern SOMEONE_ELSE = java.util.regex.Pattern.compile(
        "\\b(?:he|she|they|his|her|their|my|our|your|you)\\b", java.util.regex.Pattern.CASE_INSENSITIVE);

    /**
     * @param sentence the sentence
     * @param start where a subject-less statement starts ("… and allergic to soy")
     * @return true when the sentence starts with the speaker as subject and names no one else before {@code start}
     */
    static boolean userIsSubject(final String sentence, final int start) {
        final String before = sentence.substring(0, start);
        return FIRST_PERSON_START.matcher(before).find() && !SOMEONE_ELSE.matcher(before).find();
    }
}
