package dev.engram.deploy;


import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.engram.avro.Memory;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.consolidation.Observations;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.extractor.ExtractorApp;
import dev.engram.ops.Embedders;
import dev.engram.ops.HashEmbedderProvider;
import dev.engram.ops.MemorySnapshot;
import dev.engram.ops.OpsTestSupport;
import dev.engram.ops.PendingObservations;
import dev.engram.ops.Reembed;
import dev.engram.retriever.RetrieverApp;
import dev.engram.retriever.RetrieverConfig;
import dev.engram.serde.AvroSerdes;
import dev.engram.stack.EmbeddedBroker;
import dev.engram.stack.Ingest;
import dev.engram.stack.MemoryState;
import dev.engram.stack.ProjectPaths;
import dev.engram.stack.TopicScan;
import dev.engram.stack.TopicSetup;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.AppIds;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The demo stack (embedded broker, topics, the three apps, the shipped sample ingested) once for the
 * class, then, in order: one {@code /metrics} scrape per app checked against the Grafana dashboard and
 * the Prometheus rules; {@code bin/engram rebuild} of the consolidator ending with {@code verify}
 * reporting no differences; the same for the retriever's read model; {@code reembed} into a second
 * model side by side, switch, refusal to drop the active model, switch back, drop.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OpsStackIT {

    private static final Pattern METRIC = Pattern.compile("\\b((?:engram|kafka|jvm)_[a-z0-9_]+)");
    private static Path dir;
    private static EmbeddedBroker broker;
    private static ExtractorApp extractor;
    private static ConsolidatorApp consolidator;
    private static RetrieverApp.Handle retriever;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /**
     * {@code bin/engram ARGS} as the operator of this stack runs it: the stack runs without crypto-shredding
     * ({@code crypto.enabled=false}, read in the clear by the test), so every command given the cluster is given the
     * same setting in a config file ({@code --config}), as a deployment that turned crypto-shredding off would.
     */
    private static CliRun engram(final String... args) {
        if (!java.util.Arrays.asList(args).contains("--bootstrap-servers")) {
            return CliRun.engram(args);
        }
        final java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of(args));
        all.addAll(java.util.List.of("--config", dir.resolve("plain.properties").toString()));
        return CliRun.engram(all.toArray(new String[0]));
    }

    @BeforeAll
    static void startStack() throws Exception {
        dir = Files.createTempDirectory("engram-ops-it");
        Files.writeString(dir.resolve("plain.properties"), PipelineConfig.CRYPTO_ENABLED + "=false\n");
        broker = EmbeddedBroker.start(dir);
        final EngramConfig config = EngramConfig.plain().with(Map.of(CoreConfig.BOOTSTRAP_SERVERS, broker.bootstrapServers(),
            PipelineConfig.STATE_DIR, dir.resolve("streams").toString(), PipelineConfig.EXTRACTOR_HTTP_PORT, 0,
            PipelineConfig.CONSOLIDATOR_HTTP_PORT, 0, PipelineConfig.RETRIEVER_HTTP_PORT, 0,
            RetrieverConfig.AUTH_ENABLED, false)); // the demo stack: no API keys
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            TopicSetup.createAll(admin, 2);
        }
        extractor = ExtractorApp.start(config);
        consolidator = ConsolidatorApp.start(config);
        retriever = RetrieverApp.start(config);
        try (Ingest ingest = new Ingest(broker.bootstrapServers(), Map.of())) {
            ingest.publish(ProjectPaths.sample().orElseThrow(), n -> { });
        }
        awaitProcessed();
        // no lag is not yet served: the retriever answers 503 until its catch-up has seen it, and the first query
        // loads the query embedder (seconds at load 10+)
        dev.engram.testing.Waits.until("mira's memories served", Duration.ofMinutes(3),
            () -> get(retriever.baseUrl() + "/v1/tenants/acme/users/mira/memories?query=cloud&k=3").statusCode(),
            status -> status == 200);
    }

    private static void awaitProcessed() {
        final Duration timeout = Duration.ofMinutes(4); // the sample through the real model on 2 busy cores
        OpsTestSupport.awaitExtracted(broker.bootstrapServers(), extractor::pendingConversations, timeout);
        OpsTestSupport.awaitConsolidated(broker.bootstrapServers(), Set.of(Topic.MEMORY_CANDIDATES.name()), timeout);
        OpsTestSupport.awaitNoLag(broker.bootstrapServers(), AppIds.RETRIEVER, Set.of(Topic.MEMORY_UPDATED.name()), timeout);
    }

    @AfterAll
    static void stopStack() throws Exception {
        retriever.close();
        consolidator.close();
        extractor.close();
        broker.close();
        dev.engram.stack.ProjectPaths.deleteRecursively(dir);
    }

    @Test
    @Order(1)
    void shouldExposeEveryMetricTheDashboardAndTheAlertsUseWhenEachAppIsScraped() throws Exception {
        final Map<String, String> scrapes = new HashMap<>();
        scrapes.put(AppIds.EXTRACTOR, get("http://localhost:" + extractor.httpPort() + "/metrics").body());
        scrapes.put(AppIds.CONSOLIDATOR, get("http://localhost:" + consolidator.httpPort() + "/metrics").body());
        scrapes.put(AppIds.RETRIEVER, get(retriever.baseUrl() + "/metrics").body());
        final Set<String> exposed = new TreeSet<>();
        scrapes.forEach((app, text) -> {
            assertThat(text).as(app).contains("engram_streams_live{application=\"" + app + "\",host=\"");
            assertThat(text).as(app).contains("kafka_stream_thread_process_rate{");
            for (final String line : text.split("\n")) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    exposed.add(line.split("[{ ]", 2)[0]);
                }
            }
        });
        // memories created are counted as engram.memories.added: a counter named *.created would lose that
        // suffix in Prometheus (OpenMetrics reserves "_created" for creation timestamps)
        assertThat(scrapes.get(AppIds.CONSOLIDATOR)).contains("engram_memories_added_total{",
            "engram_memories_reinforced_total{", "engram_memories_superseded_total{", "engram_memories_archived_total{",
            "engram_dead_letters_total{");
        assertThat(scrapes.get(AppIds.EXTRACTOR)).contains("engram_extraction_candidates_total{",
            "engram_extraction_latency_seconds_count{", "engram_dead_letters_total{");
        assertThat(scrapes.get(AppIds.RETRIEVER)).contains("engram_retrieval_requests_seconds_count{");

        final Path deploy = ProjectPaths.repositoryRoot().orElseThrow().resolve("deploy");
        final JsonNode dashboard = new ObjectMapper().readTree(deploy.resolve("grafana/engram-dashboard.json").toFile());
        final List<String> expressions = new ArrayList<>();
        assertThat(dashboard.path("title").asText()).isNotBlank();
        assertThat(dashboard.path("panels").size()).isGreaterThanOrEqualTo(8);
        dashboard.path("panels").forEach(p -> {
            assertThat(p.path("gridPos").has("h")).isTrue();
            p.path("targets").forEach(t -> expressions.add(t.path("expr").asText()));
        });
        final JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(deploy.resolve("prometheus/alerts.yml").toFile());
        final Set<String> alerts = new TreeSet<>();
        rules.path("groups").forEach(g -> g.path("rules").forEach(r -> {
            alerts.add(r.path("alert").asText());
            assertThat(r.path("annotations").path("description").asText()).isNotBlank();
            expressions.add(r.path("expr").asText());
        }));
        assertThat(alerts).contains("EngramConsumerLagHigh", "EngramDeadLetters", "EngramAppNotLive", "EngramLlmErrors");

        final Set<String> named = new TreeSet<>();
        for (final String expr : expressions) {
            final Matcher m = METRIC.matcher(expr);
            while (m.find()) {
                named.add(m.group(1));
            }
        }
        // engram_llm_* appear only with the LLM extractor/judge configured (llm.base.url), not offline
        named.removeIf(n -> n.startsWith("engram_llm_"));
        assertThat(named).hasSizeGreaterThan(10);
        // task-level Streams metrics are bound by Micrometer's periodic refresh (every 60 s), after the
        // tasks exist: check those against the Streams client's own metric names instead of waiting
        final Set<String> taskLevel = new TreeSet<>();
        consolidator.runner().kafkaStreams().metrics().keySet().stream()
            .filter(m -> m.group().equals("stream-task-metrics"))
            .forEach(m -> taskLevel.add("kafka_stream_task_" + m.name().replace('-', '_')));
        named.stream().filter(n -> n.startsWith("kafka_stream_task_")).forEach(n -> assertThat(taskLevel).contains(n));
        named.removeIf(n -> n.startsWith("kafka_stream_task_"));
        assertThat(exposed).containsAll(named);
    }

    @Test
    @Order(2)
    void shouldRebuildTheConsolidatorAndVerifyNoDifferencesWhenRunOnTheDemoStack() {
        // the retrieval in startStack reported its hits on memory-access: let the consolidator fold them first
        OpsTestSupport.awaitConsolidated(broker.bootstrapServers(),
            Set.of(Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_COMMANDS.name(), Topic.MEMORY_ACCESS.name()), Duration.ofMinutes(3));
        // and its observations regrouped (on its wall clock, seconds after the input): the state a replay ends with
        assertThat(PendingObservations.awaitNone(TopicScan.client(broker.bootstrapServers()), Duration.ofMinutes(3)))
            .isTrue();
        consolidator.close(); // a rebuild needs the app stopped
        final Path work = dir.resolve("rebuild-consolidator");
        final CliRun rebuild = engram("rebuild", "--bootstrap-servers", broker.bootstrapServers(), "--state-dir",
            dir.resolve("rebuild-state").toString(), "--work-dir", work.toString(), "--timeout", "PT5M", "--force");
        assertThat(rebuild.exit()).as(rebuild.out()).isZero();
        assertThat(rebuild.out()).contains("Resetting engram-consolidator with Kafka's StreamsResetter",
            "verify: no differences");
        final MemorySnapshot before = MemorySnapshot.read(work.resolve("before.json"));
        final MemorySnapshot after = MemorySnapshot.read(work.resolve("after.json"));
        assertThat(before.totalMemories()).isPositive();
        assertThat(MemoryState.read(TopicScan.client(broker.bootstrapServers()), Duration.ofSeconds(30)).memories()
            .values().stream().flatMap(List::stream).filter(Observations::isObservation).count())
            .as("observations are on by default, and rebuilt alike").isPositive();
        assertThat(after.users()).isEqualTo(before.users());
        assertThat(after.events()).as("the rebuild wrote its own events").isPositive();

        final CliRun verify = engram("verify", "--before", work.resolve("before.json").toString(),
            "--after", work.resolve("after.json").toString());
        assertThat(verify.exit()).as(verify.out()).isZero();
        assertThat(verify.out()).contains("verify: no differences");
        final CliRun live = engram("verify", "--before", work.resolve("before.json").toString(), "--bootstrap-servers",
            broker.bootstrapServers());
        assertThat(live.exit()).as(live.out()).isZero();
    }

    @Test
    @Order(3)
    void shouldRebuildTheRetrieverReadModelAndVerifyNoDifferencesWhenItIsStopped() {
        retriever.close();
        final CliRun rebuild = engram("rebuild", "--app", "retriever", "--bootstrap-servers", broker.bootstrapServers(),
            "--state-dir", dir.resolve("rebuild-state").toString(), "--work-dir", dir.resolve("rebuild-retriever").toString(),
            "--timeout", "PT5M", "--force");
        assertThat(rebuild.exit()).as(rebuild.out()).isZero();
        assertThat(rebuild.out()).contains("verify: no differences");
    }

    @Test
    @Order(4)
    void shouldReembedSideBySideSwitchAndDropOnlyTheInactiveModelWhenASecondModelIsGiven() {
        final String bootstrap = broker.bootstrapServers();
        // observations and topic lists are not embedded: the consolidator's regrouping moves them with their statements
        final long memories = MemoryState.read(TopicScan.client(bootstrap), Duration.ofSeconds(30)).memories().values()
            .stream().flatMap(List::stream).filter(m -> !Observations.rebuiltByRegrouping(m)).count();
        // the consolidator stopped for the rebuild (order 2): the switch is published but cannot be caught up
        final CliRun reembed = engram("reembed", "--model", HashEmbedderProvider.MODEL, "--bootstrap-servers", bootstrap,
            "--apply-timeout", "PT30S");
        assertThat(reembed.exit()).as(reembed.out()).isEqualTo(1);
        assertThat(reembed.out()).contains("active model is now " + HashEmbedderProvider.MODEL)
            .contains("engram-consolidator").contains("NOT caught up");
        final List<Memory> written = readMemories(bootstrap, Reembed.topicFor(HashEmbedderProvider.MODEL));
        assertThat(written).hasSize((int) memories);
        assertThat(written).allSatisfy(m -> {
            assertThat(m.getEmbeddingModel()).isEqualTo(HashEmbedderProvider.MODEL);
            assertThat(m.getEmbedding()).hasSize(64);
        });
        assertThat(engram("reembed", "--list", "--bootstrap-servers", bootstrap).out()).contains("active: " + HashEmbedderProvider.MODEL);
        assertThat(engram("reembed", "--drop", HashEmbedderProvider.MODEL, "--bootstrap-servers", bootstrap).exit())
            .as("the active model is kept").isEqualTo(1);

        assertThat(engram("reembed", "--model", Embedders.DEFAULT_MODEL, "--bootstrap-servers", bootstrap,
            "--apply-timeout", "PT30S").out()).contains("active model is now " + Embedders.DEFAULT_MODEL);
        final CliRun drop = engram("reembed", "--drop", HashEmbedderProvider.MODEL, "--bootstrap-servers", bootstrap);
        assertThat(drop.exit()).as(drop.out()).isZero();
    }

    private static List<Memory> readMemories(final String bootstrap, final String topic) {
        final Map<String, Memory> latest = new HashMap<>();
        final var decoder = AvroSerdes.serde(Memory.class).deserializer();
        TopicScan.toEnd(TopicScan.client(bootstrap), topic, null, Duration.ofSeconds(30),
            r -> latest.put(new String(r.key(), StandardCharsets.UTF_8), decoder.deserialize(topic, r.value())));
        return List.copyOf(latest.values());
    }

    private static HttpResponse<String> get(final String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError("GET " + url + " failed", e);
        }
    }
}
