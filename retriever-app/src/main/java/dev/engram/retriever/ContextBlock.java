package dev.engram.retriever;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryType;
import dev.engram.scoring.ScoredMemory;

/**
 * Builds the prompt block of {@code GET .../context}: the best memories for the message, grouped by
 * type and category, within a token budget.
 *
 * <p>Layout (Markdown-ish, one memory per line, sections in a fixed order, lines within a section in
 * score order):
 * <pre>
 * Known facts about the user:
 * ## TECHNICAL
 * - Uses Kotlin for backend work
 * How the user wants to be served:
 * - Prefers short answers
 * Relevant past conversations:
 * - [2025-04-01] Asked about the gym locker
 * </pre>
 * Tokens are estimated as ceil(characters / 4), the usual rule of thumb for English text with
 * BPE tokenizers (OpenAI's tokenizer guide: "one token ≈ 4 characters"); no tokenizer is loaded, so
 * the estimate is model-independent and may be off by ~20% for code or non-English text. Memories are
 * added greedily in score order; one that does not fit (with its heading, if new) is skipped and
 * smaller later ones may still fit.
 */
public final class ContextBlock {

    private static final String FACTS = "Known facts about the user:";
    private static final String PROCEDURES = "How the user wants to be served:";
    private static final String EPISODES = "Relevant past conversations:";

    /**
     * The result.
     *
     * @param text the block (empty when nothing fits)
     * @param estimatedTokens its estimated tokens
     * @param included the memories in it, score order
     */
    public record Result(String text, int estimatedTokens, List<String> included) {
    }

    private ContextBlock() {
    }

    /**
     * @param text any text
     * @return ceil(chars / 4)
     */
    public static int estimateTokens(final String text) {
        return (text.length() + 3) / 4;
    }

    /**
     * @param hits scored memories, best first
     * @param budgetTokens the budget, ≥ 1
     * @return the block within the budget
     */
    public static Result build(final List<ScoredMemory> hits, final int budgetTokens) {
        // section heading -> (sub-heading or "" -> lines)
        final Map<String, Map<String, List<String>>> sections = new LinkedHashMap<>();
        sections.put(FACTS, new LinkedHashMap<>());
        sections.put(PROCEDURES, new LinkedHashMap<>());
        sections.put(EPISODES, new LinkedHashMap<>());
        final List<String> included = new ArrayList<>();
        String rendered = "";
        for (final ScoredMemory hit : hits) {
            final Memory m = hit.memory();
            final String section = section(m);
            final String sub = m.getType() == MemoryType.SEMANTIC
                ? "## " + (m.getCategory() == null ? "OTHER" : m.getCategory().name()) : "";
            final List<String> lines = sections.get(section).computeIfAbsent(sub, s -> new ArrayList<>());
            lines.add(line(m));
            final String attempt = render(sections);
            if (estimateTokens(attempt) <= budgetTokens) {
                rendered = attempt;
                included.add(m.getMemoryId());
            } else {
                lines.remove(lines.size() - 1);
                if (lines.isEmpty()) {
                    sections.get(section).remove(sub);
                }
            }
        }
        return new Result(rendered, estimateTokens(rendered), included);
    }

    private static String section(final Memory m) {
        return switch (m.getType()) {
            case SEMANTIC -> FACTS;
            case PROCEDURAL -> PROCEDURES;
            case EPISODIC -> EPISODES;
        };
    }

    private static String line(final Memory m) {
        final String content = m.getContent().strip().replace('\n', ' ');
        if (m.getType() == MemoryType.EPISODIC) {
            return "- [" + m.getValidFrom().toString().substring(0, 10) + "] " + content;
        }
        return "- " + content;
    }

    private static String render(final Map<String, Map<String, List<String>>> sections) {
        final StringBuilder out = new StringBuilder();
        sections.forEach((heading, subs) -> {
            if (subs.isEmpty()) {
                return;
            }
            out.append(heading).append('\n');
            subs.forEach((sub, lines) -> {
                if (!sub.isEmpty()) {
                    out.append(sub).append('\n');
                }
                lines.forEach(l -> out.append(l).append('\n'));
            });
        });
        return out.toString();
    }
}
