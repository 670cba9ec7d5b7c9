package dev.engram.bench;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code bin/engram bench <name> [--json FILE]}: the benchmarks. Each subcommand prints its figures and,
 * with {@code --json}, writes them as JSON. To add one, write a {@code Callable<Integer>} command and
 * list it here.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Benchmarks: LLM extraction throughput.",
    subcommands = {ExtractionBenchmark.class})
public final class BenchCommand implements Runnable {

    @Spec
    CommandSpec spec;

    /** Without a benchmark name: print the usage. */
    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
