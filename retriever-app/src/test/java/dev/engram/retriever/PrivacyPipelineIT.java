package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.avro.Message;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.rules.KeyValueContradictionJudge;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.rules.RuleBasedExtractor;
import dev.engram.serde.AvroSerdes;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.testing.RecordingVectorIndexFactory;
import dev.engram.topology.ConsolidationTopology;
import dev.engram.topology.ExtractionTopology;
import dev.engram.topology.Stores;
import dev.engram.topology.StreamsSettings;
import dev.engram.topology.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The whole pipeline on the in-process broker (extraction with the rule-based extractor and MiniLM,
 * consolidation with a recording vector-index stub standing in for Qdrant, the retriever with API keys):
 * <ol>
 *   <li>the memory panel in headless Chromium (Debian's chromium and chromium-driver, driven by Selenium):
 *       memories grouped by category with source badges, edit, delete, memory off, clear all after a
 *       confirmation;</li>
 *   <li>erase-all, then a full replay of all topics (conversations re-published, and a second extractor,
 *       consolidator and retriever with new application ids reading every topic from the beginning
 *       with empty state), leaves zero hits for the user in the API, the stores and the vector index.</li>
 * </ol>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PrivacyPipelineIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final String ADMIN = "t1-admin-key-for-the-panel-1";
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    private static EmbeddedKafka kafka;
    private static final RecordingVectorIndexFactory INDEX = new RecordingVectorIndexFactory();
    private static final List<KafkaStreams> STREAMS = new ArrayList<>();
    private static final List<RetrieverApp.Handle> RETRIEVERS = new ArrayList<>();
    private static final List<ConversationCompleted> PUBLISHED = new ArrayList<>();
    private static KafkaStreams consolidator1;
    private static RetrieverApp.Handle retriever;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, Topics.all());
        consolidator1 = startPipeline("1");
        retriever = startRetriever(Map.of());
    }

    @AfterAll
    static void stop() throws Exception {
        RETRIEVERS.forEach(RetrieverApp.Handle::close);
        STREAMS.forEach(s -> s.close(Duration.ofSeconds(20)));
        if (kafka != null) {
            kafka.close();
        }
    }

    /** Starts an extractor and a consolidator with application ids suffixed by {@code run}; returns the consolidator. */
    private static KafkaStreams startPipeline(final String run) {
        final EngramConfig config = kafka.engramConfig(Map.of());
        final KafkaStreams extractor = new KafkaStreams(
            ExtractionTopology.build(config, new RuleBasedExtractor(), ScriptRoutedEmbedder.defaults(), new SimpleMeterRegistry()),
            StreamsSettings.forApp(config, Topics.EXTRACTOR_APP + "-" + run));
        final KafkaStreams consolidator = new KafkaStreams(
            ConsolidationTopology.build(config, new KeyValueContradictionJudge(), INDEX, new SimpleMeterRegistry()),
            StreamsSettings.forApp(kafka.engramConfig(Map.of()), Topics.CONSOLIDATOR_APP + "-" + run));
        STREAMS.add(extractor);
        STREAMS.add(consolidator);
        extractor.start();
        consolidator.start();
        return consolidator;
    }

    private static RetrieverApp.Handle startRetriever(final Map<String, Object> extra) {
        final Map<String, Object> settings = new HashMap<>(extra);
        settings.put(EngramConfig.AUTH_KEYS, ADMIN + "=t1:admin");
        final RetrieverApp.Handle handle = RetrieverApp.start(kafka.engramConfig(settings));
        RETRIEVERS.add(handle);
        return handle;
    }

    private static void publish(final List<ConversationCompleted> conversations) {
        final List<EmbeddedKafka.Record<String, ConversationCompleted>> records = new ArrayList<>();
        for (final ConversationCompleted c : conversations) {
            records.add(new EmbeddedKafka.Record<>(c.getTenantId() + "/" + c.getUserId(), c, c.getCompletedAt()));
        }
        kafka.send(Topics.CONVERSATIONS_COMPLETED, new StringSerializer(),
            AvroSerdes.serde(ConversationCompleted.class).serializer(), records);
        PUBLISHED.addAll(conversations);
    }

    private static ConversationCompleted conversation(final String user, final String id, final String text,
                                                      final String at) {
        final Instant time = Instant.parse(at);
        return ConversationCompleted.newBuilder().setTenantId("t1").setUserId(user).setConversationId(id)
            .setMessages(List.of(new Message(0, "user", text, time))).setCompletedAt(time).build();
    }

    private static HttpResponse<String> call(final RetrieverApp.Handle on, final String method, final String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(on.baseUrl() + path))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Bearer " + ADMIN).build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static int count(final RetrieverApp.Handle on, final String user) {
        final HttpResponse<String> r = call(on, "GET", "/v1/tenants/t1/users/" + user + "/memories");
        if (r.statusCode() != 200) {
            return -r.statusCode();
        }
        try {
            return JSON.readTree(r.body()).get("count").asInt();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static <V> ReadOnlyKeyValueStore<String, V> store(final KafkaStreams streams, final String name) {
        return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<String, V>keyValueStore()));
    }

    private static List<Memory> scan(final KafkaStreams streams, final String storeName, final UserKey user) {
        final List<Memory> out = new ArrayList<>();
        try (KeyValueIterator<String, Memory> it = PrivacyPipelineIT.<Memory>store(streams, storeName)
            .prefixScan(user.storePrefix(), new StringSerializer())) {
            it.forEachRemaining(kv -> out.add(kv.value));
        }
        return out;
    }

    /** @return true when every group has consumed everything on its input topics */
    private static boolean settled(final Map<String, List<String>> groups) {
        final Admin admin = kafka.admin();
        try {
            for (final Map.Entry<String, List<String>> group : groups.entrySet()) {
                final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group.getKey())
                    .partitionsToOffsetAndMetadata().get();
                final Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
                for (final String topic : group.getValue()) {
                    for (int p = 0; p < 2; p++) {
                        ends.put(new TopicPartition(topic, p), OffsetSpec.latest());
                    }
                }
                final var latest = admin.listOffsets(ends, new org.apache.kafka.clients.admin.ListOffsetsOptions(
                    org.apache.kafka.common.IsolationLevel.READ_COMMITTED)).all().get();
                for (final TopicPartition tp : ends.keySet()) {
                    final long end = latest.get(tp).offset();
                    final OffsetAndMetadata at = committed.get(tp);
                    if (end > 0 && (at == null || at.offset() < end)) {
                        return false;
                    }
                }
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    @Order(1)
    void shouldShowEditDeleteTurnOffAndClearAllInTheMemoryPanel() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
            "Chromium is not installed (apt-get install -y chromium chromium-driver; .ci/run installs them): "
                + "skipping the memory panel browser test");
        publish(List.of(conversation("u-panel", "p-1", "These days I write almost everything in Kotlin.", "2025-03-01T10:00:00Z"),
            conversation("u-panel", "p-2", "I live in Bergen.", "2025-03-02T10:00:00Z"),
            conversation("u-panel", "p-3", "Sushi is my all-time favourite food.", "2025-03-03T10:00:00Z")));
        EmbeddedKafka.waitUntil(() -> count(retriever, "u-panel") >= 3, TIMEOUT, "three memories of u-panel");

        final Path profileDir = Files.createTempDirectory("engram-chromium");
        final ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-dev-shm-usage", "--user-data-dir=" + profileDir);
        final ChromeDriverService service = new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(CHROMEDRIVER.toString())).usingAnyFreePort().build();
        final WebDriver browser = new ChromeDriver(service, options);
        try {
            browser.get(retriever.baseUrl() + "/panel?tenant=t1&user=u-panel");
            browser.findElement(By.id("apiKey")).sendKeys(ADMIN);
            browser.findElement(By.id("load")).click();
            waitFor(() -> browser.findElements(By.cssSelector("li.memory")).size() >= 3, "the memories to show");

            final Set<String> categories = browser.findElements(By.cssSelector("section.category")).stream()
                .map(e -> e.getAttribute("data-category")).collect(Collectors.toSet());
            assertThat(categories).contains("TECHNICAL", "PERSONAL", "PREFERENCE");
            assertThat(browser.findElements(By.cssSelector("li.memory .badge.source-EXPLICIT"))).hasSizeGreaterThanOrEqualTo(3);

            // edit the Kotlin memory
            final WebElement kotlin = memoryContaining(browser, "Kotlin");
            final String kotlinId = kotlin.getAttribute("data-id");
            kotlin.findElement(By.cssSelector("button.edit")).click();
            final WebElement input = browser.findElement(By.cssSelector("li.memory[data-id='" + kotlinId + "'] input.edit-input"));
            input.clear();
            input.sendKeys("Writes almost everything in Scala");
            browser.findElement(By.cssSelector("li.memory[data-id='" + kotlinId + "'] button.save")).click();
            waitFor(() -> !browser.findElements(By.cssSelector("li.memory[data-id='" + kotlinId + "'] .badge.source-CORRECTED")).isEmpty(),
                "the corrected badge");
            assertThat(browser.findElement(By.cssSelector("li.memory[data-id='" + kotlinId + "'] .content")).getText())
                .contains("Scala");

            // delete the Bergen memory
            final WebElement bergen = memoryContaining(browser, "Bergen");
            final String bergenId = bergen.getAttribute("data-id");
            bergen.findElement(By.cssSelector("button.delete")).click();
            waitFor(() -> browser.findElements(By.cssSelector("li.memory[data-id='" + bergenId + "']")).isEmpty(),
                "the deleted memory to disappear");
            assertThat(call(retriever, "GET", "/v1/tenants/t1/users/u-panel/memories/" + bergenId + "/history").statusCode())
                .isEqualTo(404);

            // memory off
            browser.findElement(By.id("memoryEnabled")).click();
            waitFor(() -> browser.findElement(By.id("status")).getText().contains("Memory is off"), "memory off");
            assertThat(JSON.readTree(call(retriever, "GET", "/v1/tenants/t1/users/u-panel/profile").body())
                .get("memoryEnabled").asBoolean()).isFalse();
            final JsonNode hits = JSON.readTree(call(retriever, "GET", "/v1/tenants/t1/users/u-panel/memories?query="
                + URLEncoder.encode("Scala sushi", StandardCharsets.UTF_8)).body());
            assertThat(hits.get("memories")).isEmpty();

            // clear all, after the confirmation
            browser.findElement(By.id("clearAll")).click();
            final Alert confirm = browser.switchTo().alert();
            assertThat(confirm.getText()).contains("Erase everything");
            confirm.accept();
            waitFor(() -> !browser.findElements(By.id("empty")).isEmpty(), "the empty panel");
            assertThat(call(retriever, "GET", "/v1/tenants/t1/users/u-panel/profile").statusCode()).isEqualTo(404);
            assertThat(INDEX.points(new UserKey("t1", "u-panel"))).isEmpty();
        } finally {
            browser.quit();
        }
    }

    private static WebElement memoryContaining(final WebDriver browser, final String text) {
        return browser.findElements(By.cssSelector("li.memory")).stream()
            .filter(e -> e.findElement(By.cssSelector(".content")).getText().contains(text)).findFirst()
            .orElseThrow(() -> new AssertionError("no memory mentions " + text));
    }

    private static void waitFor(final java.util.function.BooleanSupplier condition, final String what) {
        EmbeddedKafka.waitUntil(() -> {
            try {
                return condition.getAsBoolean();
            } catch (org.openqa.selenium.StaleElementReferenceException | org.openqa.selenium.NoSuchElementException e) {
                return false; // the panel re-rendered between two look-ups
            }
        }, Duration.ofSeconds(30), what);
    }

    @Test
    @Order(2)
    void shouldLeaveZeroHitsForAnErasedUserAfterAFullReplayOfAllTopics() throws Exception {
        final UserKey gone = new UserKey("t1", "u-gone");
        final UserKey stay = new UserKey("t1", "u-stay");
        final List<ConversationCompleted> conversations = List.of(
            conversation("u-gone", "c-1", "These days I write almost everything in Kotlin.", "2025-04-01T09:00:00Z"),
            conversation("u-gone", "c-2", "My gym locker code is 4417.", "2025-04-02T09:00:00Z"),
            conversation("u-gone", "c-3", "I live in Bergen.", "2025-04-03T09:00:00Z"),
            conversation("u-stay", "c-1", "I use IntelliJ for everything.", "2025-04-01T09:00:00Z"),
            conversation("u-stay", "c-2", "I live in Bergen.", "2025-04-02T09:00:00Z"));
        publish(conversations);
        EmbeddedKafka.waitUntil(() -> count(retriever, "u-gone") >= 3 && count(retriever, "u-stay") >= 2, TIMEOUT,
            "the memories of both users");
        final int stayCount = count(retriever, "u-stay");
        assertThat(INDEX.points(gone)).isNotEmpty();

        assertThat(call(retriever, "DELETE", "/v1/tenants/t1/users/u-gone").statusCode()).isEqualTo(202);
        EmbeddedKafka.waitUntil(() -> call(retriever, "GET", "/v1/tenants/t1/users/u-gone/profile").statusCode() == 404
            && scan(consolidator1, Stores.MEMORIES, gone).isEmpty(), TIMEOUT, "the erasure");
        assertThat(INDEX.points(gone)).isEmpty();

        // Full replay: the platform re-publishes every conversation, and a second extractor, consolidator and
        // retriever (new application ids, empty state) read every topic from the beginning.
        publish(new ArrayList<>(PUBLISHED));
        final KafkaStreams consolidator2 = startPipeline("2");
        final RetrieverApp.Handle retriever2 = startRetriever(Map.of("kafka.application.id", "engram-retriever-replay"));
        // ready = caught up once since its start: before that a new retriever answers 503 for a user it has not read,
        // which is not yet the 404 of a user it knows nothing about (its latch checks every 100 ms)
        EmbeddedKafka.waitUntil(() -> count(retriever2, "u-stay") == stayCount
                && call(retriever2, "GET", "/health/ready").statusCode() == 200
                && settled(Map.of(
                    Topics.EXTRACTOR_APP + "-1", List.of(Topics.CONVERSATIONS_COMPLETED),
                    Topics.EXTRACTOR_APP + "-2", List.of(Topics.CONVERSATIONS_COMPLETED),
                    Topics.CONSOLIDATOR_APP + "-1", List.of(Topics.MEMORY_CANDIDATES, Topics.MEMORY_COMMANDS),
                    Topics.CONSOLIDATOR_APP + "-2", List.of(Topics.MEMORY_CANDIDATES, Topics.MEMORY_COMMANDS),
                    Topics.RETRIEVER_APP, List.of(Topics.MEMORY_UPDATED),
                    "engram-retriever-replay", List.of(Topics.MEMORY_UPDATED))),
            TIMEOUT, "the replay to be consumed by every app");

        for (final RetrieverApp.Handle r : List.of(retriever, retriever2)) {
            for (final String path : List.of("/profile", "/memories", "/memories?query=locker%20code", "/export",
                "/context?message=Kotlin")) {
                final HttpResponse<String> response = call(r, "GET", "/v1/tenants/t1/users/u-gone" + path);
                assertThat(response.statusCode()).as(path).isEqualTo(404);
                assertThat(response.body()).doesNotContain("4417", "Kotlin", "Bergen");
            }
            assertThat(count(r, "u-stay")).isEqualTo(stayCount);
            final KafkaStreams readModel = r.runner().kafkaStreams();
            assertThat(scan(readModel, Stores.RETRIEVER_MEMORIES, gone)).isEmpty();
            assertThat(PrivacyPipelineIT.<UserProfile>store(readModel, Stores.RETRIEVER_PROFILES).get(gone.wire())).isNull();
        }
        for (final KafkaStreams consolidator : List.of(consolidator1, consolidator2)) {
            assertThat(scan(consolidator, Stores.MEMORIES, gone)).isEmpty();
            assertThat(PrivacyPipelineIT.<UserProfile>store(consolidator, Stores.PROFILES).get(gone.wire())).isNull();
            assertThat(PrivacyPipelineIT.<Long>store(consolidator, Stores.ERASURES).get(gone.wire())).isNotNull();
            assertThat(scan(consolidator, Stores.MEMORIES, stay)).isNotEmpty();
        }
        assertThat(INDEX.points(gone)).isEmpty();
        assertThat(INDEX.points(stay)).isNotEmpty();
        assertThat(INDEX.deletedUsers()).allSatisfy(u -> assertThat(u.userId()).isIn("u-gone", "u-panel"));
    }
}
