package dev.engram.extractor;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import dev.engram.core.ExitDrains;
import dev.engram.serde.AvroSerdes;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.ActiveModelEmbedder;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.llm.LlmConfig;
import dev.engram.rules.RuleBasedExtractor;
import dev.engram.llm.ChatCompletionsClient;
import dev.engram.llm.BudgetedExtractor;
import dev.engram.llm.LlmMemoryExtractor;
import dev.engram.llm.LlmSettings;
import dev.engram.llm.LlmWithOfflineEpisodes;
import dev.engram.port.MemoryExtractor;
import dev.engram.runtime.AppHttpServer;
import dev.engram.runtime.AppMetrics;
import dev.engram.runtime.StreamsApp;
import dev.engram.runtime.StreamsRunner;
import dev.engram.streams.PipelineConfig;
import dev.engram.topology.ExtractionTopology;
import dev.engram.topology.StreamsSettings;
import dev.engram.topology.UsageLedger;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import dev.engram.topics.AppIds;
import dev.engram.topics.Topic;

/**
 * The extractor app ({@code application.id} {@code EXTRACTOR_APP}): runs
 * {@link ExtractionTopology} — {@code conversations-completed} (user key, ConversationCompleted) →
 * {@code memory-candidates} (user key, MemoryCandidate); invalid conversations to
 * {@code engram-extractor-dlq} — with the embedded defaults: the offline {@link RuleBasedExtractor}
 * and the in-process embedding model of {@code embedding.model} ({@link ScriptRoutedEmbedder#fromConfig}), switched
 * when {@code bin/engram reembed} completes ({@link ActiveModelEmbedder}). With {@code llm.base.url}
 * set, the extractor is {@link LlmMemoryExtractor} over an OpenAI-compatible server, run on a pool of
 * {@code llm.max.concurrency} threads with as many conversations pending per task (see
 * {@link ExtractionTopology} for how order and exactly-once are kept), under each tenant's daily token budget
 * ({@link BudgetedExtractor}: the cost ledger {@code llm-usage} read back by a {@link UsageLedger}; the offline
 * extractor once a tenant's budget of the day is spent).
 *
 * <p>Shape (docs/ARCHITECTURE.md, "Conventions"): config → topology → {@link StreamsRunner} (uncaught-exception
 * handler, state listener, Kafka Streams metrics) → {@link AppHttpServer} on
 * {@code extractor.http.port} ({@code /health/live}, {@code /health/ready}, {@code /metrics}) →
 * start; {@link #close()} stops them in reverse order. {@code exactly_once_v2} via
 * {@link StreamsSettings}.
 */
public final class ExtractorApp extends StreamsApp {

    /**
     * The configuration groups this app reads, the modules it wires (checked at start,
     * {@link StreamsApp#checkConfig(EngramConfig, String, List)}).
     */
    public static final List<String> CONFIG_GROUPS = List.of("core", "domain", "streams", "runtime", "embedder", "llm",
        "extractor-app");

    private final PrometheusMeterRegistry meters;

    private ExtractorApp(final PrometheusMeterRegistry registry, final StreamsRunner runner, final AppHttpServer http,
                         final ExecutorService pool, final ActiveModelEmbedder embedder, final AutoCloseable usage) {
        super(registry, runner, http, pool == null ? List.of(embedder, usage) : List.of(embedder, usage, pool::shutdownNow));
        this.meters = registry;
    }

    /**
     * @return conversations this instance consumed whose candidates are not forwarded yet
     *     ({@value ExtractionTopology#METER_PENDING}); 0 before the topology runs
     */
    public long pendingConversations() {
        final io.micrometer.core.instrument.Gauge gauge = meters.find(ExtractionTopology.METER_PENDING).gauge();
        return gauge == null ? 0 : Math.round(gauge.value());
    }

    /**
     * @return this instance's consumed conversations by outcome ({@value ExtractionTopology#METER_OUTCOMES}): key
     *     {@code remembered}, {@code nothing_to_remember:<reason>} or {@code dead_lettered:<stage>}, sorted; empty
     *     before the first conversation
     */
    public java.util.Map<String, Long> conversationOutcomes() {
        final java.util.Map<String, Long> out = new java.util.TreeMap<>();
        meters.find(ExtractionTopology.METER_OUTCOMES).counters().forEach(c -> {
            final String outcome = c.getId().getTag("outcome");
            final String reason = c.getId().getTag("reason");
            out.merge(reason == null || reason.isEmpty() ? outcome : outcome + ":" + reason, Math.round(c.count()), Long::sum);
        });
        return out;
    }

    private static ThreadFactory daemon() {
        final AtomicInteger count = new AtomicInteger();
        return task -> {
            final Thread thread = new Thread(task, "engram-extract-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Builds the topology, starts the HTTP server and the Streams client; returns at once.
     *
     * @param config the Engram config
     * @return the running app
     */
    public static ExtractorApp start(final EngramConfig config) {
        checkConfig(config, "extractor", CONFIG_GROUPS);
        dev.engram.crypto.SealedTopics.refuseWhenCryptoOff(config, Topic.DATA_KEYS.name(), "extractor");
        final PrometheusMeterRegistry registry = AppMetrics.registry(AppIds.EXTRACTOR);
        final Optional<LlmSettings> llm = LlmSettings.from(config);
        // Conversations in flight per task: each one's texts queue on the embedder's threads (one per core) beside
        // the others', so the cores stay busy while the stream thread decodes, forwards and commits.
        final int inFlight = llm.map(LlmSettings::maxConcurrency).orElse(config.getInt(ExtractorConfig.EXTRACTOR_MAX_IN_FLIGHT));
        final ExecutorService pool = llm.isPresent() || inFlight > 1 ? Executors.newFixedThreadPool(inFlight, daemon()) : null;
        // embedding.model until bin/engram reembed names another model active (ActiveModelEmbedder follows it)
        final ActiveModelEmbedder embedder = ActiveModelEmbedder.fromConfig(config);
        // the cost ledger read back, for the tenants' daily token budgets (only with an LLM)
        final UsageLedger ledger = new UsageLedger();
        final AutoCloseable usage = llm.isPresent() ? UsageLedger.follow(config, ledger, "llm-usage-follower") : () -> { };
        final Topology topology = llm.isEmpty()
            ? pool == null
                ? ExtractionTopology.build(config, new RuleBasedExtractor(), embedder, registry)
                : ExtractionTopology.build(config, new RuleBasedExtractor(), embedder, registry, pool, inFlight)
            : ExtractionTopology.build(config, new BudgetedExtractor(llmExtractor(config, llm.get(), registry),
                    new RuleBasedExtractor(), (tenant, day) -> ledger.spentOn(tenant, day).tokens(), Clock.systemUTC(),
                    registry, AppIds.EXTRACTOR),
                embedder, registry, pool, llm.get().maxConcurrency());
        final Properties props = StreamsSettings.forApp(config, AppIds.EXTRACTOR);
        if (llm.isPresent()) {
            // While the LLM is down the stream thread waits inside process() for the oldest conversation
            // (back-pressure), holding its transaction open: allow 5 minutes before the broker aborts it
            // (Streams' exactly-once default is 10 s). Past that, the task restarts from its last commit and
            // re-runs its pending conversations: slower, never lossy. kafka.* settings still win.
            props.putIfAbsent(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG),
                LlmConfig.LLM_TRANSACTION_TIMEOUT_MS);
            props.putIfAbsent(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG), 600_000);
        }
        final StreamsRunner runner = new StreamsRunner(topology, props, "extractor", registry,
            failure -> false); // no vector index here: every uncaught failure stops the client
        final AppHttpServer http = AppHttpServer.forRunner(config.getInt(PipelineConfig.EXTRACTOR_HTTP_PORT), registry,
            runner, app -> { }).configure(config).start();
        embedder.follow(config.kafkaProperties(), Topic.MEMORY_EMBEDDINGS_ACTIVE.name()); // starts with the active model, if reembed named one
        runner.start();
        return new ExtractorApp(registry, runner, http, pool, embedder, usage);
    }

    /** The LLM extractor, with the offline episodes beside it when {@code llm.extraction.episodes} says so. */
    private static MemoryExtractor llmExtractor(final EngramConfig config, final LlmSettings settings,
                                                final PrometheusMeterRegistry registry) {
        final LlmMemoryExtractor extractor = new LlmMemoryExtractor(
            new ChatCompletionsClient(settings, registry, AppIds.EXTRACTOR), registry, AppIds.EXTRACTOR);
        return config.getBoolean(LlmConfig.LLM_EPISODES)
            ? new LlmWithOfflineEpisodes(extractor, new RuleBasedExtractor()) : extractor;
    }

    /**
     * Runs until the JVM is asked to stop or the Streams client dies.
     *
     * @param config the Engram config
     * @return the process exit code (0 after a clean shutdown, 1 after an error)
     */
    public static int run(final EngramConfig config) {
        return start(config).runUntilShutdownAndClose();
    }

    /**
     * @param args optionally a properties file; settings also come from {@code ENGRAM_*} variables
     */
    public static void main(final String[] args) {
        AvroSerdes.trustGeneratedRecords(); // before any record is built: a default of a record type is resolved by class
        ExitDrains.exit(run(configFromArgs(args)));
    }
}
