package dev.engram.ops;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.config.KafkaConnection;
import dev.engram.stack.ReachableCluster;
import dev.engram.streams.PipelineConfig;
import picocli.CommandLine.Option;

/** Options shared by the ops commands: the cluster and the config file. */
final class OpsOptions {

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT",
        description = "Kafka bootstrap servers (default: kafka.bootstrap.servers of the config, localhost:9092).")
    String bootstrapServers;

    @Option(names = "--config", paramLabel = "FILE",
        description = "Properties file (keys as in docs/configuration.md); ENGRAM_* environment variables override it.")
    Path config;

    @Option(names = "--state-dir", paramLabel = "DIR",
        description = "Streams state directory of the apps this command runs (default: state.dir of the config).")
    Path stateDir;

    @Option(names = "--connect-timeout", defaultValue = "15", paramLabel = "SECONDS",
        converter = OptionValues.Seconds.class,
        description = "Seconds to wait for the cluster to answer before giving up, nothing done "
            + "(default: ${DEFAULT-VALUE}).")
    int connectTimeoutSeconds = 15;

    /**
     * {@link #load()}, once the cluster has answered within {@code --connect-timeout}
     * ({@link ReachableCluster}): an unreachable cluster is one line naming the bootstrap servers, not a minute or
     * more of the clients' own timeouts.
     *
     * @param consequence what was not done, e.g. {@code nothing was checked}
     * @return the config
     * @throws IllegalStateException naming the bootstrap servers when the cluster does not answer in time
     * @throws InterruptedException if interrupted while waiting
     */
    EngramConfig reachable(final String consequence) throws InterruptedException {
        final EngramConfig config = load();
        ReachableCluster.admin(KafkaConnection.of(config.kafkaProperties()), connectTimeoutSeconds, "--connect-timeout",
            consequence).close();
        return config;
    }

    /** @return the config: defaults, file, environment, then these options; HTTP ports free (0) */
    EngramConfig load() {
        final Map<String, Object> overrides = new HashMap<>();
        if (bootstrapServers != null) {
            overrides.put(CoreConfig.BOOTSTRAP_SERVERS, bootstrapServers);
        }
        if (stateDir != null) {
            overrides.put(PipelineConfig.STATE_DIR, stateDir.toAbsolutePath().toString());
        }
        overrides.put(PipelineConfig.EXTRACTOR_HTTP_PORT, 0);
        overrides.put(PipelineConfig.CONSOLIDATOR_HTTP_PORT, 0);
        overrides.put(PipelineConfig.RETRIEVER_HTTP_PORT, 0);
        return EngramConfig.load(config == null ? null : config.toAbsolutePath(), System.getenv(), overrides);
    }

    /** @return consumer/admin properties for the cluster */
    Map<String, Object> client() {
        return Map.of("bootstrap.servers", load().getString(CoreConfig.BOOTSTRAP_SERVERS));
    }
}
