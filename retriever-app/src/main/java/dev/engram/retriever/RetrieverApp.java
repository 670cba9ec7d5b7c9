package dev.engram.retriever;

import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

import dev.engram.core.ExitDrains;
import dev.engram.serde.AvroSerdes;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.qdrant.QdrantVectorIndex;
import dev.engram.qdrant.VectorIndexes;
import dev.engram.embedder.ActiveModelEmbedder;
import dev.engram.embedder.OnDemandQueryModels;
import dev.engram.core.UserKey;
import dev.engram.port.Embedder;
import dev.engram.privacy.PiiFilter;
import dev.engram.qdrant.QdrantVectorIndex;
import dev.engram.qdrant.VectorIndexes;
import dev.engram.runtime.AppHttpServer;
import dev.engram.runtime.AppMetrics;
import dev.engram.runtime.RuntimeConfig;
import dev.engram.runtime.StreamsApp;
import dev.engram.runtime.StreamsRunner;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.SearchIndexes;
import dev.engram.streams.PipelineConfig;
import dev.engram.topology.RetrievalTopology;
import dev.engram.topology.RetryingVectorIndex;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * The retriever: materializes {@code memory-updated} into its own stores ({@link RetrievalTopology}) and
 * serves the retrieval API ({@link RetrieverApi}) plus {@code /health/live}, {@code /health/ready} and
 * {@code /metrics} on {@code retriever.http.port}.
 *
 * <ul>
 *   <li>input: {@code memory-updated} (key {@code tenant/user}, MemoryUpdated);</li>
 *   <li>output: {@code memory-access} (key {@code tenant/user}, MemoryAccessed), one record per answered
 *       query or context request with hits, from a plain idempotent producer; {@code memory-commands}
 *       (MemoryCommand, the API's writes) and {@code memory-audit} (AuditRecord, every /v1 answer);</li>
 *   <li>stores: {@code retriever-memories-store}, {@code retriever-profiles-store},
 *       {@code retriever-history-store}, {@code retriever-erasures-store} (changelogged);</li>
 *   <li>authentication: API keys ({@link ApiKeys}) unless {@code retriever.auth.enabled=false};</li>
 *   <li>guarantee: exactly_once_v2 for the read model; the access report is at-least-once (a retried
 *       request reports again; access counts are a ranking signal, not a ledger).</li>
 * </ul>
 * Start order: HTTP first (answers 503 until the stores are queryable), so that the bound port is known
 * and advertised as {@code application.server} when {@code retriever.http.port=0}; then Kafka Streams.
 * {@link #start(EngramConfig)} returns a {@link Handle} so the demo can run it next to the other apps in
 * one JVM; {@link #main} runs one retriever per JVM until shut down.
 */
@Command(name = "retriever", mixinStandardHelpOptions = true,
    description = "Engram retriever: read model of memory-updated and the retrieval HTTP API.")
public final class RetrieverApp implements Callable<Integer> {

    /**
     * The configuration groups this app reads, the modules it wires (checked at start,
     * {@link StreamsApp#checkConfig(EngramConfig, String, List)}).
     */
    public static final List<String> CONFIG_GROUPS = List.of("core", "domain", "streams", "runtime", "embedder", "qdrant",
        "retriever-app");

    private static final Logger LOG = LoggerFactory.getLogger(RetrieverApp.class);

    @Option(names = "--config", paramLabel = "FILE", description = "Properties file (keys as in docs/configuration.md); ENGRAM_* environment variables override it.")
    private Path configFile;

    /**
     * A running retriever on the shared app runner ({@link StreamsApp}): {@link #close()} stops Streams
     * (30 s bound), then HTTP, then the access reporter, the command publisher and audit reporter, the
     * Qdrant client of the dense search, and the registry, as every Engram app does.
     */
    public static final class Handle extends StreamsApp {
        private final Embedder embedder;
        private final HybridScorer scorer;
        private final AppHttpServer server;

        private Handle(final PrometheusMeterRegistry registry, final StreamsRunner runner, final AppHttpServer server,
                       final List<AutoCloseable> resources, final Embedder embedder, final HybridScorer scorer) {
            super(registry, runner, server, resources);
            this.embedder = embedder;
            this.scorer = scorer;
            this.server = server;
        }

        /** @return the query embedder */
        public Embedder embedder() {
            return embedder;
        }

        /** @return the ranking (and its query-vector cache) */
        public HybridScorer scorer() {
            return scorer;
        }

        /** @return the HTTP server (its routes: {@code OpenApiContractIT} compares them with /openapi.json) */
        AppHttpServer server() {
            return server;
        }

        /** @return the bound HTTP port */
        public int port() {
            return httpPort();
        }

        /** @return the base URL of the API on this host, e.g. {@code http://localhost:8080} */
        public String baseUrl() {
            return "http://localhost:" + port();
        }

        /**
         * @param timeout bound of the wait
         * @return whether Kafka Streams reached RUNNING in time
         */
        public boolean awaitRunning(final Duration timeout) {
            return runner().awaitRunning(timeout);
        }
    }

    /**
     * Starts a retriever with the configured embedder ({@code embedding.model}), which embeds a query with any
     * other built-in model too when memories carry that model's vectors (after {@code reembed}:
     * {@link OnDemandQueryModels}), and a Kafka access reporter.
     *
     * @param config the config
     * @return the running retriever (HTTP bound, Streams starting)
     */
    public static Handle start(final EngramConfig config) {
        // embedding.model until bin/engram reembed names another model active (corrections are embedded by it)
        final ActiveModelEmbedder active = ActiveModelEmbedder.fromConfig(config);
        final AccessReporter kafka = KafkaAccessReporter.create(config);
        active.follow(config.kafkaProperties(), Topic.MEMORY_EMBEDDINGS_ACTIVE.name());
        return start(config, new OnDemandQueryModels(active), new AccessReporter() {
            @Override
            public void report(final UserKey user, final List<String> memoryIds) {
                kafka.report(user, memoryIds);
            }

            @Override
            public void close() {
                try {
                    kafka.close();
                } finally {
                    active.close(); // the follower lives as long as the handle, closed with its reporter
                }
            }
        });
    }

    /**
     * Starts a retriever with explicit ports (the seam tests use).
     *
     * @param config the config
     * @param embedder embeds queries with the models of the stored embeddings
     * @param access where hits are reported (owned: closed with the handle)
     * @return the running retriever
     */
    public static Handle start(final EngramConfig config, final Embedder embedder, final AccessReporter access) {
        final KafkaPrivacyTopics topics = KafkaPrivacyTopics.create(config);
        return start(config, embedder, access, topics, topics);
    }

    /**
     * Starts a retriever with explicit ports for commands and audit as well.
     *
     * @param config the config ({@code retriever.auth.*}, {@code privacy.pii.action})
     * @param embedder embeds queries and corrections
     * @param access where hits are reported (owned)
     * @param commands where writes are published (owned)
     * @param auditSink where audit records go (owned); they reach it from a background thread
     * @return the running retriever
     */
    public static Handle start(final EngramConfig config, final Embedder embedder, final AccessReporter reporter,
                               final CommandPublisher commands, final AuditReporter auditSink) {
        // access reports leave the request thread: queued, sent by one background thread
        final AccessReporter access = BatchingAccessReporter.from(config, reporter);
        final PrometheusMeterRegistry registry = AppMetrics.registry(AppIds.RETRIEVER);
        final Optional<QdrantVectorIndex> dense;
        try {
            StreamsApp.checkConfig(config, "retriever", CONFIG_GROUPS);
            dev.engram.crypto.SealedTopics.refuseWhenCryptoOff(config, Topic.DATA_KEYS.name(), "retriever");
            dense = VectorIndexes.retrieverIndex(config, embedder.dimensions(), registry);
        } catch (RuntimeException e) {
            access.close();
            closeQuietly(commands);
            if (auditSink != commands) {
                closeQuietly(auditSink);
            }
            registry.close();
            throw e;
        }
        final boolean authEnabled = config.getBoolean(RetrieverConfig.AUTH_ENABLED);
        final ApiKeys keys = ApiKeys.from(config);
        if (authEnabled && keys.size() == 0) {
            LOG.warn("retriever.auth.enabled=true and no API keys are configured: every /v1 request is refused (401)");
        } else if (!authEnabled) {
            checkExposure(config);
        }
        // audit records leave the request thread too: queued, encoded and produced by one background thread
        final AuditReporter audit = new BatchingAuditReporter(auditSink);
        final AutoCloseable owned = () -> {
            try {
                audit.close(); // drains the queued records to the sink first, then closes it
            } finally {
                if (auditSink != commands) {
                    commands.close();
                }
            }
        };
        final RetrieverApi.Privacy privacy = new RetrieverApi.Privacy(authEnabled, keys, commands, audit,
            new PiiFilter(PiiFilter.action(config.getString(DomainConfig.PII_ACTION)), registry), embedder,
            Clock.systemUTC());
        final AtomicReference<StreamsRunner> runner = new AtomicReference<>();
        final AtomicReference<HostInfo> self = new AtomicReference<>();
        final SearchIndexes indexes = new SearchIndexes();
        final java.util.function.Supplier<org.apache.kafka.streams.KafkaStreams> client =
            () -> runner.get() == null ? null : runner.get().kafkaStreams();
        final CatchUp catchUp = new CatchUp(client, config.kafkaProperties(),
            RetrievalTopology.config(config).getProperty(org.apache.kafka.streams.StreamsConfig.APPLICATION_ID_CONFIG),
            Topic.MEMORY_UPDATED.name(), Duration.ofMillis(config.getLong(RetrieverConfig.RETRIEVER_CATCHUP_MAX_WAIT_MS)));
        final RetrievalService service = new RetrievalService(client, self::get, indexes, catchUp);
        final HybridScorer scorer;
        try {
            scorer = new HybridScorer(embedder, config, dense.orElse(null));
        } catch (RuntimeException e) {
            access.close();
            closeQuietly(owned);
            closeQuietly(dense.orElse(null));
            registry.close();
            throw e;
        }
        // tenant-settings: written by the admin route, followed by every instance for its GET
        final TenantAdmin tenantAdmin = new TenantAdmin(config);
        final RetrieverApi api = new RetrieverApi(config, service, scorer,
            access, HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build(), registry, privacy, tenantAdmin);
        final AppHttpServer server = new AppHttpServer(config.getInt(PipelineConfig.RETRIEVER_HTTP_PORT), registry,
            () -> runner.get() == null ? new AppHttpServer.Health(true, "STARTING")
                : new AppHttpServer.Health(runner.get().isLive(), runner.get().state().name()),
            () -> readiness(runner.get(), catchUp),
            app -> {
                api.register(app);
                new ApiDocs().register(app);
                new McpEndpoint(authEnabled, keys, RetrieverApp.class.getPackage().getImplementationVersion() == null
                    ? "dev" : RetrieverApp.class.getPackage().getImplementationVersion(),
                    config.getList(RetrieverConfig.MCP_ALLOWED_ORIGINS), registry).register(app);
            }).configure(config).queryParameters(QueryParam.byOperation()).start();
        try {
            final EngramConfig bound = config.with(Map.of(PipelineConfig.RETRIEVER_HTTP_PORT, server.port()));
            self.set(new HostInfo(bound.getString(PipelineConfig.RETRIEVER_HTTP_HOST), server.port()));
            final StreamsRunner streams = new StreamsRunner(RetrievalTopology.build(bound, indexes),
                RetrievalTopology.config(bound), "retriever", registry, RetryingVectorIndex::isIndexOutage);
            runner.set(streams);
            streams.start();
            catchUp.start();
            LOG.info("Retriever API on port {}", server.port());
            final List<AutoCloseable> resources = new ArrayList<>(List.of(catchUp, access::close, owned, tenantAdmin));
            dense.ifPresent(resources::add);
            return new Handle(registry, streams, server, resources, embedder, scorer);
        } catch (RuntimeException e) {
            server.close();
            access.close();
            try {
                owned.close();
            } catch (Exception closing) {
                e.addSuppressed(closing);
            }
            closeQuietly(dense.orElse(null));
            closeQuietly(tenantAdmin);
            registry.close();
            throw e;
        }
    }

    /**
     * Readiness of a retriever: its Streams client RUNNING and caught up once since the start ({@link CatchUp}), the
     * same condition under which the API answers "unknown" with 404 rather than 503, so that a load balancer sends
     * no traffic to an instance that would answer 503 for users it has not read yet.
     */
    static AppHttpServer.Health readiness(final StreamsRunner runner, final CatchUp catchUp) {
        if (runner == null) {
            return new AppHttpServer.Health(false, "STARTING");
        }
        final String state = runner.state().name();
        if (runner.isReady() && !catchUp.caughtUp()) {
            return new AppHttpServer.Health(false, state + " (catching up with " + Topic.MEMORY_UPDATED.name() + ")");
        }
        return new AppHttpServer.Health(runner.isReady(), state);
    }

    private static void closeQuietly(final AutoCloseable resource) {
        if (resource == null) {
            return;
        }
        try {
            resource.close();
        } catch (Exception e) {
            LOG.warn("Cannot close {}", resource, e);
        }
    }

    /**
     * Runs one retriever until the JVM is asked to stop.
     *
     * @return the exit code: 0 after a clean shutdown, 1 if Kafka Streams ended in ERROR
     */
    @Override
    public Integer call() {
        final EngramConfig config = EngramConfig.load(configFile, System.getenv(), Map.of());
        return start(config).runUntilShutdownAndClose();
    }

    /**
     * Refuses an unauthenticated API on a non-loopback address unless explicitly allowed, and says so
     * loudly when it is: with {@code retriever.auth.enabled=false} every tenant's memories are readable
     * by whoever reaches the port.
     *
     * @param config the config (auth off)
     * @throws org.apache.kafka.common.config.ConfigException if {@code http.bind.address} is not loopback
     *     and {@code retriever.auth.allow.unauthenticated.remote} is false
     */
    static void checkExposure(final EngramConfig config) {
        final String address = config.getString(RuntimeConfig.HTTP_BIND_ADDRESS);
        if (AppHttpServer.isLoopback(address)) {
            LOG.warn("retriever.auth.enabled=false: the API serves every tenant without authentication, on {} only "
                + "(this machine)", address);
            return;
        }
        refuseUnauthenticatedRemote(config);
        LOG.error("\n************************************************************************\n"
            + "* WARNING: retriever.auth.enabled=false on {} (not loopback):\n"
            + "* ANYONE WHO CAN REACH THIS PORT CAN READ, CHANGE AND ERASE EVERY TENANT'S MEMORIES.\n"
            + "* (allowed by {}=true)\n"
            + "************************************************************************", address,
            RetrieverConfig.AUTH_ALLOW_UNAUTHENTICATED_REMOTE);
    }

    /**
     * The refusal half of the exposure check, without its log lines, for a launcher (the demo) to run before
     * it starts anything.
     *
     * @param config the config the retriever will get (auth off)
     * @throws org.apache.kafka.common.config.ConfigException if {@code http.bind.address} is not loopback and
     *     {@code retriever.auth.allow.unauthenticated.remote} is false
     */
    public static void refuseUnauthenticatedRemote(final EngramConfig config) {
        final String address = config.getString(RuntimeConfig.HTTP_BIND_ADDRESS);
        if (!AppHttpServer.isLoopback(address) && !config.getBoolean(RetrieverConfig.AUTH_ENABLED)
            && !config.getBoolean(RetrieverConfig.AUTH_ALLOW_UNAUTHENTICATED_REMOTE)) {
            throw new org.apache.kafka.common.config.ConfigException(RetrieverConfig.AUTH_ENABLED + "=false with "
                + RuntimeConfig.HTTP_BIND_ADDRESS + "=" + address + " would serve every tenant's memories to the network "
                + "without authentication; enable auth, bind to 127.0.0.1, or set "
                + RetrieverConfig.AUTH_ALLOW_UNAUTHENTICATED_REMOTE + "=true if that is really meant");
        }
    }

    /**
     * @param args {@code [--config FILE]}
     */
    public static void main(final String[] args) {
        AvroSerdes.trustGeneratedRecords(); // before any record is built: a default of a record type is resolved by class
        ExitDrains.exit(new CommandLine(new RetrieverApp()).execute(args));
    }
}
