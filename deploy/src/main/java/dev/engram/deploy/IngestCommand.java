package dev.engram.deploy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.stack.ConversationSources;
import dev.engram.stack.Ingest;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bin/engram ingest --bootstrap-servers HOST:PORT FILE}: publishes the conversations of a
 * LoCoMo JSON or JSON Lines file to {@code conversations-completed} of a running cluster
 * ({@link Ingest}), then reports how many were sent and every problem of the input by line.
 *
 * <p>Every line is read whatever the lines before it held. The size limit is
 * {@code input.max.record.bytes} (from {@code ENGRAM_INPUT_MAX_RECORD_BYTES}, default 4 MiB), lowered to
 * what the topic's {@code max.message.bytes} allows when the cluster's topic was created smaller.
 *
 * <p>Before anything is read, the cluster must answer within {@code --connect-timeout} seconds (default
 * 10); otherwise one line names the address and the timeout, and the exit code is 1.
 *
 * <p>Values are written in the pipeline's {@code serde.format} ({@code ENGRAM_SERDE_FORMAT=registry} with
 * {@code ENGRAM_SCHEMA_REGISTRY_URL}: the registry's wire format) and compressed with
 * {@code ingest.compression.type} (gzip by default).
 *
 * <p>While it runs, a line on stderr every {@code --progress-seconds} (default 5) gives the records published and the
 * lines refused so far, and the rate; an interrupted run (SIGINT, SIGTERM) flushes the producer and prints the same
 * counts with the input line of the last record published ({@link IngestProgress}), then exits 130 or 143.
 *
 * <p>Exit code 0 when every record was published and acknowledged, 1 when some failed to send, 2 when
 * some lines were refused (they are listed with their line numbers; nothing is silently dropped) or the
 * file is in none of the formats (a JSON array of something else: the message names the formats read).
 */
@Command(name = "ingest", mixinStandardHelpOptions = true,
    description = "Publish conversations (JSON Lines or a JSON array of ConversationCompleted, LoCoMo JSON, MemoryBank) to a running cluster.")
public final class IngestCommand implements Callable<Integer> {

    /** Room kept below a topic's max.message.bytes for the batch header, the key and dead-letter headers. */
    static final int TOPIC_HEADROOM_BYTES = 16 * 1024;

    @Option(names = "--bootstrap-servers", required = true, paramLabel = "HOST:PORT[,HOST:PORT…]",
        description = "Kafka bootstrap servers.")
    String bootstrapServers;

    @Option(names = "--connect-timeout", defaultValue = "10", paramLabel = "SECONDS",
        converter = dev.engram.ops.OptionValues.Seconds.class,
        description = "Seconds to wait for the cluster to answer before giving up, nothing published (default: ${DEFAULT-VALUE}).")
    int connectTimeoutSeconds;

    @Option(names = "--progress-seconds", defaultValue = "5", paramLabel = "SECONDS",
        converter = dev.engram.ops.OptionValues.Seconds.class,
        description = "Seconds between two progress lines on stderr: records published, lines refused, rate (default: ${DEFAULT-VALUE}).")
    int progressSeconds;

    @Parameters(index = "0", paramLabel = "FILE", description = "The input file (resolved against the working directory).")
    Path file;

    @Override
    public Integer call() throws Exception {
        final Path input = dev.engram.stack.InputFile.readable(file, "the input file");
        final EngramConfig config = EngramConfig.load(null, System.getenv(), Map.of());
        final Map.Entry<Integer, String> limit;
        try (Admin admin = reachable()) {
            limit = limit(admin, config);
        }
        final ConversationSources.Report report;
        final long acknowledged;
        final long failed;
        final List<String> errors;
        try (Ingest ingest = Ingest.of(bootstrapServers, config, limit.getKey(), limit.getValue());
             IngestProgress progress = new IngestProgress(ingest, System.err, progressSeconds)) {
            // SIGINT, SIGTERM: the JVM runs this, then exits 130 or 143; what was published is said, not lost in silence
            final Thread hook = new Thread(progress::interrupted, "engram-ingest-interrupted");
            Runtime.getRuntime().addShutdownHook(hook);
            ConversationSources.Report read = null;
            boolean completed = false;
            try {
                read = ingest.publish(input, null);
                ingest.flush();
            } catch (ConversationSources.UnknownFormat e) {
                System.err.println(e.getMessage() + "; nothing was published");
            } finally {
                completed = progress.finish();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs (or ran): it reported, or finds the run completed
                }
            }
            if (!completed) {
                return 1; // interrupted: the hook printed what was published; the JVM exits 130 or 143
            }
            if (read == null) {
                return 2;
            }
            report = read;
            acknowledged = ingest.acknowledged();
            failed = ingest.failed();
            errors = ingest.errors();
        }
        System.out.printf("Read %s as %s: %d records published (%d acknowledged, %d failed), %d valid, %d lines refused, "
                + "%d invalid characters replaced%n",
            input, report.format(), report.records(), acknowledged, failed, report.valid(), report.rejected(),
            report.replaced());
        report.problems().forEach(p -> System.out.println("  " + p));
        errors.forEach(e -> System.err.println("send failed: " + e));
        if (failed > 0) {
            return 1;
        }
        return report.rejected() > 0 ? 2 : 0;
    }

    /**
     * Checks, before anything is read or produced, that the cluster answers within
     * {@code --connect-timeout} ({@link dev.engram.stack.ReachableCluster}); an unreachable or unresolvable
     * address fails here in that time, instead of after the producer's own timeouts (about 2 minutes).
     *
     * @return an admin client of the reachable cluster (the caller closes it)
     */
    private Admin reachable() throws InterruptedException {
        return dev.engram.stack.ReachableCluster.admin(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers),
            connectTimeoutSeconds, "--connect-timeout", "nothing was published");
    }

    /** @return the record size limit and its name: the setting, or the topic's limit when that is smaller */
    private Map.Entry<Integer, String> limit(final Admin admin, final EngramConfig config) {
        final int configured = config.getInt(CoreConfig.MAX_RECORD_BYTES);
        final ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, Topic.CONVERSATIONS_COMPLETED.name());
        try {
            final Config described = admin.describeConfigs(Set.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic);
            final int topicMax = Integer.parseInt(described.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG).value());
            if (topicMax - TOPIC_HEADROOM_BYTES < configured) {
                return Map.entry(Math.max(0, topicMax - TOPIC_HEADROOM_BYTES), "the max.message.bytes of topic "
                    + Topic.CONVERSATIONS_COMPLETED.name() + " (" + topicMax + ") less " + TOPIC_HEADROOM_BYTES + " bytes of headroom");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // no topic yet (or no rights to read its config): the setting alone; the send reports what follows
        }
        return Map.entry(configured, CoreConfig.MAX_RECORD_BYTES);
    }
}
