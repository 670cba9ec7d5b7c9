package dev.engram.ops;

import java.io.PrintStream;
import java.util.concurrent.Callable;

import dev.engram.config.EngramConfig;
import dev.engram.streams.PipelineConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/engram reembed --model NAME [--no-switch] | --drop NAME | --list}: see {@link Reembed}.
 * Exit code 0 on success, 1 on failure, 2 on bad usage.
 */
@Command(name = "reembed", mixinStandardHelpOptions = true,
    description = "Re-embed every memory with another model into a side-by-side topic, switch when complete; drop an old model's topic.")
public final class ReembedCommand implements Callable<Integer> {

    @Mixin
    OpsOptions options = new OpsOptions();

    @Option(names = "--model", paramLabel = "NAME", description = "The new embedding model.")
    String model;

    @Option(names = "--no-switch", description = "Build the new model's topic but keep the active model.")
    boolean noSwitch;

    @Option(names = "--drop", paramLabel = "NAME", description = "Delete this model's topic (refused while it is active).")
    String drop;

    @Option(names = "--list", description = "List the available models and the active one.")
    boolean list;

    @Option(names = "--apply-timeout", paramLabel = "DURATION", defaultValue = "PT10M",
        description = "How long the switch waits for the extractor and the consolidator to catch up (default: ${DEFAULT-VALUE}).")
    java.time.Duration applyTimeout;

    private final PrintStream out;

    /** Prints to standard output. */
    public ReembedCommand() {
        this(System.out);
    }

    /** @param out where progress goes */
    public ReembedCommand(final PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws InterruptedException {
        try {
            if (list || drop != null) {
                options.reachable("nothing was read or changed");
            }
            if (list) {
                out.println("available: " + Embedders.available().keySet());
                out.println("active: " + Reembed.active(options.client()).orElse("(none switched; memories keep their own)"));
                return 0;
            }
            if (drop != null) {
                Reembed.drop(options.client(), drop, options.load(), out);
                out.println("Dropped " + Reembed.topicFor(drop));
                return 0;
            }
            if (model == null) {
                System.err.println("reembed needs --model NAME, --drop NAME or --list");
                return 2;
            }
            final var embedder = Embedders.named(model);
            final EngramConfig config = options.reachable("nothing was re-embedded");
            final Reembed.Report report = Reembed.run(options.client(), embedder,
                config.getInt(PipelineConfig.NUM_PARTITIONS), !noSwitch, out, config, applyTimeout);
            return report.written() == report.memories() && (noSwitch || report.caughtUp()) ? 0 : 1;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        } catch (IllegalStateException e) {
            System.err.println("engram reembed: failed: " + e.getMessage());
            return 1;
        }
    }
}
