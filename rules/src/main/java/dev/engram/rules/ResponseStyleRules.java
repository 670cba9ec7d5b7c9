package dev.engram.rules;

import static dev.engram.rules.FactPatterns.ADVS;
import static dev.engram.rules.FactRules.EXPLICIT;
import static dev.engram.rules.FactRules.IMPORTANCE_RESPONSE_STYLE;
import static dev.engram.rules.FactRules.rule;

import java.util.List;
import java.util.Locale;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;

/**
 * How the user wants to be served ("I prefer short answers", "answer in bullet points", "keep it
 * brief"): one PROCEDURAL fact, key {@code response_style}, tried before every other rule so a liking
 * rule cannot read "short answers" as a thing liked.
 */
final class ResponseStyleRules {

    private static final String STYLE = "(short|shorter|brief|concise|succinct|detailed|long|longer|in-depth|thorough"
        + "|step-by-step)";

    private static final String FORMAT = "(bullet\\s+points|bullets|bulleted\\s+lists?|a\\s+list|lists|markdown|tables?"
        + "|plain\\s+text|short\\s+sentences|one\\s+paragraph)";

    /** How the user wants answers: length, format, "keep it short". */
    static final List<Rule> RULES = List.of(
        rule("response-style-length", "\\bi\\s+" + ADVS + "(?:prefer|like|want|need|appreciate)\\s+" + STYLE
            + "\\s+(?:answers|responses|replies|explanations)", (m, s) -> responseStyle(m.group(1))),
        rule("response-style-format", "\\b(?:please\\s+)?" + ADVS + "(?:answer|respond|reply|write|format\\s+(?:your\\s+)?"
            + "(?:answers|responses))\\s+(?:to\\s+me\\s+|me\\s+)?(?:in|with|using|as)\\s+" + FORMAT,
            (m, s) -> responseStyle(m.group(1))),
        rule("response-style-prefer-format", "\\bi\\s+" + ADVS + "(?:prefer|like|want)\\s+(?:answers|responses|replies)"
            + "\\s+(?:in|as|with)\\s+" + FORMAT, (m, s) -> responseStyle(m.group(1))),
        rule("response-style-keep", "\\bkeep\\s+(?:it|your\\s+answers|answers|responses|replies|things)\\s+"
            + "(short|brief|concise|simple)", (m, s) -> responseStyle(m.group(1))));

    private ResponseStyleRules() {
    }

    private static List<Fact> responseStyle(final String raw) {
        final String style = raw.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        final String value;
        final String content;
        switch (style) {
            case "short", "shorter", "brief", "concise", "succinct", "simple" -> {
                value = "concise";
                content = "Prefers concise answers";
            }
            case "detailed", "long", "longer", "in-depth", "thorough" -> {
                value = "detailed";
                content = "Prefers detailed answers";
            }
            case "step-by-step" -> {
                value = "step-by-step";
                content = "Prefers step-by-step answers";
            }
            case "bullet points", "bullets", "bulleted list", "bulleted lists", "a list", "lists" -> {
                value = "bullet points";
                content = "Prefers answers in bullet points";
            }
            default -> {
                value = style;
                content = "Prefers answers in " + style;
            }
        }
        return List.of(new Fact(MemoryType.PROCEDURAL, FactCategory.PREFERENCE, "response_style", value,
            "Response style", content, false, IMPORTANCE_RESPONSE_STYLE, EXPLICIT, MemorySource.EXPLICIT));
    }
}
