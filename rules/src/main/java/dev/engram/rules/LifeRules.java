package dev.engram.rules;

import static dev.engram.rules.FactPatterns.ADVS;
import static dev.engram.rules.FactPatterns.NOT_A_PLACE;
import static dev.engram.rules.FactPatterns.PROPER;
import static dev.engram.rules.FactPatterns.SUBJ;
import static dev.engram.rules.FactPatterns.items;
import static dev.engram.rules.FactPatterns.singular;
import static dev.engram.rules.FactPatterns.userIsSubject;
import static dev.engram.rules.FactRules.EXPLICIT;
import static dev.engram.rules.FactRules.IMPORTANCE_CONTEXT;
import static dev.engram.rules.FactRules.IMPORTANCE_LIKES;
import static dev.engram.rules.FactRules.rule;
import static dev.engram.rules.FactRules.slug;
import static dev.engram.rules.FactRules.trimValue;
import static dev.engram.rules.LikingRules.subject;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;
import dev.engram.text.TurnHeuristics;

/**
 * The people and pets in the user's life ({@code family:<relation>:<name>}, {@code friend:<name>}, {@code pet:<name>},
 * or {@code pet:<species>} when no name is said), where the user comes from ({@code hometown}), the places the user
 * went to ({@code visited:<place>}), the languages the user speaks ({@code speaks:<language>}), the user's
 * {@code age}, and what the user wants or plans to do ({@code plan:<what>}). Facts that name someone or somewhere
 * leave the sentence in the episode, as it usually says more about them ({@link FactRules#coversSentence}).
 *
 * <p>Stated as: "my daughter Chloe", "My son is named Oliver", "My son's name is Kenji", "I have a daughter called
 * Freya", "I'm married to Grace", "I have two kids, Nora and Sami"; "I have a cat named Luna", "My dog Bruno", "Our
 * hamster is called Nibbles", "I have two cats, Salt and Pepa", "I have a goldfish", "with my two cats"; "I'm from
 * Rotterdam", "I grew up in Adelaide", "My hometown is Kaunas"; "I've been to Japan", "I spent last summer in Crete";
 * "I speak Spanish and Catalan"; "I'm 42". Someone else's pet or family ("my roommate has a cat named Gizmo") is not
 * the user's: a pet named in an "a … named" clause needs the user as the sentence's subject.
 */
final class LifeRules {

    private static final String RELATION = "(?-i:brother|sister|son|daughter|mom|mum|mother|dad|father|husband|wife"
        + "|partner|spouse|fiancée?|boyfriend|girlfriend|grandma|grandmother|grandpa|grandfather|grandson|granddaughter"
        + "|grandchild|aunt|uncle|cousin|niece|nephew|friend|stepson|stepdaughter|stepmom|stepmother|stepdad|stepfather"
        + "|child|kid)";

    private static final String KIN_ADJ = "(?:(?:little|older|younger|big|baby|twin|eldest|youngest|oldest|best|new|"
        + "teenage|adult|\\p{L}+-year-old)\\s+)?";

    /** Pets by kind and common breed (a breed names a dog or cat as well). */
    private static final String PET = "(?-i:dog|cat|puppy|pup|kitten|parrot|hamster|rabbit|bunny|horse|pony|turtle|tortoise"
        + "|snake|lizard|gecko|iguana|guinea\\s+pig|bird|budgie|cockatiel|canary|fish|goldfish|ferret|hedgehog|chinchilla"
        + "|axolotl|gerbil|rat|mouse|chicken|hen|goat|duck|collie|border\\s+collie|retriever|golden\\s+retriever|labrador"
        + "|lab|poodle|beagle|spaniel|husky|terrier|dachshund|bulldog|corgi|pug|chihuahua|shepherd|greyhound|whippet"
        + "|tabby|siamese)";

    private static final String PET_ADJ = "(?:(?:pet|new|little|old|sweet|adorable|cute|rescue|tabby|black|white|ginger"
        + "|grey|gray|brown|golden|\\p{L}+-year-old)\\s+)?";

    /** "'s name is", "is called", "is actually named", "is now called": a name said of someone or some pet. */
    private static final String NAMED_AS = "(?:'s\\s+name\\s+is(?:\\s+now)?|\\s+is\\s+(?:now\\s+|actually\\s+|really\\s+)?"
        + "(?:named|called))\\s+(?:actually\\s+|really\\s+)?";

    private static final String COUNT = "(?:an?|one|two|three|four|five|\\d+)";

    private static final String LANGUAGE = "(?-i:English|Spanish|French|German|Italian|Portuguese|Catalan|Dutch|Swedish"
        + "|Norwegian|Danish|Finnish|Polish|Czech|Russian|Ukrainian|Greek|Turkish|Arabic|Hebrew|Hindi|Urdu|Bengali"
        + "|Mandarin|Cantonese|Chinese|Japanese|Korean|Vietnamese|Thai|Indonesian|Malay|Tagalog|Swahili|Persian|Farsi"
        + "|Hungarian|Romanian|Basque|Galician|Welsh|Irish|Icelandic)";

    private static final Map<String, String> KIDS = Map.of("kids", "child", "children", "child", "sons", "son",
        "daughters", "daughter", "boys", "son", "girls", "daughter");

    /**
     * A pet the user no longer has, said without its name ("I don't have a dog anymore", "I no longer have a dog",
     * "we don't have our cat any more", "my old dog died"): a negated {@code pet:<species>} fact, which retracts "Has a
     * pet dog" as "I no longer use Jira" retracts a tool (a fresh user's trial left it ACTIVE; a named pet's death is
     * the consolidator's, {@code Outdated#ends}). A denial of a pet the user never had retracts nothing.
     */
    static final List<Rule> RETRACTED = List.of(
        rule("pet-gone", "\\b(?:i|we)\\s+(no\\s+longer|don't|do\\s+not)\\s+(?:have|own)\\s+(?:an?|my|our|the)\\s+" + PET_ADJ
            + "(" + PET + ")\\b(?!\\s*,?\\s+(?:named|called|(?-i:\\p{Lu})))|\\b(?:my|our)\\s+" + PET_ADJ + "(" + PET + ")\\s+"
            + "(?:(?:just|recently|sadly)\\s+)?(?:died|passed\\s+away|ran\\s+away)\\b",
            (m, s) -> pet(null, m.group(2) != null ? m.group(2) : m.group(3)).stream()
                .map(f -> new Fact(f.type(), f.category(), f.key(), f.value(), f.displayName(),
                    (m.group(1) == null || m.group(1).toLowerCase(Locale.ROOT).startsWith("no")
                        || s.toLowerCase(Locale.ROOT).matches(".*\\bany\\s?more\\b.*")
                        ? "No longer has a pet " : "Does not have a pet ") + f.value(),
                    true, f.importance(), FactRules.RETRACTION, f.source())).toList()));

    /** Family, pets, hometown, places visited, languages, age; wishes and plans. */
    static final List<Rule> RULES = List.of(
        rule("pet-renamed-not", "\\b(?:my|our)\\s+" + PET_ADJ + "(" + PET + ")" + NAMED_AS + "(" + PROPER + ")\\s*,?\\s+not\\s+("
            + PROPER + ")", (m, s) -> renamed(pet(m.group(2), m.group(1)), "pet:" + slug(m.group(3)))),
        rule("family-renamed-not", "\\bmy\\s+" + KIN_ADJ + "(" + RELATION + ")" + NAMED_AS + "(" + PROPER + ")\\s*,?\\s+not\\s+("
            + PROPER + ")", (m, s) -> renamed(family(m.group(1), m.group(2)), null, m.group(3))),
        // "I renamed my dog from Rex to Max": the old name said, so the fact replaces pet:rex
        rule("pet-renamed-from", "\\b(?:i|we)\\s+" + ADVS + "renamed\\s+(?:my|our)\\s+" + PET_ADJ + "(" + PET + ")\\s+from\\s+("
            + PROPER + ")\\s+to\\s+(" + PROPER + ")", (m, s) -> renamed(pet(m.group(3), m.group(1)), "pet:" + slug(m.group(2)))),
        rule("pet-renamed", "\\b(?:i|we)\\s+" + ADVS + "renamed\\s+(?:my|our)\\s+" + PET_ADJ + "(" + PET + ")(?:\\s*,\\s*(?:he|she|it)"
            + "(?:'s|\\s+is)\\s+(?:now\\s+)?(?:called|named)|\\s+to)?\\s+(" + PROPER + ")",
            (m, s) -> renamed(pet(m.group(2), m.group(1)), "pet:" + slug(m.group(1)))),
        rule("pet-named-now", "\\b(?:my|our)\\s+" + PET_ADJ + "(" + PET + ")" + "(?:'s\\s+name\\s+is|\\s+is\\s+(?:named|called))\\s+("
            + PROPER + ")\\s+now\\b|\\b(?:my|our)\\s+" + PET_ADJ + "(" + PET + ")(?:'s\\s+name\\s+is\\s+now|\\s+is\\s+now\\s+(?:named|called))"
            + "\\s+(" + PROPER + ")", (m, s) -> {
                final int g = m.group(1) != null ? 1 : 3; // "is called Max now", "is now called Max"
                return renamed(pet(m.group(g + 1), m.group(g)), "pet:" + slug(m.group(g)));
            }),
        rule("family-named", "\\bmy\\s+" + KIN_ADJ + "(" + RELATION + ")" + "(?:'s\\s+name\\s+is|\\s+is\\s+(?:named|called))\\s+(" + PROPER
            + ")", (m, s) -> family(m.group(1), m.group(2))),
        rule("children-named", "\\b(?:i|we)\\s+(?:have|'ve\\s+got)\\s+(?:two|three|four|\\d)\\s+(kids|children|sons|daughters"
            + "|boys|girls)\\s*,\\s*(" + PROPER + ")(?:\\s*,\\s*(" + PROPER + "))?,?\\s+and\\s+(" + PROPER + ")",
            (m, s) -> {
                final List<Fact> facts = new ArrayList<>();
                for (int g = 2; g <= 4; g++) {
                    if (m.group(g) != null) {
                        facts.addAll(family(KIDS.get(m.group(1).toLowerCase(Locale.ROOT)), m.group(g)));
                    }
                }
                return facts;
            }),
        rule("family-have", "\\b(?:i|we)(?:\\s+" + ADVS + "(?:have|have\\s+got)|'ve\\s+got)\\s+" + COUNT + "\\s+" + KIN_ADJ
            + "(" + RELATION + ")" + "s?(?:\\s*,?\\s+(?:named|called)\\s+|\\s*,\\s*)(" + PROPER + ")",
            (m, s) -> family(m.group(1), m.group(2))),
        rule("family-and-named", "(?:\\band|,)\\s+(?:also\\s+)?(?:an?|one|two)\\s+" + KIN_ADJ + "(" + RELATION
            + ")s?\\s+(?:named|called)\\s+(" + PROPER + ")",
            (m, s) -> userIsSubject(s, m.start()) ? family(m.group(1), m.group(2)) : List.of()),
        rule("married-to", "\\bi(?:'m|\\s+am|'ve\\s+been|\\s+have\\s+been|\\s+got)\\s+" + ADVS + "married\\s+to\\s+(" + PROPER
            + ")", (m, s) -> family("spouse", m.group(1))),
        rule("family", "\\b(?:my|our)\\s+" + KIN_ADJ + "(" + RELATION + ")" + "\\s*,?\\s+(" + PROPER + ")",
            (m, s) -> family(m.group(1), m.group(2))),
        rule("pets-named", "\\b(?:i|we)\\s+(?:have|'ve\\s+got|own)\\s+(?:two|three|\\d)\\s+" + "(" + PET + ")" + "s\\s*,\\s*(" + PROPER
            + ")\\s+and\\s+(" + PROPER + ")", (m, s) -> {
                final List<Fact> facts = new ArrayList<>(pet(m.group(2), m.group(1)));
                facts.addAll(pet(m.group(3), m.group(1)));
                return facts;
            }),
        rule("pet-have-named", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "(?:have|got|own|adopted|rescued|bought"
            + "|have\\s+got)\\s+(?:" + COUNT + "\\s+)?(?:pet\\s+)?" + PET_ADJ + "(?:\\p{L}+\\s+)?" + "(" + PET + ")" + "\\s*,?\\s+(?:named|called)\\s+("
            + PROPER + ")", (m, s) -> pet(m.group(2), m.group(1))),
        rule("pet-and-named", "(?:\\band|,)\\s+(?:also\\s+)?an?\\s+(?:pet\\s+)?" + PET_ADJ + "(?:\\p{L}+\\s+)?(" + PET
            + ")\\s+(?:named|called)\\s+(" + PROPER + ")",
            (m, s) -> userIsSubject(s, m.start()) ? pet(m.group(2), m.group(1)) : List.of()),
        rule("pet-is-named", "\\b(?:my|our)\\s+" + PET_ADJ + "(" + PET + ")" + "(?:'s\\s+name\\s+is|\\s+is\\s+(?:named|called))\\s+(" + PROPER
            + ")", (m, s) -> pet(m.group(2), m.group(1))),
        rule("pet", "\\b(?:my|our)\\s+" + PET_ADJ + "(?:\\p{L}+\\s+)?" + "(" + PET + ")" + "\\s*,?\\s+(?:named\\s+|called\\s+)?(" + PROPER
            + ")", (m, s) -> pet(m.group(2), m.group(1))),
        rule("pet-have", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "(?:have|got|own|adopted|rescued|have\\s+got)\\s+"
            + COUNT + "\\s+(?:pet\\s+)?" + PET_ADJ + "(" + PET + ")" + "(?:s|es)?\\b(?!\\s*,?\\s+(?:named|called))",
            (m, s) -> pet(null, m.group(1))),
        // "I really miss my dog" is said of a pet that died or is far away: no pet the user has now. The capital of the
        // name after it is matched case-sensitively: under the rules' CASE_INSENSITIVE \\p{Lu} is any cased letter,
        // and "I walk my dog every day" gave no pet
        rule("pet-mine", "\\b(?:with|and|walk|feed|love)\\s+(?:my|our)\\s+(?:two|three|four|\\d\\s+)?\\s*" + PET_ADJ
            + "(" + PET + ")" + "s?\\b(?!\\s*,?\\s+(?:named|called|(?-i:\\p{Lu})))", (m, s) -> pet(null, m.group(1))),
        rule("hometown", "\\bi(?:'m|\\s+am)\\s+" + ADVS + "(?:originally\\s+)?from\\s+(" + PROPER + ")"
            + "|\\bi\\s+" + ADVS + "(?:originally\\s+)?(?:come|came)\\s+from\\s+(" + PROPER + ")"
            + "|\\bi\\s+" + ADVS + "(?:grew\\s+up|was\\s+born(?:\\s+and\\s+raised)?|was\\s+raised)\\s+in\\s+(" + PROPER + ")"
            + "|\\bmy\\s+home\\s*town\\s+is\\s+(" + PROPER + ")|(" + PROPER + ")\\s+is\\s+my\\s+home\\s*town",
            (m, s) -> hometown(FactRules.first(m, 1, 5))),
        rule("visited", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "(?:went|been|traveled|travelled|flew|drove|visited"
            + "|took\\s+a\\s+trip)\\s+(?:back\\s+)?(?:to\\s+)?(" + PROPER + ")", (m, s) -> visited(m.group(1))),
        rule("visited-spent", "\\b(?:i|we)\\s+" + ADVS + "spent\\s+(?:[\\p{L}\\d]+\\s+){1,3}?in\\s+(" + PROPER + ")",
            (m, s) -> visited(m.group(1))),
        rule("speaks", "\\b(?:i|we)\\s+" + ADVS + "speak\\s+((?:" + LANGUAGE + ")(?:(?:\\s*,\\s*|\\s+and\\s+|,\\s+and\\s+)"
            + LANGUAGE + ")*)", (m, s) -> speaks(m.group(1))),
        rule("age", "(?:^|[,;]\\s*|\\band\\s+)i(?:'m|\\s+am)\\s+(\\d{1,2})(?:\\s+years?\\s+old)?(?=\\s*(?:[,.;!]|$|and\\b|now\\b))"
            + "|\\bi(?:'m|\\s+am)\\s+(\\d{1,2})\\s+years?\\s+old|\\bi\\s+" + ADVS + "turned\\s+(\\d{1,2})\\b",
            (m, s) -> age(FactRules.first(m, 1, 3))),
        // a birthday ahead is the newer age ("I'm turning 31 next week" after "I'm 30"): the number differs, so it
        // supersedes, the sentence's date kept by the turn's episode
        rule("age-turning", "\\bi(?:'m|\\s+am)\\s+" + ADVS + "turning\\s+(\\d{1,2})\\b|\\bi(?:'ll|\\s+will)\\s+be\\s+(\\d{1,2})"
            + "(?=\\s+(?:next|this|tomorrow|on|in|soon|later)\\b)|\\bi\\s+turn\\s+(\\d{1,2})(?=\\s+(?:next|this|tomorrow|on|in"
            + "|soon|later)\\b)", (m, s) -> turning(FactRules.first(m, 1, 3))),
        rule("plan", "\\b(?:i|we)(?:'m|'re|\\s+am|\\s+are)?\\s+" + ADVS + "(want|wanna|plan|planning|hope|hoping"
            + "|would\\s+like|'d\\s+like|going)\\s+to\\s+(get\\s+into|learn|try|start|take\\s+up|visit|go\\s+to"
            + "|travel\\s+to|become|adopt|buy|open|write|run|join|move\\s+to)\\s+" + SUBJ,
            (m, s) -> plan(m.group(1), m.group(2), m.group(3))));

    private LifeRules() {
    }

    /**
     * @param relation the relation in English ("son", "wife"); "friend" gives a friend fact
     * @param raw the name
     * @return {@code family:<relation>:<name>} = name, or {@code friend:<name>}
     */
    static List<Fact> family(final String relation, final String raw) {
        final String rel = relation.toLowerCase(Locale.ROOT);
        if (rel.equals("friend")) {
            return friend(raw);
        }
        return relation("family:" + (rel.equals("kid") ? "child" : rel), raw, "Has a " + rel + " named ", rel);
    }

    /** @return {@code friend:<name>} = name */
    static List<Fact> friend(final String raw) {
        return relation("friend", raw, "Has a friend named ", "friend");
    }

    /**
     * @param name the pet's name, or null when only the species is said
     * @param species what it is ("dog", "golden retriever", 猫)
     * @return {@code pet:<name>} = name, or {@code pet:<species>} = species
     */
    static List<Fact> pet(final String name, final String species) {
        final String kind = singular(species.toLowerCase(Locale.ROOT).replaceAll("\\s+", " "));
        if (name != null) {
            return relation("pet", name, "Has a " + kind + " named ", "Pet " + kind);
        }
        final boolean chinese = kind.codePoints().anyMatch(TurnHeuristics::unspacedScript);
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, "pet:" + slug(kind), kind, "Pet " + kind,
            chinese ? "养了" + kind : "Has a pet " + kind, false, IMPORTANCE_CONTEXT, EXPLICIT, MemorySource.EXPLICIT));
    }

    /**
     * A renaming statement ("my cat's name is Mia, not Luna", "we renamed our dog Max"): the fact of the new name, keyed
     * by what it replaces, so the consolidator finds the fact it renames ({@code Renames}): the old name's key
     * ({@code pet:luna}) or, when no old name is said, the kind's ({@code pet:dog}).
     *
     * @param facts the fact of the new name (at most one)
     * @param key the key of what it replaces, or null to build it from the fact's slot and {@code oldName}
     * @param oldName the name replaced, when {@code key} is null
     * @return the fact with that key, or nothing when the old and new names are one
     */
    private static List<Fact> renamed(final List<Fact> facts, final String key, final String oldName) {
        if (facts.size() != 1) {
            return facts;
        }
        final Fact fact = facts.get(0);
        final String replaced = key != null ? key : fact.key().substring(0, fact.key().lastIndexOf(':') + 1) + slug(oldName);
        return replaced.equals(fact.key()) ? facts : List.of(new Fact(fact.type(), fact.category(), replaced, fact.value(),
            fact.displayName(), fact.content(), fact.negated(), fact.importance(), fact.confidence(), fact.source(),
            fact.partial()));
    }

    private static List<Fact> renamed(final List<Fact> facts, final String key) {
        return renamed(facts, key, null);
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

    /** @return {@code hometown} = the place ("Is from Rotterdam"; 老家是湖南) */
    static List<Fact> hometown(final String raw) {
        final String place = trimValue(raw).replaceAll("(?i)\\s+originally$", "");
        if (place.isEmpty() || NOT_A_PLACE.contains(place.toLowerCase(Locale.ROOT))) {
            return List.of();
        }
        final boolean chinese = place.codePoints().anyMatch(TurnHeuristics::unspacedScript);
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, "hometown", place, "Hometown",
            chinese ? "老家是" + place : "Is from " + place, false, IMPORTANCE_CONTEXT, EXPLICIT, MemorySource.EXPLICIT));
    }

    private static List<Fact> speaks(final String list) {
        final List<Fact> out = new ArrayList<>();
        for (final String language : items(list, 1)) {
            out.add(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, "speaks:" + slug(language), language,
                "Speaks", "Speaks " + language, false, IMPORTANCE_CONTEXT, EXPLICIT, MemorySource.EXPLICIT));
        }
        return out;
    }

    private static List<Fact> age(final String raw) {
        final int years = raw.isEmpty() ? 0 : Integer.parseInt(raw);
        if (years < 5 || years > 110) {
            return List.of();
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, "age", String.valueOf(years), "Age",
            "Is " + years + " years old", false, IMPORTANCE_CONTEXT, EXPLICIT, MemorySource.EXPLICIT));
    }

    private static List<Fact> turning(final String raw) {
        return age(raw).stream().map(f -> new Fact(f.type(), f.category(), f.key(), f.value(), f.displayName(),
            "Is turning " + f.value(), false, f.importance(), f.confidence(), f.source()).asPartial()).toList();
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

    /** @return {@code visited:<place>} = place ("Went to Paris"; 去过日本) */
    static List<Fact> visited(final String raw) {
        final String place = trimValue(raw).replaceAll("'s$", "");
        if (place.isEmpty() || NOT_A_PLACE.contains(place.toLowerCase(Locale.ROOT))) {
            return List.of();
        }
        final boolean chinese = place.codePoints().anyMatch(TurnHeuristics::unspacedScript);
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, "visited:" + slug(place), place,
            "Visited", (chinese ? "去过" : "Went to ") + place, false, IMPORTANCE_LIKES, EXPLICIT, MemorySource.EXPLICIT));
    }
}
