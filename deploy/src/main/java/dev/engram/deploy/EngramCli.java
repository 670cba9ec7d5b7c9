package dev.engram.deploy;

import dev.engram.bench.BenchCommand;
import dev.engram.retriever.RetrieverApp;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code bin/engram} command line (picocli): {@code demo}, {@code ingest}, and one command per
 * app ({@code extractor}, {@code consolidator}, {@code retriever}), and {@code bench} (benchmarks). Paths given by the user are
 * resolved against the caller's working directory; {@code bin/engram} does not change it.
 */
@Command(name = "engram", mixinStandardHelpOptions = true, version = "Engram 0.1.0-SNAPSHOT",
    description = "Kafka-native long-term memory for chatbots.",
    subcommands = {DemoCommand.class, IngestCommand.class, AppCommands.Extractor.class,
        AppCommands.Consolidator.class, RetrieverApp.class, BenchCommand.class})
public final class EngramCli implements Runnable {

    @Spec
    CommandSpec spec;

    /** Without a subcommand: print the usage. */
    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /**
     * @param args the command line
     */
    public static void main(final String[] args) {
        System.exit(new CommandLine(new EngramCli()).execute(args));
    }
}
