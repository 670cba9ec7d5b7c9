package dev.engram.rules;

import static dev.engram.rules.FactPatterns.ADVS;
import static dev.engram.rules.FactRules.EXPLICIT;
import static dev.engram.rules.FactRules.IMPORTANCE_DIET;
import static dev.engram.rules.FactRules.INFERRED_CONFIDENCE;
import static dev.engram.rules.FactRules.RETRACTION;
import static dev.engram.rules.FactRules.first;
import static dev.engram.rules.FactRules.rule;
import static dev.engram.rules.FactRules.trimValue;

import java.util.List;
import java.util.Locale;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;
import dev.engram.text.CaselessPattern;

/**
 * What the user eats: one CONSTRAINT fact, key {@code diet} (vegan, vegetarian, pescatarian, keto,
 * paleo, gluten-free, omnivore). Four groups at their own places in {@link FactRules}' priority order:
 * a change stated by what the user eats again ("started eating fish again"), a retraction ("I'm no
 * longer vegan"), a first-person statement ("I've been vegetarian for years") and, last, the weak
 * evidence of a lone diet word in a terse remark ("vegan potluck was great").
 */
final class DietRules {

    /** Longest remark, in words, in which a lone diet word is read as the user's diet. */
    static final int TERSE_WORDS = 8;

    private static final String DIET = "(vegan|vegetarian|pescatarian|pescetarian|keto|paleo|plant-based|gluten-free"
        + "|dairy-free|kosher|halal|low-sodium|low-salt|low-carb|low-fodmap)";

    private static final CaselessPattern NEGATION = CaselessPattern.compile(
        "\\b(?:not|no|never|nothing|nobody|stopped|quit|gave\\s+up|used\\s+to|anymore|former|ex)\\b|n't\\b");

    private static final CaselessPattern OTHER_PERSON = CaselessPattern.compile(
        "\\b(?:he|she|they|his|her|hers|their|him|them|you|your|friends?|wife|husband|partner|son|daughter|mom|mum"
            + "|dad|mother|father|sister|brother|kids?|children|family|girlfriend|boyfriend|colleagues?|roommates?"
            + "|neighbou?rs?|people|everyone|guests?)\\b");

    /** A diet change stated by what the user eats again. */
    static final List<Rule> CHANGES = List.of(
        rule("diet-fish-again", "\\b(?:started|start|began|starting|am|'m)\\s+eating\\s+fish(?:\\s+again)?\\b"
            + "|\\bi\\s+" + ADVS + "eat\\s+fish\\s+but\\s+(?:no|not)\\s+meat",
            (m, s) -> List.of(diet("pescatarian", false, EXPLICIT, MemorySource.EXPLICIT))),
        rule("diet-meat-again", "\\b(?:started|start|began|starting|am|'m)\\s+eating\\s+meat\\s+again\\b",
            (m, s) -> List.of(diet("omnivore", false, EXPLICIT, MemorySource.EXPLICIT))));

    /** "I'm no longer vegan", "gave up being vegetarian". */
    static final List<Rule> RETRACTED = List.of(
        rule("diet-retracted", "\\bi(?:'m|\\s+am)\\s+(?:no\\s+longer|not)\\s+(?:an?\\s+)?" + DIET
            + "|\\b(?:stopped|quit|gave\\s+up)\\s+being\\s+(?:an?\\s+)?" + DIET
            + "|\\bi\\s+(?:no\\s+longer|don't|do\\s+not)\\s+(?:eat|follow|do)\\s+(?:an?\\s+)?" + DIET,
            (m, s) -> List.of(diet(first(m, 1, 3), true, RETRACTION, MemorySource.EXPLICIT))));

    /** A diet stated in the first person. */
    static final List<Rule> STATED = List.of(
        rule("diet", "\\b(?:i|we)(?:'m|\\s+am|'re|\\s+are|'ve\\s+been|\\s+have\\s+been|\\s+went|\\s+became|'ve\\s+gone"
            + "|\\s+have\\s+gone|\\s+turned|\\s+(?:only\\s+|mostly\\s+|strictly\\s+)?eat|\\s+follow|\\s+keep)\\s+(?:(?:now|fully|still|strictly|mostly"
            + "|completely|also|a|an|been|only)\\s+)*" + DIET + "\\b(?!\\s+(?:food|dish|dishes|recipe|recipes|restaurant|place|option|options|menu|version))",
            (m, s) -> List.of(diet(m.group(1), false, EXPLICIT, MemorySource.EXPLICIT))));

    /** A diet word with no verb: inferred, tried after every other rule. */
    static final List<Rule> WEAK = List.of(
        rule("diet-mentioned", "\\b(vegan|vegetarian|pescatarian|pescetarian)\\b", (m, s) -> dietMentioned(m.group(1), s)));

    private DietRules() {
    }

    /**
     * @param diet a canonical diet (vegan, vegetarian, …)
     * @return the explicit statement of it, as the first-person rules give it (for the same diet stated in Chinese)
     */
    static Fact stated(final String diet) {
        return diet(diet, false, EXPLICIT, MemorySource.EXPLICIT);
    }

    private static Fact diet(final String raw, final boolean negated, final double confidence,
                             final MemorySource source) {
        String diet = trimValue(raw).toLowerCase(Locale.ROOT);
        if (diet.equals("pescetarian")) {
            diet = "pescatarian";
        } else if (diet.equals("plant-based")) {
            diet = "vegan";
        }
        // The clause names what a diet is for, so food questions that share no word with the diet
        // ("what should I cook for him tonight?", case-04) still find it: MiniLM cosine 0.14 → 0.30.
        final String content = negated ? "No longer follows a " + diet + " diet"
            : "Follows a " + diet + " diet (keep in mind when cooking or suggesting meals)";
        return new Fact(MemoryType.SEMANTIC, FactCategory.CONSTRAINT, "diet", diet, "Diet", content, negated,
            IMPORTANCE_DIET, confidence, source);
    }

    /**
     * A diet word in a terse remark ("still vegan, going strong", "vegan potluck was great"): evidence of
     * the user's own diet only when the remark is short (at most {@value #TERSE_WORDS} words), names no
     * one else and negates nothing. Only identity diets count; "a gluten-free crust" describes a dish.
     */
    private static List<Fact> dietMentioned(final String raw, final String sentence) {
        if (sentence.split("\\s+").length > TERSE_WORDS || NEGATION.matcher(sentence).find()
            || OTHER_PERSON.matcher(sentence).find()) {
            return List.of();
        }
        return List.of(diet(raw, false, INFERRED_CONFIDENCE, MemorySource.INFERRED));
    }
}
