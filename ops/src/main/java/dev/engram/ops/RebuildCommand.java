package dev.engram.ops;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bin/engram rebuild [--app consolidator|retriever|extractor] [--from-timestamp T] [--re-extract]
 * [--with-retriever]}:
 * see {@link Rebuild}. Exit code 0 when the state after equals the state before, 1 when they differ or
 * the rebuild failed, 2 on bad usage.
 */
@Command(name = "rebuild", mixinStandardHelpOptions = true,
    description = "Reset an app (Kafka's StreamsResetter + local state), re-process its input, report counts and verify against the state before. Stop the app's instances first.")
public final class RebuildCommand implements Callable<Integer> {

    @Mixin
    OpsOptions options = new OpsOptions();

    @Spec
    CommandSpec spec;

    @Option(names = "--app", paramLabel = "APP", defaultValue = "consolidator",
        description = "consolidator (default), retriever or extractor.")
    String app;

    @Option(names = "--from-timestamp", paramLabel = "ISO-8601", converter = OptionValues.IsoInstant.class,
        description = "With --re-extract: re-extract conversations from this time on (e.g. 2026-01-01T00:00:00Z).")
    Instant fromTimestamp;

    @Option(names = "--re-extract", description = "Also reset and re-run the extractor (LLM cost with an LLM extractor).")
    boolean reExtract;

    @Option(names = "--with-retriever", description = "With --app consolidator: also reset and re-run the retriever, at "
        + "once (it re-reads memory-updated as the consolidator rewrites it); both verified. Stop its instances too.")
    boolean withRetriever;

    @Option(names = "--force", description = "Remove members left in the app's group by instances already stopped "
        + "(as kafka-streams-application-reset --force) instead of waiting for their session timeout. Never while one runs.")
    boolean force;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "Where before.json and after.json go (default: run/rebuild-<time>).")
    Path workDir;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "PT30M", converter = OptionValues.IsoDuration.class,
        description = "How long re-processing may take (ISO-8601 duration, default PT30M).")
    Duration timeout;

    private final PrintStream out;

    /** Prints to standard output. */
    public RebuildCommand() {
        this(System.out);
    }

    /** @param out where progress and the report go */
    public RebuildCommand(final PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws InterruptedException {
        final Rebuild.App which;
        try {
            which = Rebuild.App.valueOf(app.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw OptionValues.invalid(spec, "--app", app, "consolidator, retriever, extractor");
        }
        final Path dir = workDir != null ? workDir.toAbsolutePath()
            : Path.of("run", "rebuild-" + System.currentTimeMillis()).toAbsolutePath();
        try {
            // usage first (exit 2), then whether the cluster answers
            final Rebuild rebuild = new Rebuild(options.load(), which, fromTimestamp, reExtract, withRetriever, force, dir,
                timeout, out);
            options.reachable("nothing was reset");
            final Rebuild.Report report = rebuild.run();
            return report.differences().isEmpty() ? 0 : 1;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        } catch (IllegalStateException e) {
            System.err.println("engram rebuild: failed: " + e.getMessage());
            return 1;
        }
    }
}
