package dev.engram.deploy;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.engram.stack.ConversationSources;
import dev.engram.stack.Ingest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bin/engram ingest --bootstrap-servers HOST:PORT FILE}: publishes the conversations of a
 * LoCoMo JSON or JSON Lines file to {@code conversations-completed} of a running cluster
 * ({@link Ingest}), then reports how many were sent and every problem of the input by line.
 *
 * <p>Exit code 0 when every record was acknowledged, 1 when some failed to send, 2 when the file had
 * lines that could not become records (they are listed; nothing is silently dropped).
 */
@Command(name = "ingest", mixinStandardHelpOptions = true,
    description = "Publish conversations (LoCoMo JSON or JSON Lines of ConversationCompleted) to a running cluster.")
public final class IngestCommand implements Callable<Integer> {

    @Option(names = "--bootstrap-servers", required = true, paramLabel = "HOST:PORT[,HOST:PORT…]",
        description = "Kafka bootstrap servers.")
    String bootstrapServers;

    @Parameters(index = "0", paramLabel = "FILE", description = "The input file (resolved against the working directory).")
    Path file;

    @Override
    public Integer call() throws Exception {
        final Path input = file.toAbsolutePath();
        final ConversationSources.Report report;
        final long acknowledged;
        final long failed;
        try (Ingest ingest = new Ingest(bootstrapServers, Map.of())) {
            report = ingest.publish(input, null);
            acknowledged = ingest.acknowledged();
            failed = ingest.failed();
            ingest.errors().forEach(e -> System.err.println("send failed: " + e));
        }
        System.out.printf("Read %s as %s: %d records published (%d acknowledged, %d failed), %d valid, %d lines rejected%n",
            input, report.format(), report.records(), acknowledged, failed, report.valid(), report.rejected());
        report.problems().forEach(p -> System.out.println("  " + p));
        if (failed > 0) {
            return 1;
        }
        return report.rejected() > 0 ? 2 : 0;
    }
}
