package dev.engram.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * Output helpers shared by the benchmarks: a plain-text table for the terminal and the same figures
 * as pretty-printed JSON (insertion-ordered maps, so the keys come out in the order they were put).
 */
public final class BenchReport {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper LINE = new ObjectMapper();

    private BenchReport() {
    }

    /**
     * Writes the figures as JSON, creating parent directories.
     *
     * @param file target file, or null to do nothing
     * @param figures nested maps, lists, numbers and strings
     * @param out where "written to …" is printed
     * @throws IOException if the file cannot be written
     */
    public static void writeJson(final Path file, final Map<String, ?> figures, final PrintStream out) throws IOException {
        if (file == null) {
            return;
        }
        final Path target = file.toAbsolutePath();
        if (target.getParent() != null) {
            Files.createDirectories(target.getParent());
        }
        JSON.writeValue(target.toFile(), figures);
        out.println("JSON written to " + target);
    }

    /** @return the JSON text of the figures (tests read it back) */
    static String toJson(final Map<String, ?> figures) {
        try {
            return JSON.writeValueAsString(figures);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the figures as one line of JSON (a JSON Lines record) */
    static String toJsonLine(final Map<String, ?> figures) {
        try {
            return LINE.writeValueAsString(figures);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Prints rows as an aligned table; the first row is the header.
     *
     * @param out where to print
     * @param rows rows of cells (already formatted)
     */
    public static void table(final PrintStream out, final List<List<String>> rows) {
        if (rows.isEmpty()) {
            return;
        }
        final List<Integer> widths = new ArrayList<>();
        for (final List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                if (widths.size() <= i) {
                    widths.add(0);
                }
                widths.set(i, Math.max(widths.get(i), row.get(i).length()));
            }
        }
        for (int r = 0; r < rows.size(); r++) {
            final StringBuilder line = new StringBuilder();
            final List<String> row = rows.get(r);
            for (int i = 0; i < row.size(); i++) {
                final String cell = row.get(i);
                final String pad = " ".repeat(widths.get(i) - cell.length());
                // first column left-aligned (labels), the others right-aligned (numbers)
                line.append(i == 0 ? cell + pad : pad + cell).append(i + 1 < row.size() ? "  " : "");
            }
            out.println(line.toString().stripTrailing());
            if (r == 0) {
                out.println("-".repeat(line.toString().stripTrailing().length()));
            }
        }
    }

    /**
     * @param value a number
     * @param decimals decimals
     * @return it formatted with a dot, ROOT locale
     */
    public static String num(final double value, final int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /**
     * @param value a number
     * @param decimals decimals kept in the JSON
     * @return it rounded (so the JSON does not carry 17 noisy digits)
     */
    public static double round(final double value, final int decimals) {
        final double scale = Math.pow(10, decimals);
        return Math.round(value * scale) / scale;
    }
}
