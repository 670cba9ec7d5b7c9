package dev.engram.rules;

import static dev.engram.rules.FactRules.rule;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;

/**
 * The dose of a medication, part of what its fact states: {@code medication:<drug>} keeps the drug as its value (so "I
 * stopped taking amlodipine" retracts it whatever the dose) and carries the dose in its content ("Takes amlodipine 5 mg
 * (medication)"), and the consolidator supersedes a fact of the same key and value whose content carries other numbers
 * (Facts#sameValue), so a new dose is current and the old one archived. A dose said without its drug ("My dose went up
 * to 20 mg") names the drug of the conversation or the user's profile ({@link #resolve}).
 *
 * <p>Said: "I take amlodipine 5 mg", "I take 20 mg of atorvastatin" ({@link SafetyRules}' medication rules, worded
 * here), "I raised my amlodipine to 10 mg", "My doctor increased my lisinopril to 20mg", "my metformin dose was lowered to
 * 500 mg", "My dose went up to 20 mg". Only the units of a prescription count (mg, mcg, µg, IU): "I upped my coffee to
 * 3 cups" is no dose.
 */
final class DoseRules {

    /** The key of a dose said without its drug, until {@link #resolve} names it. */
    static final String UNNAMED = "medication:?";

    /** An amount in a prescription's units: "5 mg", "10mg", "0.5 milligrams", "1000 IU". */
    private static final String AMOUNT = "\\d+(?:[.,]\\d+)?\\s*(?:mg|mcg|µg|milligrams?|micrograms?|iu)\\b";
    private static final Pattern AMOUNT_IN = Pattern.compile("(\\d+(?:[.,]\\d+)?)\\s*(mg|mcg|µg|milligrams?|micrograms?"
        + "|iu)\\b", Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);

    /** A dose right after a drug's name: "amlodipine 5 mg", "metformin 500mg twice a day". */
    static final String AFTER = "(?:\\s+" + AMOUNT + ")?";

    private static final String CHANGED = "(?:raised|increased|upped|bumped\\s+up|lowered|reduced|decreased|cut|dropped"
        + "|changed|adjusted|doubled|halved|moved|put)";
    private static final String WENT = "(?:went|has\\s+gone|is|was|got|has\\s+been|have\\s+been|goes)\\s+(?:up|down|back)?";
    private static final String DRUG = "(?!dose\\b)(" + SafetyRules.MEDICATIONS + "|\\p{L}{4,})";

    /** A dose changed: the new dose is the fact, of the drug named or (without one) of {@link #UNNAMED}. */
    static final List<Rule> RULES = List.of(
        rule("dose-changed", "\\b(?:i|we|my\\s+\\p{L}+|they|he|she)\\s+(?:have\\s+|'ve\\s+|has\\s+|just\\s+)?" + CHANGED
            + "\\s+(?:my|the)\\s+" + DRUG + "(?:\\s+dose|\\s+dosage)?\\s+(?:up\\s+|down\\s+)?to\\s+(" + AMOUNT + ")",
            (m, s) -> dosed(m.group(1), m.group(2))),
        rule("dose-changed-passive", "\\bmy\\s+" + DRUG + "(?:\\s+dose|\\s+dosage)?\\s+(?:was|has\\s+been|got|is\\s+being|is)"
            + "\\s+" + CHANGED + "\\s+(?:up\\s+|down\\s+)?to\\s+(" + AMOUNT + ")",
            (m, s) -> dosed(m.group(1), m.group(2))),
        rule("dose-unnamed", "\\b(?:my|the)\\s+(?:dose|dosage)\\s+(?:" + WENT + "\\s*|" + "(?:was|has\\s+been|got)\\s+" + CHANGED
            + "\\s+(?:up\\s+|down\\s+)?)to\\s+(" + AMOUNT + ")|\\b(?:i|they|my\\s+\\p{L}+)\\s+(?:have\\s+|'ve\\s+|has\\s+|just\\s+)?"
            + CHANGED + "\\s+my\\s+(?:dose|dosage)\\s+(?:up\\s+|down\\s+)?to\\s+(" + AMOUNT + ")",
            (m, s) -> dosed("?", FactRules.first(m, 1, 2))));

    private DoseRules() {
    }

    /**
     * @param drug the drug as said, or "?" for {@link #UNNAMED}
     * @param amount the dose as said
     * @return the medication fact of that dose; empty when the drug is a common word (no medication)
     */
    private static List<Fact> dosed(final String drug, final String amount) {
        if (drug.equals("?")) {
            return List.of(withDose(new Fact(dev.engram.avro.MemoryType.SEMANTIC, dev.engram.avro.FactCategory.CONSTRAINT,
                UNNAMED, "?", "Medication: ?", "", false, FactRules.IMPORTANCE_SAFETY, FactRules.EXPLICIT,
                dev.engram.avro.MemorySource.EXPLICIT), amount));
        }
        return SafetyRules.medicationFact(drug).stream().map(f -> withDose(f, amount)).toList();
    }

    /**
     * @param facts facts a medication rule stated
     * @param said the words it matched (and those right after them)
     * @return the medication facts worded with the first dose said in them ("Takes amlodipine 5 mg (medication)"),
     *     the others as they were
     */
    static List<Fact> withDose(final List<Fact> facts, final String said) {
        final Matcher amount = AMOUNT_IN.matcher(said);
        if (!amount.find()) {
            return facts;
        }
        return facts.stream().map(f -> f.key().startsWith("medication:") && !f.negated() ? withDose(f, amount.group()) : f)
            .toList();
    }

    private static Fact withDose(final Fact fact, final String amount) {
        final Matcher a = AMOUNT_IN.matcher(amount);
        final String dose = a.find() ? a.group(1).replace(',', '.') + " " + unit(a.group(2)) : amount.strip();
        final String content = String.format(Locale.ROOT, SafetyRules.Slot.MEDICATION.english, fact.value() + " " + dose);
        return new Fact(fact.type(), fact.category(), fact.key(), fact.value(), fact.displayName(), content, false,
            fact.importance(), fact.confidence(), fact.source(), fact.partial());
    }

    private static String unit(final String said) {
        final String u = said.toLowerCase(Locale.ROOT);
        return u.startsWith("milli") ? "mg" : u.startsWith("micro") || u.equals("µg") ? "mcg" : u.equals("iu") ? "IU" : u;
    }

    /**
     * Names the drug of a dose said without it: the drug last named in the conversation before it, else the user's only
     * medication in the profile. Unresolved, the fact is dropped (the sentence then stays in the turn's episode).
     *
     * @param fact a fact of the rules
     * @param known the medications known, the most recent last ({@code medication:<drug>} keys' values)
     * @return the fact itself when it is not {@link #UNNAMED}; the dose of the known drug; null when none is known
     */
    static Fact resolve(final Fact fact, final List<String> known) {
        if (!UNNAMED.equals(fact.key())) {
            return fact;
        }
        if (known.isEmpty()) {
            return null;
        }
        final String drug = known.get(known.size() - 1);
        final String dose = fact.content().substring("Takes ? ".length(), fact.content().indexOf(" (medication)"));
        return SafetyRules.medicationFact(drug).stream().findFirst().map(f -> withDose(f, dose)).orElse(null);
    }
}
