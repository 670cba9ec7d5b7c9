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
import static dev.engram.rules.FactRules.slug;
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
        + "|data\\s+scientist|sales\\s*person|marketer|specialist|technician|surgeon|midwife|paralegal|translator|driver"
        + "|dispatcher|receptionist|coordinator|nanny|cleaner|caregiver|carer|optometrist|dietitian|nutritionist|surveyor"
        + "|welder|courier|butcher|florist|hairdresser|stylist|tailor|priest|pastor|soldier|guard|janitor|bartender"
        + "|illustrator|animator|producer|curator|archivist|advisor|adviser|auditor|banker|broker|agent|planner)";

    /** A role named freely after "as a" ("as a logistics coordinator"): up to four words before a clause ends. */
    private static final String AS_ROLE = "(?:an?\\s+)?((?:[\\p{L}-]+\\s+){0,3}?[\\p{L}-]+)(?=\\s*(?:[,.;!]|$|\\s+(?:and|but|since"
        + "|for|in|at|with|because|so|now|here|there|these|this|last|full-time|part-time)\\b))";

    /** "I no longer live in Oslo", "I left Acme". */
    static final List<Rule> RETRACTED = List.of(
        rule("city-retracted", "\\b(?:i|we)\\s+(?:no\\s+longer|don't|do\\s+not)\\s+live\\s+in\\s+(" + PROPER + ")"
            + "|\\b(?:i'm|i\\s+am|we're|we\\s+are)\\s+(?:no\\s+longer|not)\\s+(?:living|based)\\s+in\\s+(" + PROPER + ")",
            (m, s) -> city(first(m, 1, 2), true, RETRACTION)),
        rule("employer-retracted", "\\bi\\s+(?:no\\s+longer|don't|do\\s+not)\\s+work\\s+(?:at|for)\\s+(" + PROPER + ")"
            + "|\\bi(?:'m|\\s+am)\\s+(?:no\\s+longer|not)\\s+working\\s+(?:at|for)\\s+(" + PROPER + ")"
            + "|\\bi(?:'ve|\\s+have)?\\s+" + ADVS + "(?:left|quit)\\s+(?:my\\s+job\\s+at\\s+)?(" + PROPER + ")"
            // a job ended in other words: "I am no longer at Spotify", "I got laid off from Spotify", "I lost my job at X"
            + "|\\bi(?:'m|\\s+am)\\s+no\\s+longer\\s+(?:at|with)\\s+(" + PROPER + ")"
            + "|\\bi(?:\\s+got|\\s+was|'ve\\s+been|\\s+have\\s+been)\\s+(?:laid\\s+off|fired|let\\s+go|made\\s+redundant)"
            + "\\s+(?:from|by|at)\\s+(" + PROPER + ")|\\bi\\s+lost\\s+my\\s+job\\s+(?:at|with)\\s+(" + PROPER + ")",
            (m, s) -> employer(first(m, 1, 6), -1, true, RETRACTION)),
        rule("role-retracted", "\\bi\\s+(?:no\\s+longer|don't|do\\s+not)\\s+work\\s+as\\s+" + AS_ROLE
            + "|\\bi(?:'m|\\s+am)\\s+(?:no\\s+longer|not)\\s+an?\\s+((?:[\\p{L}-]+\\s+){0,2}?" + JOB + ")s?\\b",
            (m, s) -> role(first(m, 1, 2), true)));

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
        rule("employer-as-role", "\\b(?:i|we)(?:'m|\\s+am|'ve|\\s+have)?\\s+" + ADVS + "(?:work|working|worked|been\\s+working"
            + "|started\\s+working|started|joined)\\s+(?:(?:at|for|with)\\s+)?(?:the\\s+)?(" + PROPER + ")\\s+as\\s+" + AS_ROLE,
            (m, s) -> roleAndEmployer(m.group(2), m.group(1), false)),
        // "I live in Boston and work at Fidelity as an analyst": the subject is the sentence's
        rule("employer-and", "\\band\\s+" + ADVS + "(?:work|am\\s+working)(?:\\s+(?:remotely|full-time|part-time))?\\s+(?:at|for)"
            + "\\s+(?:the\\s+)?(" + PROPER + ")(?:\\s+as\\s+" + AS_ROLE + ")?", (m, s) -> !FactPatterns.userIsSubject(s, m.start())
                ? List.of() : m.group(2) == null ? employer(m.group(1), -1, false, EXPLICIT)
                : roleAndEmployer(m.group(2), m.group(1), false)),
        rule("work-as-role", "\\bi(?:\\s+" + ADVS + "work|'m\\s+working|\\s+am\\s+working|(?:'m|\\s+am)\\s+(?:self-employed"
            + "|employed|freelancing|contracting))\\s+as\\s+" + AS_ROLE + "(?:\\s+(?:at|for|with)\\s+(?:the\\s+)?(" + PROPER + "))?",
            (m, s) -> roleAndEmployer(m.group(1), m.group(2), false)),
        rule("role-head-of", "\\bi(?:'m|\\s+am)\\s+" + ADVS + "the\\s+((?:head|director|vp|chief|manager|lead)\\s+of\\s+\\p{L}+"
            + "(?:\\s+\\p{L}+)?)\\s+(?:at|for)\\s+(?:the\\s+)?(" + PROPER + ")", (m, s) -> roleAndEmployer(m.group(1), m.group(2), true)),
        rule("role-teach", "\\bi\\s+" + ADVS + "teach\\s+(\\p{L}+)\\s+(?:at|in)\\s+(?:the\\s+)?(" + PROPER + ")",
            (m, s) -> roleAndEmployer(m.group(1) + " teacher", m.group(2), true)),
        rule("role-and-employer", "\\bi(?:'m|\\s+am|\\s+work\\s+as|'m\\s+working\\s+as|\\s+am\\s+working\\s+as|'ve\\s+been"
            + "|\\s+have\\s+been|\\s+" + ADVS + "became|\\s+(?:was|got)\\s+promoted\\s+to)\\s+"
            + "(?:now\\s+|currently\\s+|still\\s+)?(?:an?\\s+)((?:[\\p{L}-]+\\s+){0,3}?" + JOB + ")s?\\b"
            + "(?:\\s+(?:at|for|with)\\s+(?:the\\s+)?(" + PROPER + "))?",
            (m, s) -> roleAndEmployer(m.group(1), m.group(2), true)),
        rule("role-title", "\\bmy\\s+(?:job\\s+title|title|role|job|position)\\s+is\\s+(?:an?\\s+)?"
            + "((?:[\\p{L}-]+\\s+){0,3}?" + JOB + ")\\b", (m, s) -> roleAndEmployer(m.group(1), null, true)),
        rule("employer", "\\b(?:i|we)(?:(?:'m|\\s+am)\\s+" + ADVS + "working|(?:'ve|\\s+have)\\s+" + ADVS
            + "(?:worked|been\\s+working)|\\s+" + ADVS + "work)(?:\\s+(?:remotely|full-time|part-time|freelance))?\\s+(?:at|for)"
            + "\\s+(?:the\\s+)?(" + PROPER + ")"
            + "(?:\\s+for\\s+(?:(?:the\\s+)?(?:past|last)\\s+)?" + NUM + "\\s+years?)?",
            (m, s) -> employer(m.group(1), m.group(2) == null ? -1 : NumberWords.parse(m.group(2)), false, EXPLICIT)),
        // a job change said as the new job ("I joined Hooli", "I got a new job at Hooli", "I've started a job with Hooli")
        rule("employer-joined", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "(?:joined|started\\s+at|started\\s+working\\s+(?:at|for)"
            + "|(?:got|took|started|accepted|landed)\\s+(?:a|the|my)\\s+(?:new\\s+)?(?:job|position|role)\\s+(?:at|with))"
            + "\\s+(?:the\\s+)?(" + PROPER + ")", (m, s) -> employer(m.group(1), -1, false, EXPLICIT)),
        // "I left Siemens and joined Bosch": the subject is the sentence's; the new employer wins over the one left
        rule("employer-and-joined", "\\b(?:and|then)\\s+(?:then\\s+|now\\s+)?(?:joined|started\\s+at"
            + "|started\\s+working\\s+(?:at|for))\\s+(?:the\\s+)?(" + PROPER + ")",
            (m, s) -> FactPatterns.userIsSubject(s, m.start()) ? employer(m.group(1), -1, false, EXPLICIT) : List.of()),
        // "My new employer is Bosch", "my employer is now Bosch", "my company is Netflix"
        rule("employer-is", "\\bmy\\s+(?:new\\s+|current\\s+)?(?:employer|company)\\s+is\\s+(?:now\\s+)?(?:the\\s+)?("
            + PROPER + ")", (m, s) -> employer(m.group(1), -1, false, EXPLICIT)),
        // "I am employed by Netflix", "I'm employed at Netflix" (README trial: a restatement kept as an episode)
        rule("employer-employed", "\\b(?:i|we)(?:'m|\\s+am|'re|\\s+are)\\s+" + ADVS + "employed\\s+(?:by|at|with)\\s+"
            + "(?:the\\s+)?(" + PROPER + ")", (m, s) -> employer(m.group(1), -1, false, EXPLICIT)),
        // "Oslo is my home.", "Oslo is home now", "my home is Oslo", "home is Oslo these days": the city; not "Oslo is
        // my hometown" (where the user grew up), not "Oslo is home to …" (a description)
        rule("city-home", "(?:^|[,;]\\s*)(?!(?:This|That|It|Here|There|Where|What|Which|Who|Home|Anywhere|Somewhere"
            + "|Everywhere|Nowhere|Everything|Nothing)\\b)(" + PROPER + ")\\s+is\\s+(?:now\\s+)?(?:my\\s+)?home(?:\\s+now)?\\s*(?:[.!,;]|$)"
            + "|(?:^|[,;]\\s*|\\bmy\\s+)home\\s+is\\s+(?:now\\s+)?(?:in\\s+)?(" + PROPER + ")(?!\\s+to\\b)",
            (m, s) -> city(first(m, 1, 2), false, EXPLICIT)),
        rule("city-live", "\\b(?:i|we)(?:'m|'re|\\s+am|\\s+are|'ve\\s+been|\\s+have\\s+been)?\\s+" + ADVS
            + "(?:live|living|reside|residing|based)\\s+in\\s+(" + PROPER + ")|\\b(?:i|we)(?:'ve|\\s+have)\\s+" + ADVS
            + "lived\\s+in\\s+(" + PROPER + ")\\s+(?:for|since)\\b", (m, s) -> city(first(m, 1, 2), false, EXPLICIT)),
        rule("city-now-living", "(?:^|[,;]\\s*)" + ADVS + "(?:now|currently)\\s+(?:living|based|residing)\\s+in\\s+("
            + PROPER + ")", (m, s) -> city(m.group(1), false, FRAGMENT)),
        // "we moved from Vienna to Graz": the place left is skipped, the new one is the city (it supersedes the old);
        // from or to a tool ("we moved from Jira to Linear") it is a tool switch (TechRules), not a move
        rule("city-moved", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "(?:moved|relocated)\\s+(?:back\\s+|over\\s+|out\\s+)?"
            + "(?:from\\s+(" + PROPER + ")\\s+)?to\\s+(" + PROPER + ")", (m, s) -> TechVocabulary.isKnownTool(m.group(2))
                || m.group(1) != null && TechVocabulary.isKnownTool(m.group(1)) ? List.of() : city(m.group(2), false, EXPLICIT)));

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

    static List<Fact> employer(final String raw, final int years, final boolean negated,
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

    /**
     * @param rawRole the role as said
     * @param rawEmployer the employer, or null
     * @param ofWords true when "of" may be inside the role ("head of marketing")
     */
    static List<Fact> roleAndEmployer(final String rawRole, final String rawEmployer, final boolean ofWords) {
        final List<Fact> facts = new ArrayList<>(role(rawRole, false));
        if (facts.isEmpty() && !ofWords) {
            return List.of();
        }
        if (rawEmployer != null) {
            facts.addAll(employer(rawEmployer, -1, false, EXPLICIT));
        }
        return facts;
    }

    private static List<Fact> role(final String rawRole, final boolean negated) {
        final String role = trimValue(rawRole).toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        final String[] words = role.split(" ");
        if (role.isEmpty() || Arrays.stream(words).anyMatch(w -> !w.equals("of") && (NOT_A_SUBJECT.contains(w)
            || STOP_WORDS.contains(w)))) {
            return List.of();
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.ROLE, "role", role, "Role",
            (negated ? "No longer works as " : "Works as ") + article(role) + " " + role, negated, IMPORTANCE_WORK,
            negated ? RETRACTION : EXPLICIT, MemorySource.EXPLICIT));
    }

    private static String article(final String word) {
        return "aeiou".indexOf(word.charAt(0)) >= 0 ? "an" : "a";
    }

    private static final java.util.regex.Pattern CALL_ME = java.util.regex.Pattern.compile(
        "\\b(?:please\\s+)?call\\s+me\\b", java.util.regex.Pattern.CASE_INSENSITIVE);

    /**
     * A name asked of one agent ("Call me Captain" to the travel bot) is what that agent calls the user, not the user's
     * name: in a conversation with an agent, the {@code name} a "call me" states becomes
     * {@code nickname:<agentId>} ({@link dev.engram.port.ExtractedMemory#AGENT_NICKNAME}), the agent's own. "My name is
     * Dana" stays the user's name for every agent, and without an agent "call me" is the name as before.
     *
     * @param fact a fact of the sentence
     * @param sentence the sentence that stated it
     * @param agent the conversation's agent, or null
     * @return the fact, or the agent's nickname of it
     */
    static Fact agentName(final Fact fact, final String sentence, final String agent) {
        if (agent == null || fact.negated() || !"name".equals(fact.key()) || sentence == null
            || !CALL_ME.matcher(sentence).find() || NAME_IS.matcher(sentence).find()) {
            return fact;
        }
        return new Fact(fact.type(), fact.category(), dev.engram.port.ExtractedMemory.AGENT_NICKNAME + slug(agent),
            fact.value(), "Called by this assistant", "Wants to be called " + fact.value() + " here", false,
            fact.importance(), fact.confidence(), fact.source(), fact.partial());
    }

    private static final java.util.regex.Pattern NAME_IS = java.util.regex.Pattern.compile(
        "\\bmy\\s+name(?:'s|\\s+is)\\b", java.util.regex.Pattern.CASE_INSENSITIVE);

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
