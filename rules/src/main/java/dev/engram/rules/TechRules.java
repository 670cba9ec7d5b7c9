package dev.engram.rules;

import static dev.engram.rules.FactPatterns.ADVS;
import static dev.engram.rules.FactPatterns.PROPER;
import static dev.engram.rules.FactRules.EXPLICIT;
import static dev.engram.rules.FactRules.IMPORTANCE_CONTEXT;
import static dev.engram.rules.FactRules.IMPORTANCE_LIKES;
import static dev.engram.rules.FactRules.RETRACTION;
import static dev.engram.rules.FactRules.first;
import static dev.engram.rules.FactRules.rule;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;

/**
 * The user's technical setup, resolved through {@link TechVocabulary}: {@code preferred_language},
 * {@code ide}, {@code cloud_provider} and {@code uses:<tool>} (TECHNICAL facts), stated ("I use
 * IntelliJ", "we deploy on GCP", "We track work in Jira", "switched from Java to Kotlin", "we switched to Linear", "I use Obsidian now instead of Notion",
 * "I replaced Notion with Obsidian": the named old tool retracted) or retracted ("I no longer use Jira").
 */
final class TechRules {

    private static final String TOOL = "(" + TechVocabulary.ANY + "|" + PROPER + ")";

    private static final String VOCAB = "(" + TechVocabulary.ANY + ")";

    private static final Pattern STILL = Pattern.compile("(?i)\\bstill\\b");

    /** Work items no place holds: a name after them that the vocabulary does not know is still a tool. */
    private static final Pattern WORK_ITEMS = Pattern.compile("(?i)\\b(?:tasks?|tickets?|issues?|bugs?|sprints?|backlogs?"
        + "|to-?dos?)\\b");

    /** "I no longer use Jira", "we're not using Jenkins". */
    static final List<Rule> RETRACTED = List.of(
        rule("tool-retracted", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+(?:no\\s+longer|don't|do\\s+not|stopped|quit|gave\\s+up)\\s+"
            + "(?:use|using|rely\\s+on|relying\\s+on|work\\s+with|working\\s+with)\\s+" + TOOL
            + "|\\b(?:i'm|i\\s+am|we're|we\\s+are)\\s+(?:no\\s+longer|not)\\s+using\\s+" + TOOL,
            (m, s) -> tech(first(m, 1, 2), true, RETRACTION)));

    /** A language, IDE, cloud or tool the user works with. */
    static final List<Rule> STATED = List.of(
        // a switch said by what it replaced: the old tool is retracted, so it is no longer served as used ("I use
        // Obsidian now instead of Notion", "I replaced Notion with Obsidian", "we swapped Jenkins for GitHub Actions")
        rule("tool-instead", "\\b(?:i|we)(?:'m|'re|\\s+am|\\s+are)?\\s+" + ADVS + "(?:use|using|rely\\s+on|relying\\s+on"
            + "|work\\s+with|working\\s+with)\\s+(?:an?\\s+|my\\s+)?" + TOOL + "(?:\\s+(?:now|these\\s+days|nowadays))?"
            + "(?:\\s+for\\s+(?:my\\s+)?[\\p{L}-]+(?:\\s+[\\p{L}-]+)?)?,?\\s+instead\\s+of\\s+(?:using\\s+)?" + TOOL,
            (m, s) -> switched(m.group(2), m.group(1))),
        rule("tool-replaced", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "(?:replaced|swapped(?:\\s+out)?|traded)\\s+"
            + "(?:my\\s+)?" + TOOL + "\\s+(?:with|for)\\s+" + TOOL, (m, s) -> switched(m.group(1), m.group(2))),
        rule("tech-switched", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "(?:switched|migrated|moved|changed)\\s+(?:over\\s+)?"
            + "(?:from\\s+" + VOCAB + "\\s+)?to\\s+" + VOCAB, (m, s) -> switched(m.group(1), m.group(2))),
        // a tool or vendor the vocabulary does not know, by its capitalized name ("we switched to Linear", "I switched
        // from Jira to Linear"); "moved to" is left to the city rules ("we moved to Porto")
        rule("tool-switched", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "(?:switched|migrated|changed)\\s+(?:over\\s+)?"
            + "(?:from\\s+" + TOOL + "\\s+)?to\\s+(?:using\\s+)?" + TOOL, (m, s) -> FactPatterns.NOT_A_PLACE.contains(
                FactRules.trimValue(m.group(2)).toLowerCase(java.util.Locale.ROOT)) ? List.of() : switched(m.group(1), m.group(2))),
        // "we moved from Jira to Linear": "moved" is a switch only between tools ("we moved from Vienna to Graz" is a
        // move, IdentityRules), one side a known tool
        rule("tool-moved", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "moved\\s+(?:over\\s+)?from\\s+" + TOOL
            + "\\s+to\\s+(?:using\\s+)?" + TOOL, (m, s) -> TechVocabulary.isKnownTool(m.group(1))
                || TechVocabulary.isKnownTool(m.group(2)) ? switched(m.group(1), m.group(2)) : List.of()),
        rule("tech-main", VOCAB + "\\s+is\\s+my\\s+(?:(?:main|primary|favou?rite|go-to|preferred|daily|default|usual)\\s+)?"
            + "(?:programming\\s+language|language|ide|editor|cloud(?:\\s+provider)?)\\b"
            + "|\\bmy\\s+(?:(?:main|primary|favou?rite|go-to|preferred|daily|default|usual)\\s+)?(?:programming\\s+language"
            + "|language|ide|editor|cloud(?:\\s+provider)?)\\s+(?:of\\s+choice\\s+)?is\\s+" + VOCAB,
            (m, s) -> tech(first(m, 1, 2), false, EXPLICIT)),
        rule("tech-write-in", "\\b(?:i|we)\\s+" + ADVS + "(?:write|code|program|develop|build)\\b[^.!?]{0,40}?\\bin\\s+("
            + TechVocabulary.LANGUAGES + ")", (m, s) -> tech(m.group(1), false, EXPLICIT)),
        rule("tech-write", "\\b(?:i|we)\\s+" + ADVS + "(?:write|code)\\s+(" + TechVocabulary.LANGUAGES + ")\\b(?!-)",
            (m, s) -> tech(m.group(1), false, EXPLICIT)),
        // "I prefer Trello" is a liking (LikingRules), not use; a programming language preferred is the preferred_language
        rule("tech-prefer-language", "\\b(?:i|we)\\s+" + ADVS + "prefer\\s+(" + TechVocabulary.LANGUAGES + ")\\b(?![-+#])",
            (m, s) -> tech(m.group(1), false, EXPLICIT)),
        // where the user's work is tracked is a tool they use ("We track work in Jira", "I manage my tasks in Todoist",
        // "we handle bugs on GitHub"), so a later switch from it retracts it; a place is not ("projects in London")
        rule("tool-track", "\\b(?:i|we)(?:'re|\\s+are|'m|\\s+am)?\\s+" + ADVS + "(?:track|tracking|manage|managing|plan"
            + "|planning|organi[sz]e|organi[sz]ing|handle|handling|log|logging|file|filing|keep|keeping|run|running)\\s+"
            + "(?:(?:our|my|all|the|all\\s+(?:our|my))\\s+)?(?:work|tasks?|tickets?|issues?|bugs?|projects?|sprints?"
            + "|backlogs?|to-?dos?|roadmaps?)\\s+(?:in|on|with|using|through|via)\\s+" + TOOL,
            (m, s) -> FactPatterns.NOT_A_PLACE.contains(FactRules.trimValue(m.group(1)).toLowerCase(java.util.Locale.ROOT))
                || !TechVocabulary.isKnownTool(m.group(1)) && !WORK_ITEMS.matcher(m.group()).find() ? List.of()
                : tech(m.group(1), false, EXPLICIT)),
        rule("tech-use", "\\b(?:i|we)(?:'m|'re|\\s+am|\\s+are)?\\s+" + ADVS
            + "(?:use|using|rely\\s+on|relying\\s+on)\\s+(?:an?\\s+|my\\s+)?" + TOOL, (m, s) -> stillOneOf(m.group(), m.group(1))
                ? List.of() : tech(m.group(1), false, EXPLICIT)),
        rule("tech-on", "\\b(?:i'm|i\\s+am|we're|we\\s+are|we've\\s+been|we\\s+have\\s+been)\\s+" + ADVS
            + "(?:all\\s+|fully\\s+)?on\\s+" + VOCAB, (m, s) -> tech(m.group(1), false, EXPLICIT)),
        rule("tech-host-on", "\\b(?:i|we)\\s+" + ADVS + "(?:deploy|host|run)\\s+(?:\\w+\\s+){0,2}?on\\s+" + VOCAB,
            (m, s) -> tech(m.group(1), false, EXPLICIT)));

    private TechRules() {
    }

    /**
     * "I still use vim for quick edits though": "still" with a one-value slot (language, IDE, cloud) keeps an old value
     * beside the current one, it does not switch back, so it states no value of the slot (the sentence stays in the
     * turn's episode) and a newer IDE is not superseded. A tool ({@code uses:<tool>}) is one of many: "I still use
     * Notion" is a plain use.
     */
    private static boolean stillOneOf(final String statement, final String raw) {
        return STILL.matcher(statement).find()
            && TechVocabulary.resolve(raw).map(t -> t.slot() != TechVocabulary.Slot.TOOL).orElse(false);
    }

    private static List<Fact> tech(final String raw, final boolean negated, final double confidence) {
        final Optional<TechVocabulary.Term> term = TechVocabulary.resolve(raw);
        if (term.isEmpty()) {
            return List.of();
        }
        final TechVocabulary.Term t = term.get();
        final String content;
        final String display;
        switch (t.slot()) {
            case LANGUAGE -> {
                content = negated ? "No longer programs in " + t.value() : "Main programming language is " + t.value();
                display = "Preferred language";
            }
            case IDE -> {
                content = negated ? "No longer uses " + t.value() + " as IDE" : "Uses " + t.value() + " as IDE";
                display = "IDE";
            }
            case CLOUD -> {
                content = negated ? "No longer uses " + t.value() + " as cloud provider"
                    : "Uses " + t.value() + " as cloud provider";
                display = "Cloud provider";
            }
            default -> {
                content = negated ? "No longer uses " + t.value() : "Uses " + t.value();
                display = "Tool: " + t.value();
            }
        }
        final double importance = t.slot() == TechVocabulary.Slot.TOOL ? IMPORTANCE_LIKES : IMPORTANCE_CONTEXT;
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.TECHNICAL, t.key(), t.value(), display, content,
            negated, importance, confidence, MemorySource.EXPLICIT));
    }

    static List<Fact> switched(final String from, final String to) {
        final List<Fact> facts = new ArrayList<>(tech(to, false, EXPLICIT));
        if (from != null && !facts.isEmpty()) {
            final List<Fact> old = tech(from, true, RETRACTION);
            if (!old.isEmpty() && !old.get(0).key().equals(facts.get(0).key())) {
                facts.addAll(old);
            }
        }
        return facts;
    }
}
