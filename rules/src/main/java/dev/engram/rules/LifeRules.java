package dev.engram.rules;

import static dev.engram.rules.FactPatterns.ADVS;
import static dev.engram.rules.FactPatterns.NOT_A_PLACE;
import static dev.engram.rules.FactPatterns.PROPER;
import static dev.engram.rules.FactPatterns.SUBJ;
import static dev.engram.rules.FactRules.EXPLICIT;
import static dev.engram.rules.FactRules.IMPORTANCE_CONTEXT;
import static dev.engram.rules.FactRules.IMPORTANCE_LIKES;
import static dev.engram.rules.FactRules.rule;
import static dev.engram.rules.FactRules.slug;
import static dev.engram.rules.FactRules.trimValue;
import static dev.engram.rules.LikingRules.subject;

import java.util.List;
import java.util.Locale;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;

/**
 * The people and pets in the user's life by name ({@code family:<relation>}, {@code friend:<name>},
 * {@code pet:<name>}), the places the user went to ({@code visited:<place>}) and what the user wants or
 * plans to do ({@code plan:<what>}). These facts name someone or somewhere the sentence says more about,
 * so the sentence still makes an episode ({@link FactRules#coversSentence}).
 */
final class LifeRules {

    private static final String RELATION = "(?-i:brother|sister|son|daughter|mom|mum|mother|dad|father|husband|wife"
        + "|partner|fiancée?|boyfriend|girlfriend|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|niece"
        + "|nephew|friend|stepson|stepdaughter)";

    private static final String PET = "(?-i:dog|cat|puppy|pup|kitten|parrot|hamster|rabbit|bunny|horse|turtle|tortoise"
        + "|snake|lizard|gecko|guinea\\s+pig|bird|fish)";

    /** Family, pets, places visited, plans. */
    static final List<Rule> RULES = List.of(
        rule("family", "\\bmy\\s+(?:(?:little|older|younger|big|baby|twin|eldest|youngest|oldest|best)\\s+)?("
            + RELATION + ")\\s*,?\\s+(" + PROPER + ")", (m, s) -> relation(m.group(1).equals("friend") ? "friend"
                : "family:" + m.group(1).toLowerCase(Locale.ROOT),
                m.group(2), "Has a " + m.group(1).toLowerCase(Locale.ROOT) + " named ", m.group(1))),
        rule("pet", "\\bmy\\s+(?:(?:new|little|old|sweet|adorable|cute|\\p{L}+-year-old)\\s+)?(?:\\p{L}+\\s+)?(" + PET
            + ")\\s*,?\\s+(?:named\\s+|called\\s+)?(" + PROPER + ")", (m, s) -> relation("pet",
                m.group(2), "Has a " + m.group(1).toLowerCase(Locale.ROOT) + " named ", "Pet " + m.group(1).toLowerCase(Locale.ROOT))),
        rule("visited", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "(?:went|been|traveled|travelled|flew|drove|visited"
            + "|took\\s+a\\s+trip)\\s+(?:back\\s+)?(?:to\\s+)?(" + PROPER + ")", (m, s) -> visited(m.group(1))),
        rule("plan", "\\b(?:i|we)(?:'m|'re|\\s+am|\\s+are)?\\s+" + ADVS + "(want|wanna|plan|planning|hope|hoping"
            + "|would\\s+like|'d\\s+like|going)\\s+to\\s+(get\\s+into|learn|try|start|take\\s+up|visit|go\\s+to"
            + "|travel\\s+to|become|adopt|buy|open|write|run|join|move\\s+to)\\s+" + SUBJ,
            (m, s) -> plan(m.group(1), m.group(2), m.group(3))));

    private LifeRules() {
    }

    private static List<Fact> relation(final String keyPrefix, final String raw, final String contentPrefix,
                                       final String display) {
        final String name = trimValue(raw).replaceAll("'s$", "");
        if (name.isEmpty() || NOT_A_PLACE.contains(name.toLowerCase(Locale.ROOT))) {
            return List.of();
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, keyPrefix + ":" + slug(name), name,
            Character.toUpperCase(display.charAt(0)) + display.substring(1), contentPrefix + name, false,
            IMPORTANCE_CONTEXT, EXPLICIT, MemorySource.EXPLICIT));
    }

    private static List<Fact> plan(final String verb, final String action, final String raw) {
        final String object = subject(raw.replaceFirst("(?i)^(?:a|an|the|some|my|our)\\s+", ""), false);
        if (object.isEmpty()) {
            return List.of();
        }
        final String what = action.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ") + " " + object;
        final boolean plans = verb.toLowerCase(Locale.ROOT).startsWith("plan") || verb.equalsIgnoreCase("going");
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.CONTEXT, "plan:" + slug(what), what,
            plans ? "Plan" : "Wish", (plans ? "Plans to " : "Wants to ") + what, false, IMPORTANCE_LIKES, EXPLICIT,
            MemorySource.EXPLICIT));
    }

    private static List<Fact> visited(final String raw) {
        final String place = trimValue(raw).replaceAll("'s$", "");
        if (place.isEmpty() || NOT_A_PLACE.contains(place.toLowerCase(Locale.ROOT))) {
            return List.of();
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, "visited:" + slug(place), place,
            "Visited", "Went to " + place, false, IMPORTANCE_LIKES, EXPLICIT, MemorySource.EXPLICIT));
    }
}
