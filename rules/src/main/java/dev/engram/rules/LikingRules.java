package dev.engram.rules;

import static dev.engram.rules.FactPatterns.ADVS;
import static dev.engram.rules.FactPatterns.NOT_A_SUBJECT;
import static dev.engram.rules.FactPatterns.STOP_WORDS;
import static dev.engram.rules.FactPatterns.SUBJ;
import static dev.engram.rules.FactRules.EXPLICIT;
import static dev.engram.rules.FactRules.IMPORTANCE_LIKES;
import static dev.engram.rules.FactRules.rule;
import static dev.engram.rules.FactRules.slug;
import static dev.engram.rules.FactRules.trimValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;
import dev.engram.text.CaselessPattern;
import dev.engram.text.TurnHeuristics;

/**
 * Likes and dislikes: {@code preference:<subject>} = like | dislike (PREFERENCE facts), from "I love
 * hiking", "X is my favourite", "I can't stand Y", "not a fan of Z"; the liked noun phrase is cut by
 * {@link #subject(String, boolean)}.
 */
final class LikingRules {

    private static final String FAV_ADJ = "(?:(?:all-time|all\\s+time|absolute|very|new|total|number\\s+one|top)\\s+)*";

    /** After a gerund, these start a clause or an object the phrase cannot stand without. */
    private static final Set<String> GERUND_NEEDS_MORE = Set.of("it", "them", "him", "her", "me", "us", "you", "my",
        "our", "your", "their", "his", "its", "this", "that", "these", "those", "what", "out", "up", "into", "off",
        "over", "around", "through", "back", "down", "on", "the", "a", "an", "some", "how", "when", "where", "who");

    /** Adverbs skipped before the liked thing ("I like also cheese pizza"). */
    private static final Set<String> LEADING_ADVERBS = Set.of("also", "really", "just", "totally", "absolutely",
        "so", "too", "still", "especially", "particularly", "actually");

    private static final CaselessPattern RELATIVE = CaselessPattern.compile("\\b(?:things?|something|everything|anything|what|which"
        + "|that|stuff|ones?|people|places?|someone|everyone)\\s+(?:(?:we|i)\\s+)?$");

    /** Kinds of favourite that name one work, person, team or colour: a slot of its own, {@code favorite:<kind>}. */
    private static final String FAVORITE_KIND = "(book|novel|movie|film|tv\\s+show|show|series|song|album|band|artist|singer"
        + "|musician|author|writer|poet|painter|composer|video\\s+game|board\\s+game|game|podcast|team|player|actor|actress"
        + "|director|colou?r|city|season|animal|flower|sport|holiday|painting|musical|character|superhero|anime|comedian)";

    private static final Map<String, String> KIND_NAMES = Map.of("novel", "book", "film", "movie", "tv show", "show",
        "series", "show", "colour", "color", "writer", "author", "musician", "artist", "actress", "actor");

    /**
     * A title up to a clause mark, a sentence end (not an initial's dot: "Ursula K. Le Guin"), a reason or a closing
     * lower-case "now" ("green now"; "Apocalypse Now" keeps its capital and stays the title).
     */
    private static final String TITLE = "([^,;!?]+?)(?=\\s*(?:[,;!?]|(?<!\\b\\p{Lu})\\.(?:\\s|$)|$|\\s+(?:because|since|but|and\\s+i"
        + "|which|these\\s+days|right\\s+now|at\\s+the\\s+moment)\\b|(?-i:\\s+now)\\s*[.!]?\\s*$))";

    /** Favourites, likes, dislikes. */
    static final List<Rule> RULES = List.of(
        rule("favorite-kind", "\\bmy\\s+" + FAV_ADJ + "favou?rite\\s+" + FAVORITE_KIND + "\\s+(?:of\\s+all\\s+time\\s+)?"
            + "(?:is|has\\s+to\\s+be|would\\s+be|at\\s+the\\s+moment\\s+is|right\\s+now\\s+is)\\s+" + TITLE,
            (m, s) -> favorite(m.group(1), m.group(2))),
        rule("favorite-kind-last", "(?:^|[,;]\\s*)([^,;]+?)\\s+(?:is|are)\\s+(?:still\\s+)?my\\s+" + FAV_ADJ + "favou?rite\\s+"
            + FAVORITE_KIND + "\\b", (m, s) -> favorite(m.group(2), m.group(1))),
        rule("favourite", "(?:^|[,;]\\s*)(?:the\\s+)?" + SUBJ + "\\s+(?:is|are)\\s+(?:still\\s+)?my\\s+" + FAV_ADJ
            + "favou?rites?\\b", (m, s) -> preference(subject(m.group(1), true), true)),
        rule("favourite-is", "\\bmy\\s+" + FAV_ADJ + "favou?rite\\s+(?:\\p{L}+\\s+){1,2}(?:is|are)\\s+" + SUBJ,
            (m, s) -> liked(m, s, true)),
        rule("gone-off", "\\b(?:i(?:'ve|\\s+have)?\\s+)?" + ADVS + "(?:gone|went)\\s+off\\s+" + SUBJ,
            (m, s) -> liked(m, s, false)),
        rule("dislike", "\\bi\\s+" + ADVS + "(?:hate|dislike|detest|loathe|despise|can't\\s+stand|cannot\\s+stand"
            + "|can\\s+no\\s+longer\\s+stand|don't\\s+like|do\\s+not\\s+like|don't\\s+enjoy|do\\s+not\\s+enjoy"
            + "|no\\s+longer\\s+like|no\\s+longer\\s+enjoy|(?:have\\s+)?never\\s+(?:really\\s+)?liked)\\s+" + SUBJ,
            (m, s) -> liked(m, s, false)),
        rule("cant-stand", "(?:^|[,;]\\s*)" + ADVS + "(?:can't|cannot)\\s+stand\\s+" + SUBJ,
            (m, s) -> liked(m, s, false)),
        rule("not-a-fan", "\\bi(?:'m|\\s+am)\\s+" + ADVS + "(?:not\\s+(?:a|much\\s+of\\s+a)\\s+fan\\s+of|sick\\s+of|tired\\s+of"
            + "|fed\\s+up\\s+with)\\s+" + SUBJ, (m, s) -> liked(m, s, false)),
        rule("fan", "\\bi(?:'m|\\s+am)\\s+" + ADVS + "an?\\s+(?:(?:big|huge|massive|great|lifelong|die-hard|devoted)\\s+)?"
            + "(" + FactPatterns.PROPER + ")\\s+fan\\b", (m, s) -> preference(m.group(1), true)),
        rule("fan-of", "\\bi(?:'m|\\s+am)\\s+" + ADVS + "(?:a\\s+)?(?:big\\s+|huge\\s+|massive\\s+)?fan\\s+of\\s+" + SUBJ,
            (m, s) -> liked(m, s, true)),
        rule("like", "\\bi\\s+" + ADVS + "(?:love|like|enjoy|adore)\\s+" + SUBJ,
            (m, s) -> liked(m, s, true)),
        // a preference between options, not use: "I prefer Trello" is no statement that the user uses it
        rule("prefer", "\\bi\\s+" + ADVS + "prefer\\s+" + SUBJ, (m, s) -> relativeClause(s, m.start()) ? List.of()
            : preference(subject(m.group(1), false), true, "Prefers ")));

    private LikingRules() {
    }

    /**
     * @param kind the kind of favourite ("book", "film", "colour")
     * @param raw the favourite as said, quotes and title marks allowed
     * @return {@code favorite:<kind>} = the favourite (film is movie, novel is book, colour is color); a title keeps
     *     its capitals, a common word ("green") is lower case
     */
    static List<Fact> favorite(final String kind, final String raw) {
        final String k = kind.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        final String slot = KIND_NAMES.getOrDefault(k, k).replace(' ', '_');
        final String value = trimValue(raw.replaceAll("[\"“”《》«»]", "")).replaceAll("\\s+", " ");
        if (value.isEmpty() || value.split(" ").length > 8 || NOT_A_SUBJECT.contains(value.toLowerCase(Locale.ROOT))) {
            return List.of();
        }
        final boolean chinese = value.codePoints().anyMatch(TurnHeuristics::unspacedScript);
        final String shown = chinese || Character.isUpperCase(value.charAt(0)) ? value : value.toLowerCase(Locale.ROOT);
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PREFERENCE, "favorite:" + slot, shown,
            "Favorite " + slot.replace('_', ' '), chinese ? "最喜欢的是" + shown
                : "Favorite " + slot.replace('_', ' ') + " is " + shown, false, IMPORTANCE_LIKES, EXPLICIT,
            MemorySource.EXPLICIT));
    }

    /**
     * "the things I love makes writing fun": the statement is inside a relative clause whose object is
     * before it, so the words after the verb are not what is liked.
     */
    private static boolean relativeClause(final String sentence, final int start) {
        return RELATIVE.matcher(sentence.substring(0, start)).find();
    }

    private static List<Fact> liked(final Matcher m, final String sentence, final boolean like) {
        return relativeClause(sentence, m.start()) || like && sarcastic(sentence, m.group())
            ? List.of() : preference(subject(m.group(1), false), like);
    }

    /** A sarcastic opener ("Oh sure, …", "Yeah right, …", "Oh great, …", "Sure, because …"); a closing "/s" too. */
    private static final java.util.regex.Pattern SARCASTIC_OPENER = java.util.regex.Pattern.compile(
        "^\\W*(?:oh\\W+(?:sure|great|yes|yeah|joy|goody|wonderful|fantastic|perfect)|yeah\\W+(?:right|sure)|sure\\W+because"
            + "|as\\s+if)\\b", java.util.regex.Pattern.CASE_INSENSITIVE);

    /** The liking verb shouted after "just" ("I just LOVE …"). */
    private static final java.util.regex.Pattern SARCASTIC_MARK = java.util.regex.Pattern.compile(
        "\\bjust\\s+(?:LOVE|LIKE|ADORE|ENJOY)\\b");

    /**
     * Whether a liking is said in clear sarcasm ("Oh sure, I just LOVE working weekends", "Yeah right, I just adore
     * filling in tax forms"): the words say the opposite of what is meant, so they state no liking (the sentence stays
     * in the turn's episode as said). Only explicit markers count: "I just love hiking" is a liking.
     *
     * @param sentence the whole sentence
     * @param statement the matched statement ("I just LOVE working weekends")
     */
    static boolean sarcastic(final String sentence, final String statement) {
        return SARCASTIC_OPENER.matcher(sentence).find() || SARCASTIC_MARK.matcher(statement).find()
            || sentence.strip().endsWith("/s");
    }

    private static List<Fact> preference(final String subject, final boolean like) {
        return preference(subject, like, like ? "Likes " : "Dislikes ");
    }

    private static List<Fact> preference(final String subject, final boolean like, final String verb) {
        if (subject.isEmpty()) {
            return List.of();
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PREFERENCE, "preference:" + slug(subject),
            like ? "like" : "dislike", "Preference: " + subject, verb + subject, false,
            IMPORTANCE_LIKES, EXPLICIT, MemorySource.EXPLICIT));
    }

    /**
     * @param raw up to four words after a liking verb, or before "is my favourite"
     * @param sentenceInitial true when the phrase starts the sentence (its capital is not a name's)
     * @return the noun phrase liked: leading adverbs skipped, cut at the first stop word, at most three
     *     words (titles such as "Lord of the Rings" keep their inner "of the"); a gerund keeps its object
     *     ("making jewelry") or stands alone before a preposition ("traveling to …" → "traveling"). Empty when
     *     the phrase is specific rather than a liking ("the color"), a pronoun, a possessive, an infinitive,
     *     a clause, or a gerund whose object is a pronoun or particle ("making him happy", "trying out")
     */
    /**
     * A particle that keeps the gerund's object in the liked thing when a bare noun follows ("filling in tax forms",
     * "swimming in lakes"); "in the sea" or "in Europe" is where, not what ("swimming", "traveling"). "out" and "up"
     * stay {@link #GERUND_NEEDS_MORE}: "I love trying out new recipes" is said of a moment, not a liking.
     */
    private static final Set<String> PARTICLES = Set.of("in");

    /** A lower-case noun that can be an object without an article ("forms", "tax"), not a name, pronoun or stop word. */
    private static boolean bareNoun(final String word) {
        final String w = trimValue(word);
        final String lower = w.toLowerCase(Locale.ROOT);
        return !w.isEmpty() && w.equals(lower) && w.chars().allMatch(Character::isLetter) && !STOP_WORDS.contains(lower)
            && !NOT_A_SUBJECT.contains(lower) && !GERUND_NEEDS_MORE.contains(lower) && !lower.endsWith("ly");
    }

    static String subject(final String raw, final boolean sentenceInitial) {
        final String[] words = trimValue(raw).split("\\s+");
        int start = 0;
        while (start < words.length - 1 && LEADING_ADVERBS.contains(words[start].toLowerCase(Locale.ROOT))) {
            start++;
        }
        final List<String> kept = new ArrayList<>();
        final boolean title = words.length > start + 1 && Character.isUpperCase(words[start].charAt(0))
            && Character.isUpperCase(words[words.length - 1].charAt(0));
        boolean phrasal = false;
        for (int i = start; i < words.length && kept.size() < (title || phrasal ? 4 : 3); i++) {
            final String w = words[i];
            final String lower = w.toLowerCase(Locale.ROOT);
            if (kept.size() == 1 && kept.get(0).endsWith("ing") && PARTICLES.contains(lower) && i + 1 < words.length
                && bareNoun(words[i + 1])) {
                phrasal = true; // "filling in tax forms": the particle and its object are the liked thing
            } else if (kept.isEmpty()) {
                if (NOT_A_SUBJECT.contains(lower) || STOP_WORDS.contains(lower) || lower.equals("not")
                    || lower.equals("they") || lower.equals("he") || lower.equals("she") || lower.equals("we")) {
                    return "";
                }
            } else if (kept.get(0).endsWith("ing") && kept.size() == 1 && GERUND_NEEDS_MORE.contains(lower)) {
                return "";
            } else if (STOP_WORDS.contains(lower) && !(title && (lower.equals("of") || lower.equals("the")))) {
                break;
            }
            kept.add(w);
        }
        final boolean properName = kept.stream().skip(1).anyMatch(k -> Character.isUpperCase(k.charAt(0)))
            || (!sentenceInitial && !kept.isEmpty() && Character.isUpperCase(kept.get(0).charAt(0)));
        final String phrase = String.join(" ", kept);
        return properName ? phrase : phrase.toLowerCase(Locale.ROOT);
    }
}
