package dev.engram.retriever;

import static dev.engram.testing.MemoryFixtures.fact;
import static dev.engram.testing.MemoryFixtures.memory;
import static dev.engram.testing.MemoryFixtures.updated;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryAccessed;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.serde.AvroSerdes;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.topology.Topics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The retrieval API on the in-process broker: MemoryUpdated records with real MiniLM embeddings are
 * published to memory-updated (the consolidator's output is fed, the consolidator itself is not run),
 * and the retriever's HTTP answers are checked, including case-05's retrieval part.
 */
class RetrieverApiIT {

    private static final Instant T0 = Instant.parse("2025-04-01T07:00:00Z");
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    private static EmbeddedKafka kafka;
    private static RetrieverApp.Handle retriever;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, Topics.all());
        final EngramConfig config = kafka.engramConfig(Map.of());
        retriever = RetrieverApp.start(config);

        // case-05: two users of one tenant, same conversation id c-1
        final Memory locker = memory("t1", "u-ana", "m-ana-locker", "My gym locker code is 4417.", T0)
            .setSources(List.of(dev.engram.avro.SourceRef.newBuilder().setConversationId("c-1")
                .setMessageIndexes(List.of(0)).setObservedAt(T0).build())).setImportance(0.6).build();
        final Memory kotlin = fact("t1", "u-ana", "m-ana-kotlin", FactCategory.TECHNICAL, "preferred_language",
            "Kotlin", "Prefers Kotlin for backend work", T0.plusSeconds(60));
        final Memory style = Memory.newBuilder(memory("t1", "u-ana", "m-ana-style",
            "Wants short answers with code examples", T0.plusSeconds(120)).build())
            .setType(MemoryType.PROCEDURAL).setKey("response_style").setValue("short").build();
        final Memory oldCity = Memory.newBuilder(fact("t1", "u-ana", "m-ana-porto", FactCategory.PERSONAL, "city",
            "Porto", "Lives in Porto", T0)).setStatus(MemoryStatus.ARCHIVED).setSupersededBy("m-ana-lisbon").build();
        final Memory chess = memory("t1", "u-ben", "m-ben-chess", "Plays chess on Sundays", T0.plusSeconds(300))
            .setSources(List.of(dev.engram.avro.SourceRef.newBuilder().setConversationId("c-1")
                .setMessageIndexes(List.of(0)).setObservedAt(T0).build())).build();
        final List<EmbeddedKafka.Record<String, MemoryUpdated>> records = new ArrayList<>();
        for (final MemoryUpdated event : List.of(updated(locker, UpdateOperation.CREATED, T0),
            updated(kotlin, UpdateOperation.CREATED, T0.plusSeconds(60)),
            updated(style, UpdateOperation.CREATED, T0.plusSeconds(120)),
            updated(oldCity, UpdateOperation.SUPERSEDED, T0.plusSeconds(130)),
            updated(chess, UpdateOperation.CREATED, T0.plusSeconds(300)))) {
            records.add(new EmbeddedKafka.Record<>(event.getTenantId() + "/" + event.getUserId(), event,
                event.getEventTime()));
        }
        kafka.send(Topics.MEMORY_UPDATED, new StringSerializer(), AvroSerdes.serde(MemoryUpdated.class).serializer(),
            records);
        EmbeddedKafka.waitUntil(() -> status("/v1/tenants/t1/users/u-ana/memories") == 200
                && status("/v1/tenants/t1/users/u-ben/memories") == 200
                && body("/v1/tenants/t1/users/u-ana/memories").get("count").asInt() == 4,
            TIMEOUT, "the retriever to serve both users");
    }

    @AfterAll
    static void stop() throws Exception {
        if (retriever != null) {
            retriever.close();
        }
        kafka.close();
    }

    private static HttpResponse<String> get(final String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(retriever.baseUrl() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static int status(final String path) {
        return get(path).statusCode();
    }

    private static JsonNode body(final String path) {
        try {
            return JSON.readTree(get(path).body());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String q(final String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private static JsonNode assertProblem(final HttpResponse<String> response, final int status) throws Exception {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
            t -> assertThat(t).startsWith("application/problem+json"));
        final JsonNode problem = JSON.readTree(response.body());
        assertThat(problem.has("type")).isTrue();
        assertThat(problem.has("title")).isTrue();
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("detail").asText()).isNotBlank().doesNotContain("Exception").doesNotContain("\tat ");
        return problem;
    }

    @Test
    void shouldReturnNoMemoryOfAnotherUserWhenConversationIdsCollide() throws Exception {
        // case-05: u-ben asks for "locker code" and gets 0 memories, although u-ana's memory matches
        final HttpResponse<String> ben = get("/v1/tenants/t1/users/u-ben/memories?query=" + q("locker code"));
        assertThat(ben.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(ben.body()).get("memories")).isEmpty();

        final JsonNode ana = body("/v1/tenants/t1/users/u-ana/memories?query=" + q("locker code") + "&k=5");
        assertThat(ana.get("memories")).isNotEmpty();
        assertThat(ana.get("memories").get(0).get("memoryId").asText()).isEqualTo("m-ana-locker");
        assertThat(ana.get("memories").get(0).get("content").asText()).contains("4417");

        // u-ben's view lists nothing of u-ana
        final JsonNode view = body("/v1/tenants/t1/users/u-ben/memories");
        assertThat(view.get("count").asInt()).isEqualTo(1);
        assertThat(view.get("memories")).allSatisfy(m -> {
            assertThat(m.get("memoryId").asText()).startsWith("m-ben");
            assertThat(m.get("content").asText()).doesNotContain("4417");
        });
    }

    @Test
    void shouldRejectBlankOrMissingUserInsteadOfTreatingItAsAWildcard() throws Exception {
        assertProblem(get("/v1/tenants/t1/users/%20/memories?query=" + q("locker code")), 400);
        assertProblem(get("/v1/tenants/t1/users/%20/memories"), 400);
        assertProblem(get("/v1/tenants/t1/users//memories?query=" + q("locker code")), 400);
        assertProblem(get("/v1/tenants/%20/users/u-ana/memories"), 400);
        assertProblem(get("/v1/tenants//users/u-ana/profile"), 400);
        assertProblem(get("/v1/tenants/t1/users/%20/context?message=" + q("locker")), 400);
    }

    @Test
    void shouldCarryScoreComponentsAndSourcesWhenQueried() throws Exception {
        final JsonNode hit = body("/v1/tenants/t1/users/u-ana/memories?query=" + q("what is my locker code"))
            .get("memories").get(0);
        final List<String> fields = new ArrayList<>();
        hit.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactly("memoryId", "type", "category", "key", "value", "content", "score",
            "components", "sources", "status", "reinforcementCount", "createdAt", "updatedAt");
        final JsonNode c = hit.get("components");
        assertThat(hit.get("score").asDouble()).isCloseTo(0.4 * c.get("semantic").asDouble()
            + 0.2 * c.get("recency").asDouble() + 0.3 * c.get("importance").asDouble()
            + 0.1 * c.get("access").asDouble(), org.assertj.core.api.Assertions.within(1e-5));
        assertThat(c.get("importance").asDouble()).isEqualTo(0.6);
        assertThat(hit.get("sources").get(0).get("conversationId").asText()).isEqualTo("c-1");
        assertThat(hit.get("sources").get(0).get("messageIndexes").get(0).asInt()).isZero();
        assertThat(hit.get("status").asText()).isEqualTo("ACTIVE");
        assertThat(hit.get("createdAt").asText()).isEqualTo("2025-04-01T07:00:00Z");
    }

    @Test
    void shouldNeverReturnArchivedMemoriesWhenQueriedButListThemInTheView() throws Exception {
        final JsonNode hits = body("/v1/tenants/t1/users/u-ana/memories?query=" + q("where does she live, Porto?"));
        assertThat(hits.get("memories")).noneSatisfy(h -> assertThat(h.get("memoryId").asText()).isEqualTo("m-ana-porto"));
        final JsonNode archived = body("/v1/tenants/t1/users/u-ana/memories?status=archived");
        assertThat(archived.get("count").asInt()).isEqualTo(1);
        assertThat(archived.get("memories").get(0).get("supersededBy").asText()).isEqualTo("m-ana-lisbon");
        final JsonNode semantic = body("/v1/tenants/t1/users/u-ana/memories?type=SEMANTIC&status=ACTIVE");
        assertThat(semantic.get("memories")).extracting(m -> m.get("memoryId").asText()).containsExactly("m-ana-kotlin");
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?status=FORGOTTEN"), 400);
    }

    @Test
    void shouldAnswer404WhenTheUserIsUnknown() throws Exception {
        assertProblem(get("/v1/tenants/t1/users/u-nobody/memories?query=" + q("locker code")), 404);
        assertProblem(get("/v1/tenants/t1/users/u-nobody/profile"), 404);
        assertProblem(get("/v1/tenants/t2/users/u-ana/memories"), 404);
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories/no-such-id/history"), 404);
        assertProblem(get("/v1/nothing-here"), 404);
    }

    @Test
    void shouldAnswer400WhenKIsBad() throws Exception {
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?query=code&k=abc"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?query=code&k=0"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?query=code&k=-3"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?query=code&k=101"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?query=%20"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/context?message=code&budgetTokens=lots"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/context"), 400);
        assertThat(body("/v1/tenants/t1/users/u-ana/memories?query=code&k=1").get("memories")).hasSize(1);
    }

    @Test
    void shouldReportEveryHitOnMemoryAccessWhenQueried() {
        final JsonNode hits = body("/v1/tenants/t1/users/u-ana/memories?query=" + q("gym locker code 4417"));
        assertThat(hits.get("memories")).isNotEmpty();
        final List<String> returned = new ArrayList<>();
        hits.get("memories").forEach(h -> returned.add(h.get("memoryId").asText()));

        final List<ConsumerRecord<String, MemoryAccessed>> accesses = new ArrayList<>();
        EmbeddedKafka.waitUntil(() -> {
            accesses.clear();
            accesses.addAll(kafka.read(Topics.MEMORY_ACCESS, new StringDeserializer(),
                AvroSerdes.serde(MemoryAccessed.class).deserializer(), 1, Duration.ofSeconds(5)));
            return accesses.stream().anyMatch(r -> r.value().getMemoryIds().equals(returned));
        }, TIMEOUT, "a memory-access record with the returned ids");
        final ConsumerRecord<String, MemoryAccessed> record = accesses.stream()
            .filter(r -> r.value().getMemoryIds().equals(returned)).findFirst().orElseThrow();
        assertThat(record.key()).isEqualTo("t1/u-ana");
        assertThat(record.value().getTenantId()).isEqualTo("t1");
        assertThat(record.value().getUserId()).isEqualTo("u-ana");
    }

    @Test
    void shouldServeTheProfileGroupedByCategory() {
        final JsonNode profile = body("/v1/tenants/t1/users/u-ana/profile");
        assertThat(profile.get("activeMemories").asInt()).isEqualTo(3);
        assertThat(profile.get("archivedMemories").asInt()).isEqualTo(1);
        assertThat(profile.get("memoryEnabled").asBoolean()).isTrue();
        assertThat(profile.get("facts").get("TECHNICAL").get(0).get("value").asText()).isEqualTo("Kotlin");
        assertThat(profile.get("facts").has("PERSONAL")).isFalse();
        assertThat(profile.get("firstInteractionAt").asText()).isEqualTo("2025-04-01T07:00:00Z");
    }

    @Test
    void shouldBuildAContextBlockWithinTheBudget() {
        final JsonNode context = body("/v1/tenants/t1/users/u-ana/context?message="
            + q("Can you show me some Kotlin code for my gym locker app?") + "&budgetTokens=200");
        assertThat(context.get("estimatedTokens").asInt()).isBetween(1, 200);
        assertThat(context.get("context").asText()).contains("Kotlin");
        assertThat(context.get("memoryIds")).isNotEmpty();

        final JsonNode tiny = body("/v1/tenants/t1/users/u-ana/context?message=" + q("Kotlin") + "&budgetTokens=12");
        assertThat(tiny.get("estimatedTokens").asInt()).isLessThanOrEqualTo(12);
    }

    @Test
    void shouldServeTheCurrentVersionAsHistory() {
        final JsonNode history = body("/v1/tenants/t1/users/u-ana/memories/m-ana-kotlin/history");
        assertThat(history.get("versions")).hasSize(1);
        assertThat(history.get("versions").get(0).get("value").asText()).isEqualTo("Kotlin");
        // another user's memory id is not found through this user
        assertThat(status("/v1/tenants/t1/users/u-ben/memories/m-ana-kotlin/history")).isEqualTo(404);
    }

    @Test
    void shouldBeReadyAndExposeKafkaStreamsMetricsWhenRunning() {
        assertThat(status("/health/ready")).isEqualTo(200);
        assertThat(status("/health/live")).isEqualTo(200);
        final String metrics = get("/metrics").body();
        assertThat(metrics).contains("kafka_stream").contains("application=\"engram-retriever\"")
            .contains("engram_retrieval_requests_seconds");
    }
}
