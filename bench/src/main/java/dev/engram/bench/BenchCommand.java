package dev.engram.bench;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code bin/engram bench <name> [--json FILE]}: the benchmarks of issue 7. Each subcommand prints a
 * table and, with {@code --json}, writes the same figures as JSON ({@link BenchReport}). To add one,
 * write a {@code Callable<Integer>} command with the {@link JsonOption} mixin and list it here.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Benchmarks: ingest throughput, freshness, retrieval latency, LoCoMo quality, the shared cases, "
        + "LLM extraction throughput, fact extraction precision and recall, consistency of knowledge updates, rebuild speed, "
        + "the offline extractor path's CPU.",
    subcommands = {IngestBenchmark.class, FreshnessBenchmark.class, RetrievalBenchmark.class,
        QualityBenchmark.class, CasesBenchmark.class, ExtractionBenchmark.class, FactsBenchmark.class,
        ConsistencyBenchmark.class, RebuildBenchmark.class, ExtractorPathBenchmark.class})
public final class BenchCommand implements Runnable {

    @Spec
    CommandSpec spec;

    /** Without a benchmark name: print the usage. */
    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
