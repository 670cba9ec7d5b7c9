package dev.engram.rules;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.text.CaselessPattern;
import dev.engram.text.CaselessText;
import dev.engram.text.TurnHeuristics;

/**
 * The statement patterns of {@link RuleBasedExtractor}: one sentence said by the user in, the facts
 * it states about the user out.
 *
 * <p>Rules are tried in a fixed priority order (response style, diet changes, retractions, safety facts, name,
 * work, home, technical terms, diet, favourites, likes and dislikes, hobbies, people and places, then the weak "lone
 * diet word" rule). A
 * match claims its span of the sentence, so a later rule cannot read the same words again ("I prefer
 * short answers" is a response style, not a liking for "short answers"), and within one sentence the
 * first fact per key wins, but a value stated beside a retraction of the same key wins over the retraction.
 * Questions and hypotheticals ("if I moved to Paris") state nothing.
 *
 * <p>The rules live with their statement kind: {@link ResponseStyleRules}, {@link DietRules},
 * {@link TechRules}, {@link IdentityRules} (name, role, employer, city), {@link SafetyRules} (allergies, conditions,
 * medication, foods avoided, accessibility), {@link LikingRules} (favourites, likes), {@link HobbyRules},
 * {@link LifeRules} (family, pets, hometown, places visited, languages, age, plans), {@link RoutineRules} (wake-up
 * and bed times), {@link ChineseRules} (city,
 * employer, role, likes stated in Chinese), {@link ChineseSafetyRules}, {@link ChineseLifeRules}; shared fragments in
 * {@link FactPatterns}.
 * This class orders them, applies them to a sentence and holds the numbers below.
 *
 * <h2>Numbers</h2>
 * Importance and confidence are this heuristic's own, on the 0..1 scales of the memory model
 * (docs/ARCHITECTURE.md: below 0.3 importance or 0.5 confidence is not stored):
 * <ul>
 *   <li>confidence {@link #EXPLICIT} 0.9 — a first-person statement matched by a specific pattern; not
 *       1.0, which the memory model reserves for a user's own correction through the API, because patterns can
 *       misread irony or reported speech;</li>
 *   <li>{@link #FRAGMENT} 0.8 — a subject-less fragment ("Now living in Trondheim", "Three years at
 *       Ferrovia Labs"): explicit, but the subject is implied;</li>
 *   <li>{@link #RETRACTION} 0.85 — "I no longer …": explicit, slightly below a positive statement because
 *       a retraction's scope (which value it ends) is read from the pattern alone;</li>
 *   <li>{@link #INFERRED_CONFIDENCE} 0.6 — a diet word without a first-person verb ("vegan potluck was
 *       great"): evidence, not a statement; above the 0.5 floor so it can reinforce an explicit fact, and
 *       below every explicit value so it never raises a fact's confidence past what the user said.</li>
 * </ul>
 * Importance per slot ranks how much a wrong or missing fact costs the next answer: a safety fact 0.95 (ignoring
 * an allergy can harm), name 0.9 (used in
 * almost every reply), response style 0.85 (shapes every reply), diet 0.8 (a constraint: ignoring it
 * harms), role and employer 0.75, language / IDE / cloud / city 0.7 (context for technical and local
 * answers), likes, dislikes and other tools 0.6 (useful, rarely decisive). All are above the 0.3 floor:
 * a fact the user states about themselves is always worth keeping.
 */
final class FactRules {

    /** Compiled once: String#split and #replaceAll compile their pattern at every call, and these run per sentence. */
    private static final Pattern BETWEEN_WORDS = Pattern.compile("[^\\p{L}\\p{N}'\\p{M}]+");
    private static final Pattern TRAILING_PUNCTUATION = Pattern.compile("[\\p{Punct}\\s]+$");
    private static final Pattern LEADING_PUNCTUATION = Pattern.compile("^[\\p{Punct}\\s]+");
    private static final Pattern NOT_SLUG = Pattern.compile("[^\\p{L}\\p{N}+#]+");
    private static final Pattern EDGE_UNDERSCORE = Pattern.compile("^_|_$");

    /** Confidence of a first-person statement matched by a specific pattern. */
    static final double EXPLICIT = 0.9;
    /** Confidence of a subject-less fragment. */
    static final double FRAGMENT = 0.8;
    /** Confidence of a retraction ("I no longer …"). */
    static final double RETRACTION = 0.85;
    /** Confidence of a diet inferred from a lone diet word. */
    static final double INFERRED_CONFIDENCE = 0.6;
    /**
     * Content words (stop words and pronouns not counted; in scripts without spaces, letters) outside every
     * matched statement from which a sentence says more than its facts ("I like singing, dancing, working out,
     * traveling and photography", "我喜欢看电影，这些电影总是让我感到兴奋").
     */
    static final int UNCOVERED_WORDS = 3;
    /**
     * Content words outside every matched statement from which any sentence says more than its facts: "I live in
     * Lisbon, where I run a small bakery with my sister" is the city and a bakery run with a sister, which only the
     * turn's episode keeps. Above {@link #UNCOVERED_WORDS}, so an aside ("As I said before, Kotlin is my main
     * language", "I moved to Porto last month") leaves the fact alone, as an episode repeating a fact would embed next to
     * it and reinforce or shadow it.
     */
    static final int SAYS_MORE_WORDS = 4;

    /**
     * Importance of a safety fact (allergy, condition, medication, food avoided, accessibility need): the highest, as
     * ignoring one can harm the user ({@link SafetyRules}).
     */
    static final double IMPORTANCE_SAFETY = 0.95;
    static final double IMPORTANCE_NAME = 0.9;
    static final double IMPORTANCE_RESPONSE_STYLE = 0.85;
    static final double IMPORTANCE_DIET = 0.8;
    static final double IMPORTANCE_WORK = 0.75;
    static final double IMPORTANCE_CONTEXT = 0.7;
    static final double IMPORTANCE_LIKES = 0.6;

    /**
     * One fact stated in a sentence (before it gets a message index and time).
     *
     * @param type SEMANTIC or PROCEDURAL
     * @param category the fact category
     * @param key the slot
     * @param value the value, canonical spelling
     * @param displayName a label for the slot
     * @param content the fact as a short third-person sentence, numbers as digits
     * @param negated true when it retracts key=value
     * @param importance 0..1
     * @param confidence 0..1
     * @param source EXPLICIT or INFERRED
     * @param partial true when the sentence says more than its facts ({@value #UNCOVERED_WORDS} words or more
     *     outside every matched statement, for a liking or a Chinese fact): the sentence then still belongs in
     *     the turn's episode
     */
    record Fact(MemoryType type, FactCategory category, String key, String value, String displayName,
                String content, boolean negated, double importance, double confidence, MemorySource source,
                boolean partial) {

        /** A fact that covers its sentence (until {@link #extract} finds it does not). */
        Fact(final MemoryType type, final FactCategory category, final String key, final String value,
             final String displayName, final String content, final boolean negated, final double importance,
             final double confidence, final MemorySource source) {
            this(type, category, key, value, displayName, content, negated, importance, confidence, source, false);
        }

        Fact asPartial() {
            return new Fact(type, category, key, value, displayName, content, negated, importance, confidence, source,
                true);
        }
    }

    /** Turns a match of a rule's pattern into the facts it states (empty: the match states nothing). */
    @FunctionalInterface
    interface Builder {
        /**
         * @param match the rule's pattern matched in the sentence
         * @param sentence the whole sentence, quotes normalized
         * @return the facts stated, possibly empty
         */
        List<Fact> build(Matcher match, String sentence);
    }

    /**
     * One statement pattern.
     *
     * @param name a stable label (for tests and debugging)
     * @param pattern compiled with {@link #FLAGS} ({@link CaselessPattern}: an ASCII sentence is matched without the cost
     *     of Unicode case folding, with the same result)
     * @param builder what a match states
     */
    record Rule(String name, CaselessPattern pattern, Builder builder) {
    }


    /** Case-insensitive with Unicode case folding: the flags of every rule's pattern. */
    static final int FLAGS = Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;

    /**
     * Keys of statements usually said in passing, inside a longer sentence ("I'm allergic to cats, so we never got
     * one", "I'm from Cork and I miss the sea"): like a liking, such a fact leaves the sentence in the episode when the
     * sentence says more.
     */
    private static final List<String> PARTIAL_KEYS = List.of("hometown", "speaks:", "age", "allergy:", "intolerance:",
        "condition:", "medication:", "avoids:", "accessibility:");

    /** Keys whose facts name someone or somewhere the sentence says more about: the sentence still makes an episode. */
    private static final List<String> MENTION_KEYS = List.of("family:", "friend:", "pet:", "visited:", "plan:");

    private static final CaselessPattern HYPOTHETICAL = CaselessPattern.compile(
        "\\b(?:if|unless|wish|would|could|might|maybe|perhaps|hope|hoping|dream|dreaming|someday|imagine|whether"
            + "|want\\s+to|wanna|plan\\s+to|planning\\s+to|going\\s+to|gonna|thinking\\s+(?:of|about)|considering)\\b");

    /** Every rule in priority order; the comments name the priority groups. */
    private static final List<Rule> RULES = Stream.of(
        ResponseStyleRules.RULES,       // 1. how the user wants to be served
        DietRules.CHANGES,              // 2. diet changes stated by what the user eats again
        ChangeRules.RULES,              //    changes said in everyday words (a medication switched, an allergy outgrown)
        TechRules.RETRACTED,            // 3. retractions
        IdentityRules.RETRACTED,
        DietRules.RETRACTED,
        SafetyRules.RETRACTED,
        LifeRules.RETRACTED,
        ChineseRetractions.RULES,
        SafetyRules.RULES,              // 4. allergies, conditions, medication, foods avoided, accessibility
        DoseRules.RULES,                //    a medication's dose changed
        IdentityRules.STATED,           // 5. who the user is, 6. where the user lives
        TechRules.STATED,               // 7. technical terms
        DietRules.STATED,               // 8. diet stated in the first person
        LikingRules.RULES,              // 9. favourites, likes and dislikes
        DrinkRules.RULES,               //    the drinks of the user's habits
        HobbyRules.RULES,               // 10. hobbies
        LifeRules.RULES,                // 11. people, pets, hometown, places visited, languages, age; wishes and plans
        RoutineRules.RULES,             //     the times of the user's day (wake-up, bedtime)
        ChineseRules.RULES,             // the same kinds stated in Chinese
        ChineseSafetyRules.RULES,
        ChineseLifeRules.RULES,
        DietRules.WEAK)                 // 12. weak evidence: a diet word with no verb
        .flatMap(List::stream).toList();

    private FactRules() {
    }

    /**
     * @param name the rule's label
     * @param regex its pattern, compiled with {@link #FLAGS}
     * @param builder what a match states
     * @return the rule
     */
    static Rule rule(final String name, final String regex, final Builder builder) {
        return new Rule(name, CaselessPattern.compile(regex), builder);
    }

    /**
     * @param sentence one sentence said by the user
     * @return the facts it states, at most one per key, in rule priority order; empty for a question
     */
    static List<Fact> extract(final String sentence) {
        return extract(sentence, List.of());
    }

    /**
     * @param sentence one sentence said by the user, stripped
     * @param quoted [start, end) spans of the sentence inside someone else's quotation that runs over several
     *     sentences ({@link ReportedSpeech#othersQuotations}): what is said there states nothing about the user
     * @return the facts it states, at most one per key, in rule priority order; empty for a question
     */
    static List<Fact> extract(final String sentence, final List<int[]> quoted) {
        final String text = normalizeQuotes(sentence).strip();
        if (text.isEmpty() || TurnHeuristics.isQuestion(text)) {
            return List.of();
        }
        final List<int[]> claimed = new ArrayList<>();
        final Map<String, Fact> byKey = new LinkedHashMap<>();
        final CaselessText subject = CaselessText.of(text); // once for the ~150 rules
        final boolean ascii = subject.ascii();
        final List<int[]> reported = new ArrayList<>(ReportedSpeech.spans(text, ascii));
        reported.addAll(quoted);
        for (final Rule rule : RULES) {
            if (!rule.pattern().mayMatch(subject)) {
                continue; // a word the rule cannot match without is missing: most rules, most sentences
            }
            final Matcher m = rule.pattern().matcher(subject);
            while (m.find()) {
                if (overlaps(claimed, m.start(), m.end()) || hypothetical(text, m.start(), ascii)
                    || overlaps(reported, m.start(), m.start() + 1)) {
                    continue;
                }
                final List<Fact> facts = rule.builder().build(m, text);
                if (!facts.isEmpty()) {
                    claimed.add(new int[] {m.start(), m.end()});
                    for (final Fact fact : facts) {
                        // a new value stated beside the retraction of the old one ("I left IBM and now I work at
                        // Accenture") is the fact: the new value supersedes the old downstream
                        byKey.merge(fact.key(), fact, (kept, again) -> kept.negated() && !again.negated() ? again : kept);
                    }
                }
            }
        }
        final int uncovered = byKey.isEmpty() ? 0 : contentWords(outside(text, claimed));
        if (uncovered >= UNCOVERED_WORDS) {
            return byKey.values().stream().map(f -> uncovered >= SAYS_MORE_WORDS || mayBePartial(f) ? f.asPartial() : f)
                .toList();
        }
        return List.copyOf(byKey.values());
    }

    /**
     * A liking names its subject in a few words of a sentence that often goes on ("I like singing, dancing,
     * working out …"), and a Chinese sentence runs on through its commas (it ends only at 。！？); the other
     * English statements are the sentence ("As I said before, Kotlin is my main language"), except those of
     * {@link #PARTIAL_KEYS}.
     */
    private static boolean mayBePartial(final Fact fact) {
        return fact.category() == FactCategory.PREFERENCE || PARTIAL_KEYS.stream().anyMatch(fact.key()::startsWith)
            || fact.content().codePoints().anyMatch(TurnHeuristics::unspacedScript);
    }

    /**
     * @return the words of the text that carry content: stop words and pronouns ("it", "anymore", "the")
     *     left out; in scripts without spaces every letter (a Chinese word is one or two characters, and a
     *     clause as short as 我叫林晓 says something)
     */
    private static int contentWords(final String text) {
        int words = 0;
        for (final String w : BETWEEN_WORDS.split(text)) {
            final String lower = w.toLowerCase(Locale.ROOT);
            if (!w.isEmpty() && !FactPatterns.STOP_WORDS.contains(lower) && !FactPatterns.NOT_A_SUBJECT.contains(lower)) {
                final int unspaced = (int) w.codePoints().filter(TurnHeuristics::unspacedScript).count();
                words += unspaced > 0 ? unspaced : 1;
            }
        }
        return words;
    }

    /** @return the text with every claimed span blanked out */
    private static String outside(final String text, final List<int[]> claimed) {
        final StringBuilder rest = new StringBuilder(text);
        for (final int[] span : claimed) {
            for (int i = span[0]; i < span[1]; i++) {
                rest.setCharAt(i, ' ');
            }
        }
        return rest.toString();
    }

    /**
     * @param fact a fact from {@link #extract}
     * @return false for a fact of a sentence that says more ({@link Fact#partial}) and for facts that only
     *     name a person, pet or place ("my brother Tomas plays the trumpet"): the rest of the sentence is not
     *     in the fact, so the sentence still belongs in the turn's episode; and for a retraction ({@link Fact#negated}:
     *     "I'm no longer allergic to penicillin"), which is kept only when it takes back a fact the user stated: a
     *     retraction of nothing would otherwise lose the message (a fresh user's first message, all retractions,
     *     stored nothing)
     */
    static boolean coversSentence(final Fact fact) {
        return !fact.partial() && !fact.negated() && MENTION_KEYS.stream().noneMatch(k -> fact.key().startsWith(k));
    }

    /** Straight quotes for typographic ones, so "I’m" matches like "I'm" (same length: spans stay valid). */
    static String normalizeQuotes(final String text) {
        return TurnHeuristics.normalizeQuotes(text);
    }

    private static boolean overlaps(final List<int[]> claimed, final int start, final int end) {
        for (final int[] span : claimed) {
            if (start < span[1] && span[0] < end) {
                return true;
            }
        }
        return false;
    }

    /** A conditional, a wish, a plan or reported speech before the match: nothing is stated as true. */
    private static boolean hypothetical(final String text, final int start, final boolean ascii) {
        return HYPOTHETICAL.matcher(text.substring(0, start), ascii).find();
    }

    static String first(final Matcher m, final int from, final int to) {
        for (int g = from; g <= to; g++) {
            if (m.group(g) != null) {
                return m.group(g);
            }
        }
        return "";
    }

    /** Trims surrounding spaces and trailing punctuation ("Labs." → "Labs"). */
    static String trimValue(final String raw) {
        return raw == null ? "" : LEADING_PUNCTUATION.matcher(TRAILING_PUNCTUATION.matcher(raw.strip()).replaceAll("")).replaceAll("");
    }

    /** @return lower-case snake_case of the words ("Thai food" → "thai_food") */
    static String slug(final String text) {
        return EDGE_UNDERSCORE.matcher(NOT_SLUG.matcher(trimValue(text).toLowerCase(Locale.ROOT)).replaceAll("_")).replaceAll("");
    }
}
