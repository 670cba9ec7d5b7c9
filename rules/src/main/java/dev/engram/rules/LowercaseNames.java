package dev.engram.rules;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names typed in lower case by a user who types everything in lower case ("i live in oslo", "i work at google", "my
 * name is tom"): the statement rules read a name as a capitalized word ({@link FactPatterns#PROPER}), so such a user
 * gave no fact. When a user message has no capital letter but at sentence starts and in "I" ({@link #applies}), the words right after the
 * cues below are read as the name a capitalized message would have ({@link #capitalized}), and the rules then read the
 * sentence as usual: the fact's value and content carry the name capitalized ("Oslo", "Lives in Oslo").
 *
 * <p>Cues: where the user lives ({@code live in}, {@code living in}, {@code lived in}, {@code based in}, {@code
 * residing in}, {@code moved to}, {@code moved from … to}), works ({@code work at}, {@code work for}, {@code working
 * at}, {@code worked for}, {@code employed by}, …) and is called ({@code my name is}, {@code my name's}). A name is at
 * most {@value #MAX_WORDS} words ("new york", "deutsche bank") and ends at a word that cannot be part of one ("i live
 * in oslo with my wife", "i work at google as an engineer"). What follows a cue is not a name when its first word is a
 * determiner, pronoun, quantifier, adverb or common noun ("i live in a flat", "i work at home", "i live in the city",
 * "my name is hard to spell"): such a sentence gives no fact, as it would capitalized. "call me …" is not a cue: "call
 * me crazy", "call me later" name no one.
 *
 * <p>Only the sentence the rules read is changed, letter for letter (same length: spans stay valid); the episode keeps
 * the user's words as typed.
 */
final class LowercaseNames {

    /** Words of a name at most ("rio de janeiro" is three; {@link FactPatterns#PROPER} takes four). */
    static final int MAX_WORDS = 3;

    private static final Pattern CUE = Pattern.compile("\\b(?:(?:live|lives|living|lived|based|reside|residing)\\s+in"
        + "|(?:moved|relocated)\\s+(?:back\\s+|over\\s+|out\\s+)?(?:from|to)"
        + "|(?:work|working|worked)\\s+(?:remotely\\s+|full-time\\s+|part-time\\s+|freelance\\s+)?(?:at|for)"
        + "|employed\\s+(?:by|at|with)|my\\s+name(?:'s|\\s+is))\\s+");
    /** "moved from vienna to graz": the place moved to, after the place left. */
    private static final Pattern THEN_TO = Pattern.compile("\\s+to\\s+");
    private static final Pattern WORD = Pattern.compile("[\\p{L}][\\p{L}\\p{M}'&.-]*");

    /**
     * Words never read as (part of) a name after a cue: determiners, pronouns, quantifiers, adverbs and the words a
     * sentence goes on with ("i live in oslo with my wife").
     */
    private static final Set<String> NOT_A_NAME = Set.copyOf(java.util.List.of(
        // determiners, pronouns, quantifiers
        "a", "an", "the", "my", "our", "your", "his", "her", "their", "its", "this", "that", "these", "those", "it",
        "them", "him", "me", "us", "you", "myself", "ourselves", "yourself", "themselves", "some", "any", "every",
        "each", "both", "all", "no", "none", "many", "several", "various", "different", "other", "another", "one",
        "two", "three", "few", "lots", "much", "more", "most", "such", "same", "what", "which", "whatever", "who",
        "whoever", "someone", "anyone", "everyone", "nobody", "somebody", "something", "anything", "nothing",
        "everything", "somewhere", "anywhere", "nowhere", "everywhere", "here", "there", "where", "how", "why", "when",
        // adverbs and the words a sentence goes on with
        "now", "currently", "still", "also", "just", "actually", "really", "mostly", "mainly", "usually", "always",
        "never", "only", "even", "again", "too", "so", "very", "quite", "pretty", "rather", "kind", "sort", "right",
        "near", "close", "next", "outside", "inside", "together", "alone", "permanently", "temporarily", "remotely",
        "full-time", "part-time", "freelance", "nowadays", "lately", "recently", "today", "tonight", "yesterday",
        "tomorrow", "anyway", "though", "tho", "btw", "lol", "haha", "rn", "atm", "since", "for", "with", "without",
        "and", "or", "but", "as", "because", "if", "while", "until", "in", "at", "on", "to", "from", "by", "of",
        "about", "like", "than", "then", "after", "before", "during", "over", "under", "around", "between", "is",
        "was", "are", "be", "not", "literally", "officially", "basically", "last", "this", "year", "years", "month",
        "months", "week", "weeks", "day", "days", "time", "times", "ages", "hours", "forever", "long", "abroad",
        "overseas", "downtown", "uptown", "upstairs", "downstairs", "nearby", "locally", "online", "offline", "part",
        "full", "half", "remote", "hybrid"));

    /**
     * Words that start no name after a cue, though a name may go on with them ("new york", "deutsche bank"): the
     * common nouns and adjectives that follow these cues ("work at home", "live in town", "my name is weird").
     */
    private static final Set<String> NOT_A_FIRST_NAME = Set.copyOf(java.util.List.of(
        // common nouns after "live in" / "moved to"
        "town", "city", "cities", "village", "suburbs", "suburb", "countryside", "country", "flat", "flats",
        "apartment", "apartments", "house", "houses", "home", "homes", "dorm", "dorms", "halls", "residence", "tent",
        "van", "car", "hope", "fear", "peace", "sin", "denial", "harmony", "poverty", "luxury", "comfort", "style",
        "misery", "constant", "shame", "terror", "bliss", "nature", "reality", "area", "region", "state",
        "place", "places", "neighborhood", "neighbourhood", "capital", "center", "centre", "north", "south", "east",
        "west", "school", "college", "university", "uni", "campus", "bed",
        // common nouns after "work at" / "work for"
        "night", "nights", "weekends", "weekend", "work", "office", "offices", "hospital", "hospitals", "church",
        "clinic", "bank", "banks", "startup", "startups", "company", "companies", "firm", "factory", "shop", "store",
        "stores", "cafe", "café", "restaurant", "restaurants", "bakery", "bar", "pub", "hotel", "lab", "labs",
        "library", "museum", "warehouse", "farm", "gym", "salon", "airport", "agency", "nonprofit", "nonprofits",
        "charity", "government", "family", "friends", "clients", "customers", "people", "others", "free", "fun",
        "money", "peanuts", "tips", "cash", "food", "pay", "minimum", "exposure", "equity", "pleasure", "sure",
        "dad", "mom", "mum", "father", "mother", "parents", "uncle", "aunt", "brother", "sister", "myself",
        // adjectives after "my name is"
        "hard", "easy", "weird", "strange", "odd", "funny", "unusual", "common", "rare", "unique", "short", "long",
        "difficult", "simple", "pronounced", "spelled", "spelt", "written", "misspelled", "ok", "okay", "fine",
        "important", "irrelevant", "private", "secret", "unknown", "complicated", "boring", "cool", "nice",
        "beautiful", "ugly", "french", "english", "german", "spanish", "italian", "old", "listed",
        "mentioned", "changed", "known", "given", "taken", "already", "definitely", "probably", "maybe", "perhaps"));

    private static final Pattern DIGIT = Pattern.compile(".*\\d.*");

    private LowercaseNames() {
    }

    /**
     * @param message a user message as said
     * @return true when it has a letter and no capital letter but where a phone's autocorrect or a sentence-case habit
     *     puts one: the first letter of a sentence (of the message, or after {@code .}, {@code !}, {@code ?}) and the
     *     pronoun "I" ("I live in oslo", "Moved to graz last year. I love it"); its names are typed in lower case too
     */
    static boolean applies(final String message) {
        boolean letter = false;
        boolean sentenceStart = true;
        for (int i = 0; i < message.length(); ) {
            final int c = message.codePointAt(i);
            final int next = i + Character.charCount(c);
            if ((Character.isUpperCase(c) || Character.isTitleCase(c)) && !sentenceStart && !pronounI(message, i, next)) {
                return false;
            }
            if (Character.isLetterOrDigit(c)) {
                letter |= Character.isLetter(c);
                sentenceStart = false;
            } else if (c == '.' || c == '!' || c == '?') {
                sentenceStart = true;
            }
            i = next;
        }
        return letter;
    }

    /** @return whether the capital at [at, end) is the word "I" (alone, or "I'm", "I've", "I'd", "I'll") */
    private static boolean pronounI(final String message, final int at, final int end) {
        return message.charAt(at) == 'I' && (at == 0 || !Character.isLetterOrDigit(message.codePointBefore(at)))
            && (end == message.length() || !Character.isLetterOrDigit(message.codePointAt(end)));
    }

    /**
     * @param sentence a sentence of a message for which {@link #applies} holds
     * @return the sentence with the name after each cue capitalized ("i live in new york" → "i live in New York"),
     *     of the same length; the sentence itself when no cue is followed by a name
     */
    static String capitalized(final String sentence) {
        final Matcher cue = CUE.matcher(sentence);
        StringBuilder out = null;
        int from = 0;
        while (cue.find(from)) {
            if (out == null) {
                out = new StringBuilder(sentence);
            }
            final int end = capitalize(sentence, cue.end(), out);
            from = Math.max(end, cue.end());
            // "moved from vienna to graz": the place moved to as well
            final Matcher to = THEN_TO.matcher(sentence).region(from, sentence.length());
            if (end > cue.end() && cue.group().contains("from") && to.lookingAt()) {
                from = Math.max(capitalize(sentence, to.end(), out), to.end());
            }
        }
        return out == null ? sentence : out.toString();
    }

    /** The start of a short "no" answer, before the name it gives ("no, ottawa now", "nope, in graz"). */
    private static final Pattern ANSWER = Pattern.compile("^\\W*(?:no|nope|nah|not\\s+any\\s?more|no\\s+longer)\\b"
        + "[\\s,;:.!-]*(?:(?:i'm\\s+in|i\\s+am\\s+in|in|at|it's|using)\\s+)?", Pattern.CASE_INSENSITIVE);

    /**
     * @param sentence a short answer for which {@link #applies} holds
     * @return it with the name after its "no" capitalized ("no, ottawa now" → "no, Ottawa now", {@link Answers}); the
     *     sentence itself when it is no such answer or names nothing there
     */
    static String answer(final String sentence) {
        final Matcher cue = ANSWER.matcher(sentence);
        if (!cue.lookingAt()) {
            return sentence;
        }
        final StringBuilder out = new StringBuilder(sentence);
        return capitalize(sentence, cue.end(), out) > cue.end() ? out.toString() : sentence;
    }

    /**
     * Capitalizes the words of the name starting at {@code at}, in {@code out}.
     *
     * @return where the name ends, {@code at} when none starts there
     */
    private static int capitalize(final String sentence, final int at, final StringBuilder out) {
        int end = at;
        int words = 0;
        final Matcher word = WORD.matcher(sentence);
        int next = at;
        while (words < MAX_WORDS && word.find(next) && word.start() == next) {
            final String w = word.group().toLowerCase(Locale.ROOT);
            final String bare = w.endsWith(".") ? w.substring(0, w.length() - 1) : w;
            if (NOT_A_NAME.contains(bare) || words == 0 && NOT_A_FIRST_NAME.contains(bare)
                || FactPatterns.STOP_WORDS.contains(bare)
                || FactPatterns.NOT_A_SUBJECT.contains(bare) || FactPatterns.NOT_A_PLACE.contains(bare)
                || DIGIT.matcher(bare).matches()
                || words > 0 && (bare.endsWith("ly") || bare.endsWith("ing"))) {
                break;
            }
            final int first = sentence.codePointAt(word.start());
            out.replace(word.start(), word.start() + Character.charCount(first),
                new String(Character.toChars(Character.toTitleCase(first))));
            end = word.end();
            words++;
            // the next word, after one blank; a full stop or a comma ends the name
            if (!bare.equals(w) || end >= sentence.length() || sentence.charAt(end) != ' ') {
                break;
            }
            next = end + 1;
        }
        return end;
    }
}
