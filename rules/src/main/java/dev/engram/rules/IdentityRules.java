package dev.engram.rules;

import static dev.engram.rules.FactPatterns.ADVS;
import static dev.engram.rules.FactPatterns.NOT_A_PLACE;
import static dev.engram.rules.FactPatterns.NOT_A_SUBJECT;
import static dev.engram.rules.FactPatterns.NUM;
import static dev.engram.rules.FactPatterns.PROPER;
import static dev.engram.rules.FactPatterns.STOP_WORDS;
import static dev.engram.rules.FactRules.EXPLICIT;
import static dev.engram.rules.FactRules.FRAGMENT;
import static dev.engram.rules.FactRules.IMPORTANCE_CONTEXT;
import static dev.engram.rules.FactRules.IMPORTANCE_NAME;
import static dev.engram.rules.FactRules.IMPORTANCE_WORK;
import static dev.engram.rules.FactRules.RETRACTION;
import static dev.engram.rules.FactRules.first;
import static dev.engram.rules.FactRules.rule;
import static dev.engram.rules.FactRules.trimValue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;

/**
 * Who the user is and where: {@code name}, {@code role}, {@code employer} (with tenure), {@code city}
 * and numbered things of the user's ({@code locker_number}), stated ("I work at Ferrovia Labs", "we
 * moved to Trondheim", "my name is Ana") or retracted ("I left Acme", "I no longer live in Oslo").
 */
final class IdentityRules {

    private static final String JOB = "(?:engineer|developer|designer|manager|teacher|nurse|doctor|physician|scientist"
        + "|analyst|architect|consultant|lawyer|attorney|accountant|writer|student|researcher|counsell?or|artist"
        + "|programmer|administrator|lead|director|officer|intern|professor|lecturer|chef|pilot|pharmacist|therapist"
        + "|dentist|mechanic|electrician|plumber|firefighter|journalist|editor|photographer|musician|founder|cto|ceo"
        + "|cfo|sre|tester|librarian|veterinarian|paramedic|recruiter|freelancer|contractor|coach|trainer|instructor"
        + "|tutor|secretary|clerk|cashier|barista|waiter|waitress|farmer|carpenter|baker|entrepreneur|economist"
        + "|statistician|mathematician|physicist|chemist|biologist|psychologist|social\\s+worker|product\\s+owner"
        + "|data\\s+scientist|sales\\s*person|marketer|specialist|technician|surgeon|midwife|paralegal|translator)";

    /** "I no longer live in Oslo", "I left Acme". */
    static final List<Rule> RETRACTED = List.of(
        rule("city-retracted", "\\b(?:i|we)\\s+(?:no\\s+longer|don't|do\\s+not)\\s+live\\s+in\\s+(" + PROPER + ")"
            + "|\\b(?:i'm|i\\s+am|we're|we\\s+are)\\s+(?:no\\s+longer|not)\\s+(?:living|based)\\s+in\\s+(" + PROPER + ")",
            (m, s) -> city(first(m, 1, 2), true, RETRACTION)),
        rule("employer-retracted", "\\bi\\s+(?:no\\s+longer|don't|do\\s+not)\\s+work\\s+(?:at|for)\\s+(" + PROPER + ")"
            + "|\\bi(?:'m|\\s+am)\\s+(?:no\\s+longer|not)\\s+working\\s+(?:at|for)\\s+(" + PROPER + ")"
            + "|\\bi(?:'ve|\\s+have)?\\s+" + ADVS + "(?:left|quit)\\s+(?:my\\s+job\\s+at\\s+)?(" + PROPER + ")",
            (m, s) -> employer(first(m, 1, 3), -1, true, RETRACTION)));

    /** Name, numbered things, employer and tenure, role, city. */
    static final List<Rule> STATED = List.of(
        rule("name", "\\bmy\\s+name(?:'s|\\s+is)\\s+(" + PROPER + ")|\\b(?:please\\s+)?call\\s+me\\s+(" + PROPER + ")",
            (m, s) -> name(first(m, 1, 2))),
        // "my locker (at the gym) is number 14": a numbered thing of the user's, one slot per thing (case-15)
        rule("numbered-thing", "\\bmy\\s+(locker|room|seat|desk|office|flat|apartment|house|parking\\s+spot|cabin|badge)"
            + "(?:\\s+(?:at|in|on)\\s+(?:the\\s+)?\\p{L}+)?(?:\\s+is|'s)\\s+(?:now\\s+)?(?:number\\s+|no\\.?\\s*|#\\s*)?(\\d+[a-z]?)\\b",
            (m, s) -> numbered(m.group(1), m.group(2))),
        rule("employer-tenure", "\\b(?:i|we)(?:'ve|\\s+have)\\s+" + ADVS + "been\\s+(?:working\\s+)?(?:at|with|for)\\s+("
            + PROPER + ")\\s+(?:for\\s+)?(?:(?:the\\s+)?(?:past|last)\\s+)?" + NUM + "\\s+years?",
            (m, s) -> employer(m.group(1), NumberWords.parse(m.group(2)), false, EXPLICIT)),
        rule("employer-tenure-fragment", "(?:^|\\bi(?:'ve|\\s+have)\\s+(?:spent|had|done|worked)\\s+|\\bit(?:'s|\\s+has)"
            + "\\s+been\\s+)" + ADVS + NUM + "\\s+years?\\s+(?:now\\s+)?(?:at|with|working\\s+(?:at|for))\\s+(" + PROPER + ")",
            (m, s) -> employer(m.group(2), NumberWords.parse(m.group(1)), false,
                m.group().toLowerCase(Locale.ROOT).startsWith("i") ? EXPLICIT : FRAGMENT)),
        rule("role-and-employer", "\\bi(?:'m|\\s+am|\\s+work\\s+as|'m\\s+working\\s+as|\\s+am\\s+working\\s+as)\\s+"
            + "(?:now\\s+|currently\\s+|still\\s+)?(?:an?\\s+)((?:[\\p{L}-]+\\s+){0,3}?" + JOB + ")s?\\b"
            + "(?:\\s+(?:at|for|with)\\s+(" + PROPER + "))?",
            (m, s) -> roleAndEmployer(m.group(1), m.group(2))),
        rule("role-title", "\\bmy\\s+(?:job\\s+title|title|role|job|position)\\s+is\\s+(?:an?\\s+)?"
            + "((?:[\\p{L}-]+\\s+){0,3}?" + JOB + ")\\b", (m, s) -> roleAndEmployer(m.group(1), null)),
        rule("employer", "\\b(?:i|we)(?:(?:'m|\\s+am)\\s+" + ADVS + "working|(?:'ve|\\s+have)\\s+" + ADVS
            + "(?:worked|been\\s+working)|\\s+" + ADVS + "work)\\s+(?:at|for)\\s+(" + PROPER + ")"
            + "(?:\\s+for\\s+(?:(?:the\\s+)?(?:past|last)\\s+)?" + NUM + "\\s+years?)?",
            (m, s) -> employer(m.group(1), m.group(2) == null ? -1 : NumberWords.parse(m.group(2)), false, EXPLICIT)),
        rule("employer-joined", "\\b(?:i|we)\\s+" + ADVS + "(?:joined|started\\s+at|started\\s+working\\s+(?:at|for))\\s+("
            + PROPER + ")", (m, s) -> employer(m.group(1), -1, false, EXPLICIT)),
        rule("city-live", "\\b(?:i|we)(?:'m|'re|\\s+am|\\s+are|'ve\\s+been|\\s+have\\s+been)?\\s+" + ADVS
            + "(?:live|living|reside|residing|based)\\s+in\\s+(" + PROPER + ")", (m, s) -> city(m.group(1), false, EXPLICIT)),
        rule("city-now-living", "(?:^|[,;]\\s*)" + ADVS + "(?:now|currently)\\s+(?:living|based|residing)\\s+in\\s+("
            + PROPER + ")", (m, s) -> city(m.group(1), false, FRAGMENT)),
        rule("city-moved", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "(?:moved|relocated)\\s+(?:back\\s+|over\\s+|out\\s+)?"
            + "to\\s+(" + PROPER + ")", (m, s) -> city(m.group(1), false, EXPLICIT)));

    private IdentityRules() {
    }

    private static List<Fact> city(final String raw, final boolean negated, final double confidence) {
        final String city = trimValue(raw);
        if (city.isEmpty() || NOT_A_PLACE.contains(city.toLowerCase(Locale.ROOT))
            || TechVocabulary.resolve(city).map(t -> t.slot() != TechVocabulary.Slot.TOOL).orElse(false)) {
            return List.of();
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, "city", city, "City",
            (negated ? "No longer lives in " : "Lives in ") + city, negated, IMPORTANCE_CONTEXT, confidence,
            MemorySource.EXPLICIT));
    }

    private static List<Fact> employer(final String raw, final int years, final boolean negated,
                                       final double confidence) {
        final String company = trimValue(raw);
        if (company.isEmpty() || NOT_A_PLACE.contains(company.toLowerCase(Locale.ROOT))) {
            return List.of();
        }
        final String content;
        if (negated) {
            content = "No longer works at " + company;
        } else if (years > 0) {
            content = "Has worked at " + company + " for " + years + (years == 1 ? " year" : " years");
        } else {
            content = "Works at " + company;
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.ROLE, "employer", company, "Employer", content,
            negated, IMPORTANCE_WORK, confidence, MemorySource.EXPLICIT));
    }

    private static List<Fact> roleAndEmployer(final String rawRole, final String rawEmployer) {
        final String role = trimValue(rawRole).toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        final List<Fact> facts = new ArrayList<>();
        final String[] words = role.split(" ");
        if (Arrays.stream(words).anyMatch(w -> NOT_A_SUBJECT.contains(w) || STOP_WORDS.contains(w))) {
            return List.of();
        }
        facts.add(new Fact(MemoryType.SEMANTIC, FactCategory.ROLE, "role", role, "Role",
            "Works as " + article(role) + " " + role, false, IMPORTANCE_WORK, EXPLICIT, MemorySource.EXPLICIT));
        if (rawEmployer != null) {
            facts.addAll(employer(rawEmployer, -1, false, EXPLICIT));
        }
        return facts;
    }

    private static String article(final String word) {
        return "aeiou".indexOf(word.charAt(0)) >= 0 ? "an" : "a";
    }

    private static List<Fact> name(final String raw) {
        final String name = trimValue(raw);
        if (name.isEmpty()) {
            return List.of();
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, "name", name, "Name", "Name is " + name,
            false, IMPORTANCE_NAME, EXPLICIT, MemorySource.EXPLICIT));
    }


    /** @return "Locker is number 14", key {@code locker_number}: a restated number supersedes the old one */
    private static List<Fact> numbered(final String thing, final String number) {
        final String noun = thing.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        final String label = Character.toUpperCase(noun.charAt(0)) + noun.substring(1);
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, noun.replace(' ', '_') + "_number",
            number.toUpperCase(Locale.ROOT), label + " number", label + " is number " + number.toUpperCase(Locale.ROOT),
            false, IMPORTANCE_CONTEXT, EXPLICIT, MemorySource.EXPLICIT));
    }
}
