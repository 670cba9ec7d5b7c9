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
import dev.engram.topology.StoreNames;
import dev.engram.topology.StreamsSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

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
        kafka.createTopics(2, Topic.allNames());
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
            StreamsSettings.forApp(config, AppIds.EXTRACTOR + "-" + run));
        final KafkaStreams consolidator = new KafkaStreams(
            ConsolidationTopology.build(config, new KeyValueContradictionJudge(), INDEX, new SimpleMeterRegistry()),
            StreamsSettings.forApp(kafka.engramConfig(Map.of()), AppIds.CONSOLIDATOR + "-" + run));
        STREAMS.add(extractor);
        STREAMS.add(consolidator);
        extractor.start();
        consolidator.start();
        return consolidator;
    }

    private static RetrieverApp.Handle startRetriever(final Map<String, Object> extra) {
        final Map<String, Object> settings = new HashMap<>(extra);
        settings.put(RetrieverConfig.AUTH_KEYS, ADMIN + "=t1:admin");
        final RetrieverApp.Handle handle = RetrieverApp.start(kafka.engramConfig(settings));
        RETRIEVERS.add(handle);
        return handle;
    }

    private static void publish(final List<ConversationCompleted> conversations) {
        final List<EmbeddedKafka.Record<String, ConversationCompleted>> records = new ArrayList<>();
        for (final ConversationCompleted c : conversations) {
            records.add(new EmbeddedKafka.Record<>(c.getTenantId() + "/" + c.getUserId(), c, c.getCompletedAt()));
        }
        kafka.send(Topic.CONVERSATIONS_COMPLETED.name(), new StringSerializer(),
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
        return groups.entrySet().stream().allMatch(g -> kafka.consumed(g.getKey(), g.getValue(), 2));
    }

    @Test
    @Order(1)
    void shouldShowEditDeleteTurnOffAndClearAllInTheMemoryPanel() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
            "Chromium is not installed (apt-get install -y chromium chromium-driver; .ci/run installs them): "
                + "skipping the memory panel browser test");
        publish(List.of(conversation("u-panel", "p-1", "These days I write almost everything in Kotlin.", "2025-03-01T10:00:00Z"),
            conversation("u-panel", "p-2", "I live in Bergen.", "2025-03-02T10:00:00Z"),
            conversation("u-panel", "p-3", "Sushi is my all-time favourite food.", "2025-03-03T10:00:00Z"),
            ConversationCompleted.newBuilder().setTenantId("t1").setUserId("u-panel").setConversationId("p-4")
                .setMessages(List.of(new Message(0, "user", "Hi, my name is Tove.", Instant.parse("2025-03-04T10:00:00Z")),
                    new Message(1, "assistant", "Nice to meet you, Tove!", Instant.parse("2025-03-04T10:00:20Z"))))
                .setCompletedAt(Instant.parse("2025-03-04T10:00:20Z")).build()));
        EmbeddedKafka.waitUntil(() -> count(retriever, "u-panel") >= 5, TIMEOUT, "the memories of u-panel");

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
            browser.get(retriever.baseUrl() + "/panel");
            assertThat(browser.findElement(By.id("clearAll")).isDisplayed()).as("no user: nothing to clear").isFalse();
            browser.get(retriever.baseUrl() + "/panel?tenant=t1&user=u-panel");
            browser.findElement(By.id("apiKey")).sendKeys(ADMIN);
            browser.findElement(By.id("load")).click();
            waitFor(() -> browser.findElements(By.cssSelector("li.memory")).size() >= 5, "the memories to show");
            assertThat(browser.findElement(By.id("clearAll")).isDisplayed()).isTrue();
            // the assistant's reply is not the user's own statement, and a fact's name is not said twice
            final WebElement exchange = memoryContaining(browser, "Nice to meet you");
            assertThat(exchange.findElement(By.cssSelector(".badge")).getAttribute("class")).contains("source-ASSISTANT")
                .doesNotContain("source-EXPLICIT");
            assertThat(memoryContaining(browser, "Tove").getText()).doesNotContain("Name: Name");
            assertThat(browser.findElements(By.cssSelector("li.memory .content"))).allSatisfy(c -> {
                final String[] parts = c.getText().split(": ", 2);
                assertThat(parts.length == 2 && parts[1].toLowerCase().startsWith(parts[0].toLowerCase()))
                    .as(c.getText()).isFalse();
            });

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
            // a keyed fact: content and value change together; a content that no longer names the value is refused
            // (400 naming both) and the panel says so, leaving the memory as it was
            browser.findElement(By.cssSelector("li.memory[data-id='" + kotlinId + "'] button.save")).click();
            waitFor(() -> browser.findElement(By.id("status")).getText().contains("does not name the corrected value"), "the refusal naming the value");
            final WebElement value = browser.findElement(By.cssSelector("li.memory[data-id='" + kotlinId + "'] input.edit-value"));
            value.clear();
            value.sendKeys("Scala");
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
            && scan(consolidator1, StoreNames.MEMORIES, gone).isEmpty(), TIMEOUT, "the erasure");
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
                    AppIds.EXTRACTOR + "-1", List.of(Topic.CONVERSATIONS_COMPLETED.name()),
                    AppIds.EXTRACTOR + "-2", List.of(Topic.CONVERSATIONS_COMPLETED.name()),
                    AppIds.CONSOLIDATOR + "-1", List.of(Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_COMMANDS.name()),
                    AppIds.CONSOLIDATOR + "-2", List.of(Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_COMMANDS.name()),
                    AppIds.RETRIEVER, List.of(Topic.MEMORY_UPDATED.name()),
                    "engram-retriever-replay", List.of(Topic.MEMORY_UPDATED.name()))),
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
            assertThat(scan(readModel, StoreNames.RETRIEVER_MEMORIES, gone)).isEmpty();
            assertThat(PrivacyPipelineIT.<UserProfile>store(readModel, StoreNames.RETRIEVER_PROFILES).get(gone.wire())).isNull();
        }
        for (final KafkaStreams consolidator : List.of(consolidator1, consolidator2)) {
            assertThat(scan(consolidator, StoreNames.MEMORIES, gone)).isEmpty();
            assertThat(PrivacyPipelineIT.<UserProfile>store(consolidator, StoreNames.PROFILES).get(gone.wire())).isNull();
            assertThat(PrivacyPipelineIT.<Long>store(consolidator, StoreNames.ERASURES).get(gone.wire())).isNotNull();
            assertThat(scan(consolidator, StoreNames.MEMORIES, stay)).isNotEmpty();
        }
        assertThat(INDEX.points(gone)).isEmpty();
        assertThat(INDEX.points(stay)).isNotEmpty();
        assertThat(INDEX.deletedUsers()).allSatisfy(u -> assertThat(u.userId()).isIn("u-gone", "u-panel"));
    }
}
