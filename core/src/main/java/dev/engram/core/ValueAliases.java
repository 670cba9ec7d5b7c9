package dev.engram.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The other names of one tool, product or city: "vscode", "VS Code" and "Visual Studio Code" are one editor, "k8s" is
 * Kubernetes, "Postgres" is PostgreSQL; "NYC" and "New York City" are New York, "SF" and "旧金山" San Francisco
 * ({@link PlaceNames}). Two values of a fact are the same value when their folded forms ({@link MemoryIds#fold}:
 * letter case, accents, Unicode form aside) are equal or name one entry of this table ({@link #fold}), so a restatement
 * in another name reinforces the fact instead of superseding it, whichever extractor read it (the rule-based one
 * already writes its own vocabulary's canonical spelling; a model writes what the user typed).
 *
 * <p>Two small tables: common tool names, each alias unambiguous as a whole value (no "code", "idea", "node" or
 * "teams", which are words, nor two-letter names): editors and IDEs, languages, cloud providers, databases, container
 * tools; and well-known cities ({@link PlaceNames}), whose abbreviations ("SF", "LA", "HK") name a place only as a
 * whole value. A value is looked up whole: "I use vscode daily" as a content is not a value, and a content naming an
 * alias is read by {@link #spellings}.
 */
public final class ValueAliases {

    /** Each entry: its canonical spelling first, then its other names. */
    private static final List<List<String>> TOOLS = List.of(
        List.of("VS Code", "vscode", "vs-code", "Visual Studio Code"),
        List.of("IntelliJ IDEA", "IntelliJ", "IntelliJ IDEA Ultimate", "IntelliJ IDEA Community"),
        List.of("Neovim", "nvim"),
        List.of("Go", "Golang"),
        List.of("JavaScript", "ECMAScript"),
        List.of("Node.js", "nodejs", "node js"),
        List.of("Kubernetes", "k8s"),
        List.of("PostgreSQL", "Postgres"),
        List.of("MongoDB", "Mongo"),
        List.of("AWS", "Amazon Web Services"),
        List.of("GCP", "Google Cloud", "Google Cloud Platform"),
        List.of("Azure", "Microsoft Azure"),
        List.of("Microsoft Teams", "MS Teams"),
        List.of("GitHub Actions", "GH Actions"));
    /** The tools, then the places ({@link PlaceNames}). */
    private static final List<List<String>> ENTRIES =
        java.util.stream.Stream.concat(TOOLS.stream(), PlaceNames.ENTRIES.stream()).toList();

    /** Folded alias → the folded canonical spelling of its entry. */
    private static final Map<String, String> CANONICAL = new HashMap<>();
    /** Folded canonical spelling → every spelling of its entry, as written above. */
    private static final Map<String, List<String>> SPELLINGS = new HashMap<>();

    static {
        for (final List<String> entry : ENTRIES) {
            final String canonical = MemoryIds.fold(entry.get(0));
            entry.forEach(alias -> CANONICAL.put(MemoryIds.fold(alias), canonical));
            SPELLINGS.put(canonical, entry);
        }
    }

    private ValueAliases() {
    }

    /**
     * A value as two values are compared for sameness: {@link MemoryIds#fold}, then the folded canonical spelling of
     * its entry when it is one of the table's names ("Visual Studio Code", "VSCode" and "vs code" all fold to "vs
     * code").
     *
     * @param value a fact's value, or null
     * @return its folded form, never null
     */
    public static String fold(final String value) {
        final String folded = MemoryIds.fold(value);
        return CANONICAL.getOrDefault(folded.replace(" ", ""), CANONICAL.getOrDefault(folded, folded));
    }

    /**
     * @param value a fact's value, or null
     * @return every spelling of the value's entry (the value itself first), or the value alone when it is in no entry
     */
    public static List<String> spellings(final String value) {
        final List<String> out = new ArrayList<>();
        if (value == null) {
            return out;
        }
        out.add(value);
        SPELLINGS.getOrDefault(fold(value), List.of()).stream().filter(s -> !MemoryIds.fold(s).equals(MemoryIds.fold(value)))
            .forEach(out::add);
        return out;
    }
}
