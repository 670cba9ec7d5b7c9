package dev.engram.runtime;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.engram.config.ConfigCoherence;
import dev.engram.config.EngramConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The running shape every Streams app shares (docs/ARCHITECTURE.md, "Conventions"): a Micrometer registry, a
 * {@link StreamsRunner} and an {@link AppHttpServer} ({@code /health/live}, {@code /health/ready},
 * {@code /metrics}), plus resources of the app's own (thread pools, clients) closed after them.
 * {@link #close()} stops everything in reverse order of start: Streams (30 s bound), HTTP, the
 * app's resources, the registry. Idempotent.
 */
public abstract class StreamsApp implements AutoCloseable {

    private final PrometheusMeterRegistry registry;
    private final StreamsRunner runner;
    private final AppHttpServer http;
    private final List<AutoCloseable> resources;

    /**
     * @param registry the app's registry (closed last)
     * @param runner the started Streams runner
     * @param http the started HTTP server
     * @param resources closed after HTTP, in order; may be empty
     */
    protected StreamsApp(final PrometheusMeterRegistry registry, final StreamsRunner runner, final AppHttpServer http,
                         final List<AutoCloseable> resources) {
        this.registry = registry;
        this.runner = runner;
        this.http = http;
        this.resources = List.copyOf(resources);
    }

    /** @return the Streams runner (state, health, interactive queries) */
    public StreamsRunner runner() {
        return runner;
    }

    /** @return the bound HTTP port */
    public int httpPort() {
        return http.port();
    }

    /**
     * Blocks until the JVM is asked to stop or the Streams client dies, then closes the app.
     *
     * @return the process exit code (0 after a clean shutdown, 1 after an error)
     */
    public int runUntilShutdownAndClose() {
        try (StreamsApp app = this) {
            return app.runner.runUntilShutdown();
        }
    }

    /**
     * Checks the configuration as a whole before an app starts anything ({@link ConfigCoherence}): every
     * app's {@code start} calls it first, so each app and {@code bin/engram demo} refuse or warn alike.
     *
     * @param config the config the app starts with
     * @param app the app's name in the warnings, e.g. {@code consolidator}
     * @return the config
     * @throws org.apache.kafka.common.config.ConfigException naming the keys of every refusal
     */
    public static EngramConfig checkConfig(final EngramConfig config, final String app) {
        return checkConfig(config, app, List.of());
    }

    /**
     * Checks that the configuration groups the app reads are composed ({@link EngramConfig#requireGroups}), then the
     * configuration as a whole ({@link #checkConfig(EngramConfig, String)}).
     *
     * @param config the config the app starts with
     * @param app the app's name, e.g. {@code consolidator}
     * @param groups the groups it reads (its {@code CONFIG_GROUPS})
     * @return the config
     * @throws org.apache.kafka.common.config.ConfigException naming a missing group or the keys of every refusal
     */
    public static EngramConfig checkConfig(final EngramConfig config, final String app, final List<String> groups) {
        EngramConfig.requireGroups(app, groups);
        ConfigCoherence.enforce(config, app);
        return config;
    }

    /**
     * The config of a {@code main}: an optional properties file, then {@code ENGRAM_*} variables.
     *
     * @param args the command-line arguments; the first, if any, is the properties file
     * @return the config
     */
    protected static EngramConfig configFromArgs(final String[] args) {
        final Path file = args.length > 0 ? Path.of(args[0]) : null;
        return EngramConfig.load(file, System.getenv(), Map.of());
    }

    @Override
    public void close() {
        runner.close(Duration.ofSeconds(30));
        http.close();
        RuntimeException failure = null;
        for (final AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("Cannot close " + resource, e);
                }
            }
        }
        registry.close();
        if (failure != null) {
            throw failure;
        }
    }
}
