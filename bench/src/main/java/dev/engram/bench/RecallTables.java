package dev.engram.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The recall tables {@code bench quality} prints: one row per system (recall@k, recall within token
 * budgets, mean source turns and tokens at k, evidence reachable), overall and per question category.
 */
final class RecallTables {

    private RecallTables() {
    }

    /**
     * Prints the overall table and one table per category.
     *
     * @param out where to print
     * @param figures system name → {@link RecallEvaluation#figures()}, plus an optional {@code llm} block
     *     printed as key/value lines
     * @param title the overall table's title
     * @param categoryNames category → a label printed after its number (may be empty)
     */
    static void print(final PrintStream out, final Map<String, Object> figures, final String title,
                      final Map<String, String> categoryNames) {
        final List<List<String>> rows = new ArrayList<>();
        final List<String> header = new ArrayList<>(List.of("system"));
        RecallEvaluation.KS.forEach(k -> header.add("R@" + k));
        RecallEvaluation.BUDGETS.forEach(b -> header.add("R@" + b + "tok"));
        RecallEvaluation.KS.forEach(k -> header.add("turns@" + k));
        RecallEvaluation.KS.forEach(k -> header.add("tok@" + k));
        header.add("reachable");
        rows.add(header);
        // the systems' blocks: every entry with per-category figures (not the "llm" or calibration blocks)
        final Map<String, Object> systems = new java.util.LinkedHashMap<>();
        figures.forEach((system, value) -> {
            if (value instanceof Map<?, ?> block && block.get("byCategory") instanceof Map<?, ?>) {
                systems.put(system, value);
            }
        });
        systems.forEach((system, value) -> rows.add(row(system, value)));
        out.println();
        out.println(title + " (R@k: top k results; R@Ntok: within N tokens):");
        BenchReport.table(out, rows);
        final Set<String> categories = new TreeSet<>();
        systems.values().forEach(v -> categories.addAll(((Map<String, ?>) ((Map<?, ?>) v).get("byCategory")).keySet()));
        for (final String category : categories) {
            final List<List<String>> byCat = new ArrayList<>();
            byCat.add(header);
            systems.forEach((system, value) -> {
                final Object c = ((Map<?, ?>) ((Map<?, ?>) value).get("byCategory")).get(category);
                if (c != null) {
                    byCat.add(row(system, c));
                }
            });
            out.println();
            out.println("Category " + category + (categoryNames.containsKey(category) ? " (" + categoryNames.get(category) + ")" : "") + ":");
            BenchReport.table(out, byCat);
        }
        if (figures.get("llm") instanceof Map<?, ?> llmBlock) {
            out.println();
            out.println("LLM path (" + llmBlock.get("stores") + "):");
            llmBlock.forEach((k, v) -> out.printf("  %-34s %s%n", k, v));
        }
    }

    private static List<String> row(final String system, final Object value) {
        final Map<?, ?> f = (Map<?, ?>) value;
        final List<String> row = new ArrayList<>(List.of(system + " (n=" + f.get("questions") + ")"));
        RecallEvaluation.KS.forEach(k -> row.add(BenchReport.num(((Number) f.get("recall@" + k)).doubleValue(), 3)));
        final Map<?, ?> budgets = (Map<?, ?>) f.get("recallAtTokens");
        RecallEvaluation.BUDGETS.forEach(b -> row.add(BenchReport.num(((Number) budgets.get(String.valueOf(b))).doubleValue(), 3)));
        final Map<?, ?> turns = (Map<?, ?>) f.get("meanSourceTurnsAtK");
        RecallEvaluation.KS.forEach(k -> row.add(BenchReport.num(((Number) turns.get(String.valueOf(k))).doubleValue(), 1)));
        final Map<?, ?> tokens = (Map<?, ?>) f.get("meanTokensAtK");
        RecallEvaluation.KS.forEach(k -> row.add(BenchReport.num(((Number) tokens.get(String.valueOf(k))).doubleValue(), 0)));
        row.add(BenchReport.num(((Number) f.get("evidenceReachable")).doubleValue(), 3));
        return row;
    }
}
