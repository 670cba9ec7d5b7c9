package dev.engram.consolidator;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.Properties;

import dev.engram.core.ExitDrains;
import dev.engram.serde.AvroSerdes;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.llm.LlmConfig;
import dev.engram.store.EmbeddedVectorIndexFactory;
import dev.engram.rules.KeyValueContradictionJudge;
import dev.engram.embedder.ActiveModelEmbedder;
import dev.engram.port.Embedder;
import dev.engram.llm.ChatCompletionsClient;
import dev.engram.llm.LlmContradictionJudge;
import dev.engram.llm.LlmMemoryMerger;
import dev.engram.llm.LlmSettings;
import dev.engram.port.ContradictionJudge;
import dev.engram.port.MemoryMerger;
import dev.engram.port.VectorIndexFactory;
import dev.engram.qdrant.QdrantVectorIndexFactory;
import dev.engram.qdrant.VectorIndexes;
import dev.engram.runtime.AppHttpServer;
import dev.engram.runtime.AppMetrics;
import dev.engram.runtime.StreamsApp;
import dev.engram.runtime.StreamsRunner;
import dev.engram.streams.PipelineConfig;
import dev.engram.topology.ConsolidationTopology;
import dev.engram.topology.RetryingVectorIndex;
import dev.engram.topology.StreamsSettings;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import dev.engram.topics.AppIds;
import dev.engram.topics.Topic;

/**
 * The consolidator app ({@code application.id} {@code CONSOLIDATOR_APP}): runs
 * {@link ConsolidationTopology} — {@code memory-candidates} (user key, MemoryCandidate) → memory state
 * in {@code memories-by-user-store} and {@code profiles-store}, {@code memory-updated},
 * {@code memory-contradictions}, {@code memory-archived}; invalid records to
 * {@code engram-consolidator-dlq} — with {@link KeyValueContradictionJudge} and the vector index chosen by
 * {@code vector.index} ({@link VectorIndexes}): the store-backed exact index
 * ({@link EmbeddedVectorIndexFactory}, default) or Qdrant ({@link QdrantVectorIndexFactory}, every memory
 * change upserted with {@code wait=true} before it is forwarded).
 * With {@code llm.base.url} set (and {@code llm.judge.enabled}), pairs in the judge band that share no
 * fact key are judged by {@link LlmContradictionJudge}, with the key/value judge as its fallback; with
 * {@code llm.merge.enabled} too, merged memories are written by {@link LlmMemoryMerger}. With
 * {@code lifecycle.observe.threshold} below 1 (default 0.48: on) the consolidator writes observations
 * ({@link dev.engram.consolidation.Observations}), of the deployment's model ({@link ActiveModelEmbedder}, which follows
 * {@code bin/engram reembed}; loaded on use, which is never: the consolidator only routes texts by model); the transaction timeout is {@value #PASS_TRANSACTION_TIMEOUT_MS} ms
 * unless {@code kafka.producer.transaction.timeout.ms} says otherwise, since the pass runs in one transaction.
 *
 * <p>Shape (docs/ARCHITECTURE.md, "Conventions"): config → topology → {@link StreamsRunner} (uncaught-exception
 * handler, state listener, Kafka Streams metrics) → {@link AppHttpServer} on
 * {@code consolidator.http.port} ({@code /health/live}, {@code /health/ready}, {@code /metrics}) →
 * start; {@link #close()} stops them in reverse order. {@code exactly_once_v2} via
 * {@link StreamsSettings}.
 */
public final class ConsolidatorApp extends StreamsApp {

    /**
     * The configuration groups this app reads, the modules it wires (checked at start,
     * {@link StreamsApp#checkConfig(EngramConfig, String, List)}).
     */
    public static final List<String> CONFIG_GROUPS = List.of("core", "domain", "streams", "runtime", "embedder", "llm", "qdrant");

    /** The consolidator's transaction timeout unless {@code kafka.producer.transaction.timeout.ms} is set, ms. */
    public static final int PASS_TRANSACTION_TIMEOUT_MS = 60_000;

    private ConsolidatorApp(final PrometheusMeterRegistry registry, final StreamsRunner runner, final AppHttpServer http,
                            final VectorIndexFactory indexFactory, final ActiveModelEmbedder embedder) {
        // the vector index client (Qdrant's gRPC channel) and the embedder's model follower close after Streams and HTTP
        super(registry, runner, http, closeables(indexFactory, embedder));
    }

    private static List<AutoCloseable> closeables(final VectorIndexFactory indexFactory, final ActiveModelEmbedder embedder) {
        final List<AutoCloseable> out = new java.util.ArrayList<>();
        if (indexFactory instanceof AutoCloseable closeable) {
            out.add(closeable);
        }
        if (embedder != null) {
            out.add(embedder);
        }
        return out;
    }

    /**
     * Builds the topology, starts the HTTP server and the Streams client; returns at once.
     *
     * @param config the Engram config
     * @return the running app
     */
    public static ConsolidatorApp start(final EngramConfig config) {
        return start(config, UnaryOperator.identity());
    }

    /**
     * As {@link #start(EngramConfig)}, with the observations' embedder wrapped: {@code bin/engram rebuild} hands the
     * vectors the run being rebuilt wrote ({@code KnownVectors}), so a rebuild embeds no observation again.
     *
     * @param config the Engram config
     * @param observationEmbedder wraps the deployment's embedder of observations (identity: as is)
     * @return the running app
     */
    public static ConsolidatorApp start(final EngramConfig config, final UnaryOperator<Embedder> observationEmbedder) {
        checkConfig(config, "consolidator", CONFIG_GROUPS);
        dev.engram.crypto.SealedTopics.refuseWhenCryptoOff(config, Topic.DATA_KEYS.name(), "consolidator");
        final PrometheusMeterRegistry registry = AppMetrics.registry(AppIds.CONSOLIDATOR);
        final Optional<ChatCompletionsClient> client = LlmSettings.from(config)
            .map(s -> new ChatCompletionsClient(s, registry, AppIds.CONSOLIDATOR));
        final ContradictionJudge judge = client.filter(c -> config.getBoolean(LlmConfig.LLM_JUDGE))
            .<ContradictionJudge>map(c -> new LlmContradictionJudge(c, new KeyValueContradictionJudge(), registry,
                AppIds.CONSOLIDATOR))
            .orElseGet(KeyValueContradictionJudge::new);
        final MemoryMerger merger = client.filter(c -> config.getBoolean(LlmConfig.LLM_MERGE))
            .<MemoryMerger>map(c -> new LlmMemoryMerger(c, registry, AppIds.CONSOLIDATOR))
            .orElse(MemoryMerger.CONCATENATE);
        final VectorIndexFactory indexFactory = VectorIndexes.consolidatorFactory(config, registry,
            EmbeddedVectorIndexFactory::new);
        // observations are of the deployment's model, switched by bin/engram reembed as the other apps'; their vectors
        // are their statements' centroids, so the consolidator asks it which model a text goes to, and never embeds:
        // its models are loaded on use (never), not at every start (a second or two, bin/engram rebuild included)
        final ActiveModelEmbedder embedder = config.getDouble(DomainConfig.OBSERVE_THRESHOLD) < 1.0
            ? ActiveModelEmbedder.loadingOnUse(config) : null;
        final Properties props = StreamsSettings.forApp(config, AppIds.CONSOLIDATOR);
        // The daily consolidation pass (merge, observations: embedding, with llm.merge.enabled the LLM) runs inside one
        // transaction per task: allow a minute before the broker aborts it (Streams' exactly-once default is 10 s,
        // which a pass over many changed users on a loaded machine exceeded, fencing the task again and again).
        // kafka.producer.transaction.timeout.ms still wins.
        props.putIfAbsent(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), PASS_TRANSACTION_TIMEOUT_MS);
        final StreamsRunner runner = new StreamsRunner(
            ConsolidationTopology.build(config, judge, merger, embedder == null ? null : observationEmbedder.apply(embedder),
                indexFactory, registry),
            props, "consolidator", registry, RetryingVectorIndex::isIndexOutage);
        final AppHttpServer http = AppHttpServer.forRunner(config.getInt(PipelineConfig.CONSOLIDATOR_HTTP_PORT), registry,
            runner, app -> { }).configure(config).start();
        if (embedder != null) {
            embedder.follow(config.kafkaProperties(), Topic.MEMORY_EMBEDDINGS_ACTIVE.name()); // starts with the active model, if reembed named one
        }
        runner.start();
        return new ConsolidatorApp(registry, runner, http, indexFactory, embedder);
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
