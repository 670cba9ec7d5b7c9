package dev.engram.rules;

import static dev.engram.rules.FactPatterns.ADVS;
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
 * allergy is gone": {@code allergy:shellfish} retracted). Tried with the changes, before every statement rule, so the
 * words they claim are not read again as a use of the old value.
 */
final class ChangeRules {

    /** A medication named after a switch's "from" or "to", with an article or possessive before it. */
    private static final String MED = "(?:the\\s+|my\\s+)?(" + SafetyRules.MEDICATIONS + ")\\b";
    /** An allergen before "allergy": one or two words. */
    private static final String ALLERGEN = "((?:[\\p{L}-]+\\s+)?[\\p{L}-]+?)";

    /** Changes of a medication or an allergy. */
    static final List<Rule> RULES = List.of(
        rule("medication-switched", "\\bi(?:'ve|\\s+have)?\\s+" + ADVS + "(?:switched|changed|moved|went|was\\s+switched"
            + "|got\\s+switched)\\s+(?:over\\s+)?from\\s+" + MED + "\\s+to\\s+" + MED,
            (m, s) -> medicationSwitched(m.group(1), m.group(2))),
        rule("allergy-outgrown", "\\bi(?:'ve|\\s+have)?\\s+" + ADVS + "(?:outgrew|outgrown|grew\\s+out\\s+of|got\\s+over)"
            + "\\s+my\\s+" + ALLERGEN + "\\s+allerg(?:y|ies)\\b|\\bmy\\s+" + ALLERGEN + "\\s+allerg(?:y|ies)\\s+(?:is|has)\\s+"
            + "(?:now\\s+|completely\\s+|finally\\s+)?(?:gone|went\\s+away|disappeared|cleared\\s+up|over)\\b",
            (m, s) -> withdrawn(SafetyRules.one(Slot.ALLERGY, singular(FactRules.first(m, 1, 2))),
                "Is no longer allergic to %s")));

    private ChangeRules() {
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
