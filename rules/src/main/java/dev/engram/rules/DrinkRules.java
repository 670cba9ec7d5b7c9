package dev.engram.rules;

import static dev.engram.rules.FactPatterns.ADVS;
import static dev.engram.rules.FactRules.EXPLICIT;
import static dev.engram.rules.FactRules.IMPORTANCE_LIKES;
import static dev.engram.rules.FactRules.rule;
import static dev.engram.rules.FactRules.slug;

import java.util.List;
import java.util.Locale;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;

/**
 * What the user drinks as a habit, and the drink taken up when one is given up: a liking of the drink
 * ({@code preference:<drink>} = like, as "I love coffee" states it), worded by the habit ("Drinks coffee", "Drinks tea
 * now"). "I drink coffee every morning", "I have tea every day", "I only drink tea now"; a switch said beside what was
 * given up: "I quit coffee, only tea now", "I gave up coffee and switched to tea" (the drink given up is
 * {@link SafetyRules}' {@code avoids:<drink>}, which takes back the like of it downstream: the consolidator's
 * DietChanges rules the food itself out). Only a small vocabulary of drinks counts, so "I switched to Linear" or
 * "only Python now" is no drink; water is left out (said of thirst, not of a habit).
 */
final class DrinkRules {

    /** Drinks a habit names; the longer names first. */
    static final String DRINKS = "(green\\s+tea|black\\s+tea|herbal\\s+tea|iced\\s+tea|hot\\s+chocolate|oat\\s+milk"
        + "|soy\\s+milk|orange\\s+juice|red\\s+wine|white\\s+wine|sparkling\\s+water|decaf(?:\\s+coffee)?|coffee|espresso"
        + "|tea|matcha|chai|kombucha|juice|milk|beer|wine|soda|cola|coke|lemonade|smoothies)";

    /** A cup or glass of the drink: "a cup of", "two mugs of". */
    private static final String SERVING = "(?:(?:a|one|two|three|\\d+)\\s+(?:cups?|mugs?|glass(?:es)?|pots?)\\s+of\\s+)?";

    /** Words that make "I have tea" a habit rather than one cup ("every", "each", "daily", "in the morning"). */
    private static final String HABIT = "(?:every|each|daily|at\\s+breakfast|in\\s+the\\s+mornings?|with\\s+breakfast"
        + "|most\\s+(?:days|mornings)|now|instead)\\b";

    /** In priority order after the likes; every match is the user's own drink. */
    static final List<Rule> RULES = List.of(
        rule("drink", "\\bi\\s+" + ADVS + "drink\\s+" + SERVING + DRINKS + "\\b(?!\\s+(?:with|for)\\s+(?:him|her|them))",
            (m, s) -> drink(m.group(1), s.substring(m.start()))),
        rule("drink-have", "\\bi\\s+" + ADVS + "have\\s+" + SERVING + DRINKS + "\\s+" + HABIT,
            (m, s) -> drink(m.group(1), m.group())),
        // "I quit coffee, only tea now": a clause without a verb, after the user's own statement
        rule("drink-only-now", "(?:[,;:]\\s*|\\b(?:and|but|so)\\s+)(?:it's\\s+|now\\s+)?(?:only|just)\\s+" + DRINKS
            + "\\s+(?:now|these\\s+days|from\\s+now\\s+on|nowadays)\\b",
            (m, s) -> FactPatterns.userIsSubject(s, m.start()) ? drink(m.group(1), "now") : List.of()),
        rule("drink-switched", "(?:\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "|\\band\\s+(?:have\\s+|'ve\\s+)?)(?:switched"
            + "|changed|moved|gone\\s+over)\\s+(?:over\\s+)?to\\s+" + DRINKS + "\\b",
            (m, s) -> !m.group().toLowerCase(Locale.ROOT).startsWith("and") || FactPatterns.userIsSubject(s, m.start())
                ? drink(m.group(1), "now") : List.of()));

    private DrinkRules() {
    }

    /**
     * @param raw the drink as said
     * @param statement the matched words (of the habit rule: to the sentence's end): "now" or "instead" in them words
     *     the fact "Drinks tea now"
     * @return {@code preference:<drink>} = like, "Drinks coffee"
     */
    private static List<Fact> drink(final String raw, final String statement) {
        final String drink = raw.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
        final String when = statement.toLowerCase(Locale.ROOT).matches("(?s).*\\b(?:now|instead)\\b.*") ? " now" : "";
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PREFERENCE, "preference:" + slug(drink), "like",
            "Preference: " + drink, "Drinks " + drink + when, false, IMPORTANCE_LIKES, EXPLICIT, MemorySource.EXPLICIT));
    }
}
