package dev.engram.rules;

import static dev.engram.rules.FactPatterns.ADVS;
import static dev.engram.rules.FactPatterns.NOT_A_SUBJECT;
import static dev.engram.rules.FactPatterns.STOP_WORDS;
import static dev.engram.rules.FactPatterns.items;
import static dev.engram.rules.FactPatterns.singular;
import static dev.engram.rules.FactPatterns.userIsSubject;
import static dev.engram.rules.FactRules.EXPLICIT;
import static dev.engram.rules.FactRules.IMPORTANCE_SAFETY;
import static dev.engram.rules.FactRules.rule;
import static dev.engram.rules.FactRules.slug;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;
import dev.engram.text.TurnHeuristics;

/**
 * Safety facts: what the user must not be served or must have, stated in English. Each is a CONSTRAINT fact of
 * importance {@link FactRules#IMPORTANCE_SAFETY}, one key per item so a second allergy never supersedes the first:
 * <ul>
 *   <li>{@code allergy:<allergen>} — "I'm allergic to shellfish", "I have a severe peanut allergy", "… and allergic
 *       to soy" (the allergen in the singular: "peanuts" and "peanut allergy" are one fact);</li>
 *   <li>{@code intolerance:<substance>} — "I'm lactose intolerant", "intolerant to fructose";</li>
 *   <li>{@code condition:<condition>} — "I have asthma", "I'm diabetic", "diagnosed with epilepsy", "because of my
 *       anxiety": a known condition ({@link #CONDITIONS}) after have / live with, any after diagnosed with / suffer
 *       from;</li>
 *   <li>{@code medication:<medication>} — "I take metformin", "I'm on blood thinners", "I carry an EpiPen": a known
 *       medication or a drug-name ending ({@link #MEDICATIONS});</li>
 *   <li>{@code avoids:<food>} — "I don't eat pork", "I can't have dairy", "I avoid caffeine";</li>
 *   <li>{@code accessibility:<need>} — "I use a wheelchair", "I'm hard of hearing", "I need step-free access".</li>
 * </ul>
 * An allergy or medication that ended ("I'm no longer allergic to peanuts", "I'm not on warfarin anymore") is a negated
 * fact of its key ({@link #RETRACTED}). The same in Chinese is in {@link ChineseSafetyRules}. A fact about someone else ("my son is allergic to eggs")
 * states nothing about the user: every rule needs the user as subject.
 */
final class SafetyRules {

    /** The slots of safety facts: key prefix, display name, English content and Chinese content templates. */
    enum Slot {
        /** an allergy */
        ALLERGY("allergy", "Allergy", "Is allergic to %s (avoid it in food, meals and medicine)", "对%s过敏"),
        /** an intolerance */
        INTOLERANCE("intolerance", "Intolerance", "Is intolerant to %s (avoid it in food and meals)", "%s不耐受"),
        /** a medical condition */
        CONDITION("condition", "Health condition", "Has %s (a health condition to keep in mind)", "患有%s"),
        /** a medication taken */
        MEDICATION("medication", "Medication", "Takes %s (medication)", "服用%s"),
        /** a food or drink the user does not take */
        AVOIDS("avoids", "Avoids", "Does not eat or drink %s (keep in mind for food, drinks and meals)", "不吃%s"),
        /** an accessibility need */
        ACCESSIBILITY("accessibility", "Accessibility", "Accessibility need: %s (keep in mind for travel, venues and plans)",
            "需要%s");

        final String prefix;
        final String display;
        final String english;
        final String chinese;

        Slot(final String prefix, final String display, final String english, final String chinese) {
            this.prefix = prefix;
            this.display = display;
            this.english = english;
            this.chinese = chinese;
        }
    }

    /** Conditions that "I have …" states (a headache or a meeting is not one). */
    static final String CONDITIONS = "(?:type\\s+[12]\\s+diabetes|diabetes|asthma|epilepsy|c[o]?eliac(?:\\s+disease)?"
        + "|crohn's(?:\\s+disease)?|ulcerative\\s+colitis|ibs|high\\s+blood\\s+pressure|hypertension|low\\s+blood\\s+pressure"
        + "|high\\s+cholesterol|a\\s+heart\\s+condition|heart\\s+disease|a\\s+pacemaker|(?:rheumatoid\\s+)?arthritis"
        + "|migraines?|adhd|autism|anxiety|depression|ptsd|ocd|bipolar(?:\\s+disorder)?|lupus|multiple\\s+sclerosis|copd"
        + "|eczema|psoriasis|kidney\\s+disease|sleep\\s+apnea|gout|glaucoma|anemia|anaemia|hypothyroidism"
        + "|hyperthyroidism|pcos|endometriosis|dyslexia|long\\s+covid|fibromyalgia|parkinson's(?:\\s+disease)?"
        + "|chronic\\s+(?:pain|fatigue)|tinnitus|vertigo|cancer|hiv|hemophilia|sickle\\s+cell(?:\\s+disease)?"
        + "|cystic\\s+fibrosis|osteoporosis|a\\s+bad\\s+back|a\\s+weak\\s+heart|dementia|insomnia)";

    /** Medications by name or class, and the endings of drug names (-statin, -pril, -olol, …). */
    static final String MEDICATIONS = "(?:insulin|metformin|levothyroxine|warfarin|blood\\s+thinners?|statins?"
        + "|antidepressants?|antibiotics?|antihistamines?|beta[- ]blockers?|birth\\s+control|the\\s+pill|an?\\s+epipen"
        + "|epipens?|an?\\s+inhaler|inhalers?|ibuprofen|aspirin|paracetamol|acetaminophen|prednisone|lithium|sertraline"
        + "|fluoxetine|ssris?|adderall|ritalin|methotrexate|chemo(?:therapy)?|(?:blood\\s+pressure|thyroid|heart|diabetes)"
        + "\\s+(?:medication|meds|pills|tablets)|immunosuppressants?|steroids|melatonin|hrt"
        + "|\\p{L}+(?:statin|pril|olol|sartan|prazole|cillin|mycin|oxetine|azepam|tinib|formin|thyroxine|dipine|thiazide|semide))";

    /** Who prescribes or stops a medication: the user's doctor of any kind. */
    private static final String PRESCRIBER = "(?:doctor|doc|gp|physician|psychiatrist|cardiologist|endocrinologist"
        + "|neurologist|oncologist|rheumatologist|dermatologist|gastroenterologist|specialist|consultant|nurse"
        + "|pharmacist|care\\s+team|medical\\s+team)";

    /**
     * A dose before a medication's name in the units of a prescription: "20 mg of", "50mg", "0.5 milligrams of" (grams
     * and millilitres are kitchen units too: "I use 200 g of flour" names no medication).
     */
    private static final String DOSE = "\\d+(?:[.,]\\d+)?\\s*(?:mg|mcg|µg|milligrams?|micrograms?|iu)\\b"
        + "(?:\\s+of)?\\s+";

    /** A medication said after "off" or "stopped": "the sertraline", "my 20 mg of atorvastatin". */
    private static final String THE_MED = "(?:the\\s+|my\\s+|his\\s+|her\\s+)?(?:" + DOSE + ")?(" + MEDICATIONS + ")\\b";

    /** Foods and drinks "I can't have / avoid / gave up" names (after eat or drink any food counts). */
    private static final String FOODS = "(?:dairy|gluten|wheat|lactose|alcohol|caffeine|coffee|sugar|salt|(?:red\\s+)?meat"
        + "|pork|beef|lamb|fish|seafood|shellfish|prawns|shrimp|nuts|peanuts|eggs|milk|cheese|soy|spicy\\s+food"
        + "|fried\\s+food|garlic|onions?|carbs|sweets|chocolate|fast\\s+food|processed\\s+food|raw\\s+fish|beer|wine"
        + "|soda|energy\\s+drinks|grapefruit)";

    private static final String AIDS = "(wheelchair|mobility\\s+scooter|walker|walking\\s+(?:stick|frame)|cane|crutches"
        + "|hearing\\s+aids?|cochlear\\s+implant|screen\\s+reader|guide\\s+dog|sign\\s+language\\s+interpreter"
        + "|step-free\\s+access|level\\s+access|an?\\s+(?:elevator|lift)|large\\s+print|captions|subtitles)";

    private static final Map<String, String> CONDITION_ADJECTIVES = Map.ofEntries(Map.entry("diabetic", "diabetes"),
        Map.entry("prediabetic", "prediabetes"), Map.entry("pre-diabetic", "prediabetes"), Map.entry("asthmatic", "asthma"),
        Map.entry("epileptic", "epilepsy"), Map.entry("pregnant", "pregnancy"), Map.entry("anemic", "anemia"),
        Map.entry("anaemic", "anemia"), Map.entry("autistic", "autism"), Map.entry("celiac", "celiac disease"),
        Map.entry("coeliac", "celiac disease"), Map.entry("immunocompromised", "immunocompromised"),
        Map.entry("hypertensive", "hypertension"));

    private static final Set<String> ACRONYMS = Set.of("adhd", "ibs", "copd", "ptsd", "ocd", "pcos", "hiv", "hrt", "ssri");

    private static final Set<String> NOT_A_FOOD = Set.of("breakfast", "lunch", "dinner", "supper", "late", "out",
        "enough", "before", "after", "anything", "everything", "much", "a", "the", "it", "that", "there", "here",
        "meals", "food", "well", "properly", "right", "alone");

    /** "I take", "I'm on", "I've been taking": the user takes what follows. */
    private static final String TAKE = "(?:\\bi(?:'m|\\s+am|'ve\\s+been|\\s+have\\s+been)\\s+" + ADVS + "(?:taking|on)"
        + "|\\bi\\s+" + ADVS + "(?:take|use|need|carry|inject|rely\\s+on))";

    private static final String I_AM = "\\bi(?:'m|\\s+am|'ve\\s+been|\\s+have\\s+been)\\s+" + ADVS;
    private static final String DEGREE = "(?:(?:severely|very|highly|deathly|seriously|mildly|quite|badly|extremely)\\s+)?";
    private static final String REST = FactPatterns.LIST;

    /**
     * "I'm no longer allergic to peanuts", "I'm not on warfarin anymore", "I no longer take metformin", and a
     * present-tense denial ("Actually I'm not allergic to peanuts, the test was wrong", "I don't take aspirin"): a
     * negated fact of the item's key, which retracts the allergy or medication as "I no longer use Jira" retracts a
     * tool. A denial of what the user never said retracts nothing (the consolidator creates no memory from it).
     */
    static final List<Rule> RETRACTED = List.of(
        rule("allergy-retracted", "\\bi(?:'m|\\s+am)\\s+(no\\s+longer|not)\\s+" + DEGREE + "allergic\\s+to\\s+" + REST,
            (m, s) -> retracted(listed(Slot.ALLERGY, m.group(2), 3, FactPatterns::singular),
                noLonger(m.group(1), s) ? "Is no longer allergic to " : "Is not allergic to ")),
        rule("medication-retracted", "\\bi(?:'m|\\s+am)\\s+(no\\s+longer|not)\\s+(?:taking|on)\\s+(?:my\\s+)?(" + MEDICATIONS
            + ")\\b|\\bi\\s+(no\\s+longer|don't|do\\s+not)\\s+take\\s+(?:my\\s+)?(" + MEDICATIONS + ")\\b",
            (m, s) -> retracted(one(Slot.MEDICATION, medication(m.group(2) != null ? m.group(2) : m.group(4))),
                noLonger(FactRules.first(m, 1, 3), s) ? "No longer takes " : "Does not take ")),
        // a medication ended by the user or their doctor: "My doctor took me off lisinopril", "My psychiatrist stopped
        // the sertraline", "I stopped taking metformin", "I was taken off warfarin", "I'm off the pill now"
        rule("medication-stopped", "\\bmy\\s+" + PRESCRIBER + "\\s+(?:has\\s+|just\\s+|finally\\s+)?(?:took|taken|takes)\\s+me"
            + "\\s+off\\s+" + THE_MED + "|\\bmy\\s+" + PRESCRIBER + "\\s+(?:has\\s+|just\\s+|finally\\s+)?(?:stopped"
            + "|discontinued|cancell?ed|ended)\\s+" + THE_MED + "|\\bi(?:'ve|\\s+have)?\\s+" + ADVS + "(?:stopped|quit)\\s+"
            + "taking\\s+" + THE_MED + "|\\bi(?:\\s+was|'ve\\s+been|\\s+have\\s+been|\\s+got)\\s+taken\\s+off\\s+"
            + THE_MED + "|\\bi(?:'m|\\s+am)\\s+(?:now\\s+)?off\\s+" + THE_MED + "|\\bi\\s+(?:came|went|got)\\s+off\\s+" + THE_MED,
            (m, s) -> retracted(one(Slot.MEDICATION, medication(FactRules.first(m, 1, 6))), "No longer takes ")));

    /** Allergies, intolerances, conditions, medications, foods avoided and accessibility needs, in English. */
    static final List<Rule> RULES = List.of(
        rule("allergy", I_AM + DEGREE + "allergic\\s+to\\s+" + REST,
            (m, s) -> listed(Slot.ALLERGY, m.group(1), 3, FactPatterns::singular)),
        rule("allergy-and", "\\b(?:and|but)\\s+(?:also\\s+)?" + DEGREE + "allergic\\s+to\\s+" + REST,
            (m, s) -> userIsSubject(s, m.start()) ? listed(Slot.ALLERGY, m.group(1), 3, FactPatterns::singular) : List.of()),
        rule("allergy-to", "\\bi\\s+(?:have|'ve\\s+got|have\\s+got)\\s+(?:an?\\s+)?" + "(?:(?:severe|mild|serious|bad)\\s+)?"
            + "allerg(?:y|ies)\\s+to\\s+" + REST, (m, s) -> listed(Slot.ALLERGY, m.group(1), 3, FactPatterns::singular)),
        rule("allergy-noun", "(?:\\bi\\s+(?:have|'ve\\s+got|have\\s+got|got|live\\s+with)|\\bmy)\\s+(?:an?\\s+)?"
            + "(?:(?:severe|mild|serious|bad|life-threatening|deadly|strong|slight)\\s+)?((?:[\\p{L}-]+\\s+)?[\\p{L}-]+)"
            + "\\s+allerg(?:y|ies)\\b", (m, s) -> one(Slot.ALLERGY, singular(m.group(1)))),
        rule("intolerant-adjective", I_AM + "([\\p{L}]+)[- ]intolerant\\b", (m, s) -> one(Slot.INTOLERANCE, m.group(1))),
        rule("intolerant-and", "\\band\\s+(?:also\\s+)?([\\p{L}]+)[- ]intolerant\\b",
            (m, s) -> userIsSubject(s, m.start()) ? one(Slot.INTOLERANCE, m.group(1)) : List.of()),
        rule("intolerant-to", I_AM + "intolerant\\s+(?:to|of)\\s+" + REST,
            (m, s) -> listed(Slot.INTOLERANCE, m.group(1), 2, UnaryOperator.identity())),
        rule("intolerance", "(?:\\bi\\s+(?:have|'ve\\s+got)|\\bmy)\\s+(?:an?\\s+)?(?:(?:severe|mild)\\s+)?([\\p{L}]+)"
            + "\\s+intolerance\\b", (m, s) -> one(Slot.INTOLERANCE, m.group(1))),
        rule("condition-have", "\\bi\\s+" + ADVS + "(?:have|'ve\\s+got|have\\s+got|live\\s+with|am\\s+living\\s+with"
            + "|'m\\s+living\\s+with|struggle\\s+with|deal\\s+with|suffer\\s+from|was\\s+diagnosed\\s+with|got\\s+diagnosed\\s+with"
            + "|'ve\\s+been\\s+diagnosed\\s+with|have\\s+been\\s+diagnosed\\s+with)\\s+(" + CONDITIONS + ")\\b",
            (m, s) -> one(Slot.CONDITION, condition(m.group(1)))),
        rule("condition-diagnosed", "\\bi(?:\\s+was|'ve\\s+been|\\s+have\\s+been|\\s+got)\\s+diagnosed\\s+with\\s+" + REST
            + "|\\bi\\s+" + ADVS + "suffer\\s+from\\s+" + REST,
            (m, s) -> listed(Slot.CONDITION, m.group(1) != null ? m.group(1) : m.group(2), 3, SafetyRules::condition)),
        rule("condition-adjective", "(?:" + I_AM + "|\\band\\s+)(diabetic|pre-?diabetic|asthmatic|epileptic|pregnant|anaemic"
            + "|anemic|autistic|c[o]?eliac|immunocompromised|hypertensive)\\b", (m, s) -> userIsSubject(s, m.start())
                || m.group().toLowerCase(Locale.ROOT).startsWith("i")
                ? one(Slot.CONDITION, CONDITION_ADJECTIVES.get(m.group(1).toLowerCase(Locale.ROOT))) : List.of()),
        rule("condition-my", "\\b(?:because\\s+of|due\\s+to|for|with|of)\\s+my\\s+(" + CONDITIONS + ")\\b",
            (m, s) -> one(Slot.CONDITION, condition(m.group(1)))),
        rule("medication", TAKE + "\\s+(?:my\\s+)?(?:" + DOSE + ")?(" + MEDICATIONS + ")\\b" + DoseRules.AFTER,
            (m, s) -> DoseRules.withDose(one(Slot.MEDICATION, medication(m.group(1))), m.group())),
        // a dose names a medication whatever its name: "I take 20 mg of atorvastatin at night", "I'm on 5mg of Eliquis"
        rule("medication-dose", TAKE + "\\s+(?:my\\s+)?" + DOSE + REST, (m, s) -> DoseRules.withDose(items(m.group(1), 2)
            .stream().limit(1).flatMap(item -> one(Slot.MEDICATION, medication(item)).stream()).toList(), m.group())),
        rule("medication-and", "\\band\\s+(?:also\\s+)?(?:take|carry|use|need|inject)\\s+(?:my\\s+)?(" + MEDICATIONS + ")\\b",
            (m, s) -> userIsSubject(s, m.start()) ? one(Slot.MEDICATION, medication(m.group(1))) : List.of()),
        rule("avoids-eat", "\\bi\\s+" + ADVS + "(?:don't|do\\s+not|never|can't|cannot|can\\s+not|shouldn't|mustn't|must\\s+not"
            + "|won't|no\\s+longer|try\\s+not\\s+to)\\s+(?:eat|drink|consume|touch)\\s+" + REST,
            (m, s) -> listed(Slot.AVOIDS, m.group(1), 2, UnaryOperator.identity())),
        rule("avoids-have", "\\bi\\s+" + ADVS + "(?:can't|cannot|can\\s+not|don't|do\\s+not|shouldn't|mustn't)\\s+have\\s+("
            + FOODS + ")\\b|(?:\\bi\\s+" + ADVS + "(?:avoid|stay\\s+away\\s+from|steer\\s+clear\\s+of|cut\\s+out|gave\\s+up|quit"
            + "|(?:stopped|quit)\\s+(?:eating|drinking))|\\bi(?:'ve|\\s+have)\\s+" + ADVS + "(?:given\\s+up|quit|cut\\s+out"
            + "|(?:stopped|quit)\\s+(?:eating|drinking)))\\s+(?:all\\s+)?(" + FOODS + ")\\b",
            (m, s) -> one(Slot.AVOIDS, m.group(1) != null ? m.group(1) : m.group(2))),
        rule("accessibility-aid", "(?:\\bi(?:'m|\\s+am)?\\s+" + ADVS + "|\\band\\s+)(?:use|need|rely\\s+on|require|in"
            + "|get\\s+around\\s+(?:in|with))\\s+(?:an?\\s+|my\\s+)?" + AIDS + "(?:[- ]accessible)?",
            (m, s) -> m.group().toLowerCase(Locale.ROOT).startsWith("and") && !userIsSubject(s, m.start()) ? List.of()
                : one(Slot.ACCESSIBILITY, singular(m.group(1).replaceFirst("(?i)^an?\\s+", "")))),
        rule("accessibility-state", "(?:" + I_AM + "|\\band\\s+)(hard\\s+of\\s+hearing|deaf|blind|visually\\s+impaired"
            + "|partially\\s+sighted|hearing\\s+impaired|colou?r\\s*blind|paralyzed|paralysed|paraplegic|quadriplegic"
            + "|an\\s+amputee|nonverbal)\\b", (m, s) -> m.group().toLowerCase(Locale.ROOT).startsWith("and")
                && !userIsSubject(s, m.start()) ? List.of() : one(Slot.ACCESSIBILITY, m.group(1))));

    private SafetyRules() {
    }

    /**
     * @param slot the slot
     * @param raw the value as said
     * @return the fact, in English or (when the value has Han letters) in Chinese; empty when the value is no thing
     */
    static List<Fact> one(final Slot slot, final String raw) {
        if (raw == null) {
            return List.of();
        }
        final String value = raw.strip().replaceAll("\\s+", " ");
        final String lower = value.toLowerCase(Locale.ROOT);
        if (value.isEmpty() || NOT_A_SUBJECT.contains(lower) || STOP_WORDS.contains(lower)
            || (slot == Slot.AVOIDS && NOT_A_FOOD.contains(lower))) {
            return List.of();
        }
        final boolean chinese = value.codePoints().anyMatch(TurnHeuristics::unspacedScript);
        final String shown = chinese || ACRONYMS.contains(lower) ? (ACRONYMS.contains(lower) ? value.toUpperCase(Locale.ROOT)
            : value) : keepNames(value);
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.CONSTRAINT, slot.prefix + ":" + slug(shown), shown,
            slot.display + ": " + shown, String.format(Locale.ROOT, chinese ? slot.chinese : slot.english, shown), false,
            IMPORTANCE_SAFETY, EXPLICIT, MemorySource.EXPLICIT));
    }

    private static List<Fact> listed(final Slot slot, final String rest, final int maxWords,
                                     final UnaryOperator<String> normalize) {
        final List<Fact> out = new ArrayList<>();
        for (final String item : items(rest, maxWords)) {
            out.addAll(one(slot, normalize.apply(item)));
        }
        return out;
    }

    /** @return the word as said when it is a brand or name in capitals (EpiPen, Crohn's), else lower case */
    private static String keepNames(final String value) {
        final StringBuilder out = new StringBuilder();
        for (final String w : value.split(" ")) {
            final boolean name = w.length() > 1 && Character.isUpperCase(w.charAt(0))
                && (w.chars().skip(1).anyMatch(Character::isUpperCase) || w.endsWith("'s"));
            out.append(out.length() == 0 ? "" : " ").append(name ? w : w.toLowerCase(Locale.ROOT));
        }
        return out.toString();
    }

    private static String condition(final String raw) {
        String c = raw.strip().replaceFirst("(?i)^an?\\s+", "").replaceAll("\\s+", " ");
        final String lower = c.toLowerCase(Locale.ROOT);
        if (lower.startsWith("crohn's")) {
            return "Crohn's disease";
        }
        if (lower.startsWith("parkinson's")) {
            return "Parkinson's disease";
        }
        if (lower.equals("celiac") || lower.equals("coeliac") || lower.startsWith("coeliac")) {
            return "celiac disease";
        }
        c = singular(c);
        return c;
    }

    /**
     * @param word "no longer", "not", "don't" or "do not"
     * @param sentence the whole sentence
     * @return true when it ends a state rather than denies one: "no longer", or "not" with "anymore" ("I'm not
     *     allergic to cats" denies one: the same retraction, worded "Is not allergic to cat")
     */
    private static boolean noLonger(final String word, final String sentence) {
        return word.toLowerCase(Locale.ROOT).startsWith("no") && !word.toLowerCase(Locale.ROOT).startsWith("not")
            || sentence.toLowerCase(Locale.ROOT).matches(".*\\bany\\s?more\\b.*");
    }

    /** @return the facts as retractions of their keys, "Is no longer allergic to peanut" */
    private static List<Fact> retracted(final List<Fact> facts, final String content) {
        return facts.stream().map(f -> new Fact(f.type(), f.category(), f.key(), f.value(), f.displayName(),
            content + f.value(), true, f.importance(), FactRules.RETRACTION, f.source())).toList();
    }

    /**
     * @param raw a medication as said ("the amlodipine", "statins")
     * @return its fact ({@code medication:<drug>}), empty when the words are no thing
     */
    static List<Fact> medicationFact(final String raw) {
        return one(Slot.MEDICATION, medication(raw));
    }

    private static String medication(final String raw) {
        final String m = raw.strip().replaceFirst("(?i)^(?:an?|the)\\s+", "").replaceAll("\\s+", " ");
        return m.equalsIgnoreCase("pill") ? "the pill" : singular(m);
    }
}
