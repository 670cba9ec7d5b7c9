package dev.engram.ops;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;

import dev.engram.config.EngramConfig;

/** The summary {@code bin/engram rebuild} prints at the end of a {@link Rebuild}. */
final class RebuildSummary {

    private RebuildSummary() {
    }

    /**
     * Prints what a rebuild did: records re-processed per app, updates written, wall time by phase, the states before
     * and after and their differences, and how to restart the app's instances.
     *
     * @param out where to print
     * @param report the rebuild's report
     * @param app the app rebuilt (the consolidator for {@code --with-retriever})
     * @param config the deployment's configuration (the app's application.id)
     * @param workDir where the snapshots were written
     */
    static void print(final PrintStream out, final Rebuild.Report report, final Rebuild.App app, final EngramConfig config,
                      final Path workDir) {
        out.println();
        out.printf(Locale.ROOT, "Rebuild of %s finished in %.1f s.%n", app.applicationId(config), report.seconds());
        report.processed().forEach((a, n) -> out.printf(Locale.ROOT, "  %s: %,d input records re-processed in %.1f s%n",
            a.applicationId(config), n, report.reprocessSeconds().getOrDefault(a, 0.0)));
        if (report.processed().containsKey(Rebuild.App.CONSOLIDATOR)) {
            out.printf(Locale.ROOT, "  observation texts: %,d vectors reused, %,d embedded%n",
                report.observationVectorsReused(), report.observationTextsEmbedded());
        }
        out.printf(Locale.ROOT, "  memory-updated records written: %,d%n", report.updatesWritten());
        final StringBuilder where = new StringBuilder();
        report.phaseSeconds().forEach((phase, seconds) -> where.append(where.length() == 0 ? "" : ", ")
            .append(String.format(Locale.ROOT, "%s %.1f", phase, seconds)));
        out.println("  wall time by phase (s): " + where);
        out.println("  before: " + report.before().summary());
        out.println("  after:  " + report.after().summary());
        MemorySnapshot.printDiff(out, report.differences());
        out.println("  snapshots: " + workDir.resolve("before.json") + ", " + workDir.resolve("after.json"));
        out.println("Restart the app's instances with an empty state directory (KafkaStreams#cleanUp, or delete "
            + "<state.dir>/" + app.applicationId(config) + ") before they rejoin.");
    }
}
