package dev.engram.rules;

import static dev.engram.rules.FactPatterns.ADVS;
import static dev.engram.rules.FactPatterns.PROPER;
import static dev.engram.rules.FactPatterns.singular;
import static dev.engram.rules.FactRules.rule;

import java.util.ArrayList;
import java.util.List;

import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;
import dev.engram.rules.SafetyRules.Slot;

/**
 * Changes said in everyday words, which a statement rule alone reads as nothing or as the old value: a medication
 * switched ("I switched from metformin to insulin": {@code medication:metformin} retracted, {@code medication:insulin}
 * stated) and an allergy outgrown ("I outgrew my shellfish allergy", "I grew out of my peanut allergy", "my shellfish
 * allergy is gone": {@code allergy:shellfish} retracted), a promotion ("I got promoted to senior engineer": the new
 * {@code role}), a new job said as its start ("Just started a new gig at Revolut"), a job joined as a role ("left Google,
 * joined Meta as a product manager": {@code employer} and {@code role}) and a tool dropped for another ("Our team ditched
 * Slack for Discord", and between known tools in lower case: "switched from notion to obsidian"). Tried with the changes, before every statement rule, so the
 * words they claim are not read again as a use of the old value.
 */
final class ChangeRules {

    /** A medication named after a switch's "from" or "to", with an article or possessive before it. */
    private static final String MED = "(?:the\\s+|my\\s+)?(" + SafetyRules.MEDICATIONS + ")\\b";
    /** An allergen before "allergy": one or two words. */
    private static final String ALLERGEN = "((?:[\\p{L}-]+\\s+)?[\\p{L}-]+?)";

    /** A tool by its known or capitalized name. */
    private static final String TOOL = "(" + TechVocabulary.ANY + "|" + PROPER + ")";
    /** A role named freely: up to four words before a clause ends. */
    private static final String ROLE = "((?:[\\p{L}-]+\\s+){0,3}?[\\p{L}-]+?)(?=\\s*(?:[,.;!]|$|\\s+(?:at|and|but|in|last|this|today"
        + "|yesterday|since|with)\\b))";

    /** Changes of a medication, an allergy, a job or a tool said in everyday words. */
    static final List<Rule> RULES = List.of(
        rule("medication-switched", "\\bi(?:'ve|\\s+have)?\\s+" + ADVS + "(?:switched|changed|moved|went|was\\s+switched"
            + "|got\\s+switched)\\s+(?:over\\s+)?from\\s+" + MED + "\\s+to\\s+" + MED,
            (m, s) -> medicationSwitched(m.group(1), m.group(2))),
        rule("allergy-outgrown", "\\bi(?:'ve|\\s+have)?\\s+" + ADVS + "(?:outgrew|outgrown|grew\\s+out\\s+of|got\\s+over)"
            + "\\s+my\\s+" + ALLERGEN + "\\s+allerg(?:y|ies)\\b|\\bmy\\s+" + ALLERGEN + "\\s+allerg(?:y|ies)\\s+(?:is|has)\\s+"
            + "(?:now\\s+|completely\\s+|finally\\s+)?(?:gone|went\\s+away|disappeared|cleared\\s+up|over)\\b",
            (m, s) -> withdrawn(SafetyRules.one(Slot.ALLERGY, singular(FactRules.first(m, 1, 2))),
                "Is no longer allergic to %s")),
        // a promotion is the new role: "I got promoted to senior engineer!" (with or without an article)
        rule("role-promoted", "\\bi(?:'ve|\\s+have)?\\s+" + ADVS + "(?:got|been|was|get)\\s+promoted\\s+to\\s+(?:an?\\s+)?" + ROLE
            + "(?:\\s+at\\s+(?:the\\s+)?(" + PROPER + "))?", (m, s) -> IdentityRules.roleAndEmployer(m.group(1), m.group(2), false)),
        // a new job said as its start, with or without "I": "Just started a new gig at Revolut"
        rule("employer-new-job", "(?:^|\\b(?:i|we)(?:'ve|\\s+have)?\\s+)" + ADVS + "(?:started|began|got|landed|took|accepted)"
            + "\\s+(?:a|my|the)\\s+new\\s+(?:gig|job|position|role)\\s+(?:at|with)\\s+(?:the\\s+)?(" + PROPER + ")",
            (m, s) -> IdentityRules.employer(m.group(1), -1, false, FactRules.EXPLICIT)),
        // "left Google, joined Meta as a product manager": the new employer and the new role
        rule("employer-joined-as", "(?:\\band|,)\\s+(?:then\\s+|now\\s+)?joined\\s+(?:the\\s+)?(" + PROPER + ")\\s+as\\s+(?:an?\\s+)?"
            + ROLE, (m, s) -> FactPatterns.userIsSubject(s, m.start()) ? IdentityRules.roleAndEmployer(m.group(2), m.group(1),
                false) : List.of()),
        // a tool dropped for another, by a team too: "Our team ditched Slack for Discord"
        rule("tool-ditched", "\\b(?:i|we|(?:our|my|the)\\s+(?:team|company))(?:'ve|\\s+have)?\\s+" + ADVS
            + "(?:ditched|dropped|dumped|abandoned)\\s+" + TOOL + "\\s+(?:for|in\\s+favou?r\\s+of)\\s+" + TOOL,
            (m, s) -> TechRules.switched(m.group(1), m.group(2))),
        // a switch between known tools typed in lower case: "switched from notion to obsidian"
        rule("tool-switched-lowercase", "(?:^|\\b(?:i|we)(?:'ve|\\s+have)?\\s+)" + ADVS + "(?:switched|migrated|moved|changed)\\s+"
            + "(?:over\\s+)?from\\s+(" + TechVocabulary.KNOWN + ")\\s+to\\s+(?:using\\s+)?(" + TechVocabulary.KNOWN + ")",
            (m, s) -> TechRules.switched(capitalized(m.group(1)), capitalized(m.group(2)))));

    private ChangeRules() {
    }

    /** @return each word with a capital first letter ("github actions" → "Github Actions"), as a name is typed */
    private static String capitalized(final String words) {
        final StringBuilder out = new StringBuilder();
        for (final String w : words.strip().split("\\s+")) {
            out.append(out.length() == 0 ? "" : " ").append(Character.toUpperCase(w.charAt(0))).append(w.substring(1));
        }
        return out.toString();
    }

    /** @return the medication switched to, stated, and the one switched from, retracted */
    private static List<Fact> medicationSwitched(final String from, final String to) {
        final List<Fact> facts = new ArrayList<>(SafetyRules.one(Slot.MEDICATION, singular(to.strip())));
        final List<Fact> old = SafetyRules.one(Slot.MEDICATION, singular(from.strip()));
        if (!facts.isEmpty() && !old.isEmpty() && !old.get(0).key().equals(facts.get(0).key())) {
            facts.addAll(withdrawn(old, "No longer takes %s"));
        }
        return facts;
    }

    /**
     * @param facts facts as their statement rule states them
     * @param format the retraction's content, {@code %s} the value ("Is no longer allergic to %s", "不再对%s过敏")
     * @return the facts as retractions of their keys (negated, confidence {@link FactRules#RETRACTION})
     */
    static List<Fact> withdrawn(final List<Fact> facts, final String format) {
        return facts.stream().map(f -> new Fact(f.type(), f.category(), f.key(), f.value(), f.displayName(),
            String.format(format, f.value()), true, f.importance(), FactRules.RETRACTION, f.source())).toList();
    }
}
