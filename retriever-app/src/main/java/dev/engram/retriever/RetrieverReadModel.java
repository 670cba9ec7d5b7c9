package dev.engram.retriever;

import java.time.Duration;

import dev.engram.config.EngramConfig;
import dev.engram.runtime.AppMetrics;
import dev.engram.runtime.StreamsApp;
import dev.engram.runtime.StreamsRunner;
import dev.engram.scoring.SearchIndexes;
import dev.engram.topics.AppIds;
import dev.engram.topology.RetrievalTopology;
import dev.engram.topology.RetryingVectorIndex;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The retriever's read model alone: its Kafka Streams topology ({@link RetrievalTopology}: {@code memory-updated} and
 * {@code memory-access} folded into the retriever's stores and their changelogs, as {@link RetrieverApp} runs it),
 * without what serves requests: no HTTP API, no access, command, audit or tenant-settings clients, no query embedder and
 * no followers of their topics, and no search structures ({@link SearchIndexes#none()}: the processor then reads a
 * memory's previous state from its store, which holds the same memories). It is what {@code bin/engram rebuild} runs to
 * rebuild a retriever's state, which it reads through interactive queries; starting the whole app there took a second
 * of a loaded rebuild before Streams was even created (HTTP server and routes, four producers, three topic followers
 * waited for), and indexing every memory's text a third of the replay's stream-thread time.
 * {@code application.server} is {@code retriever.http.host:retriever.http.port} as configured (nothing listens there).
 */
public final class RetrieverReadModel implements AutoCloseable {

    private final PrometheusMeterRegistry registry;
    private final StreamsRunner runner;

    private RetrieverReadModel(final PrometheusMeterRegistry registry, final StreamsRunner runner) {
        this.registry = registry;
        this.runner = runner;
    }

    /**
     * Checks the config as {@link RetrieverApp} does and starts the read model's Streams client.
     *
     * @param config the retriever's config
     * @return the running read model (Streams starting, not yet RUNNING)
     * @throws org.apache.kafka.common.config.ConfigException as {@link StreamsApp#checkConfig(EngramConfig, String, java.util.List)}
     */
    public static RetrieverReadModel start(final EngramConfig config) {
        StreamsApp.checkConfig(config, "retriever", RetrieverApp.CONFIG_GROUPS);
        final PrometheusMeterRegistry registry = AppMetrics.registry(AppIds.RETRIEVER);
        try {
            final StreamsRunner runner = new StreamsRunner(RetrievalTopology.build(config, SearchIndexes.none()),
                RetrievalTopology.config(config), "retriever", registry, RetryingVectorIndex::isIndexOutage);
            runner.start();
            return new RetrieverReadModel(registry, runner);
        } catch (RuntimeException e) {
            registry.close();
            throw e;
        }
    }

    /** @return the Streams runner (state, interactive queries) */
    public StreamsRunner runner() {
        return runner;
    }

    /** Stops Streams (30 s bound), then the registry. */
    @Override
    public void close() {
        try {
            runner.close(Duration.ofSeconds(30));
        } finally {
            registry.close();
        }
    }
}
