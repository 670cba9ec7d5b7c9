package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.FactCategory;
import dev.engram.avro.LlmUsage;
import dev.engram.avro.Memory;
import dev.engram.avro.TenantSettings;
import dev.engram.config.EngramConfig;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.testing.MemoryFixtures;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The tenant admin routes on the in-process broker: {@code PUT /v1/tenants/{t}/settings} writes a version to
 * {@code tenant-settings} (one record per version), {@code GET} reads it back; {@code GET /v1/tenants/{t}/usage} sums the
 * cost ledger {@code llm-usage}; only the tenant's admin keys may. And agent scope: {@code agentId} on a query or
 * context request shows the user's shared memories and that agent's own.
 */
class TenantSettingsApiIT {

    private static final String HEALTH_ADMIN = "health-admin-key-0000001";
    private static final String SHOP_ADMIN = "shop-admin-key-000000002";
    private static final String HEALTH_USER = "health-user-key-00000003";
    private static final String CLINIC_ADMIN = "clinic-admin-key-0000004";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MEDICATIONS = """
        {"categories": [{"name": "medications", "description": "Medicines the user takes, with doses",
          "keywords": ["take", "mg", "amlodipine"], "ttlDays": 365}],
         "instructions": "Keep every dose exactly as said.", "disabledCategories": ["PERSONAL"],
         "dailyTokenBudget": 50000, "effectiveFrom": "2025-01-01T00:00:00Z"}""";

    private static EmbeddedKafka kafka;
    private static RetrieverApp.Handle retriever;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, Topic.allNames());
        retriever = RetrieverApp.start(kafka.engramConfig(Map.of(RetrieverConfig.AUTH_KEYS, HEALTH_ADMIN
            + "=health:admin," + SHOP_ADMIN + "=shop:admin," + HEALTH_USER + "=health:user:u1," + CLINIC_ADMIN
            + "=clinic:admin")));
    }

    @AfterAll
    static void stop() throws Exception {
        if (retriever != null) {
            retriever.close();
        }
        kafka.close();
    }

    private static HttpResponse<String> send(final String method, final String path, final String key,
                                             final String body) throws Exception {
        final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(retriever.baseUrl() + path))
            .timeout(Duration.ofSeconds(60))
            .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
            .header("Authorization", "Bearer " + key);
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldWriteAVersionToTheTopicAndServeItWhenATenantAdminPutsSettings() throws Exception {
        final HttpResponse<String> put = send("PUT", "/v1/tenants/health/settings", HEALTH_ADMIN, MEDICATIONS);

        assertThat(put.statusCode()).as(put.body()).isEqualTo(202);
        final JsonNode got = JSON.readTree(send("GET", "/v1/tenants/health/settings", HEALTH_ADMIN, null).body());
        assertThat(got.get("version").asText()).isEqualTo("2025-01-01T00:00:00Z");
        assertThat(got.get("categories").get(0).get("name").asText()).isEqualTo("medications");
        assertThat(got.get("categories").get(0).get("keywords")).hasSize(3);
        assertThat(got.get("instructions").asText()).isEqualTo("Keep every dose exactly as said.");
        assertThat(got.get("disabledCategories").get(0).asText()).isEqualTo("PERSONAL");
        assertThat(got.get("updatedBy").asText()).startsWith("key:");
        final JsonNode before = JSON.readTree(send("GET", "/v1/tenants/health/settings?asOf=2024-12-31T00:00:00Z",
            HEALTH_ADMIN, null).body());
        assertThat(before.get("version").isNull()).isTrue();
        assertThat(before.get("categories")).isEmpty();

        final List<ConsumerRecord<String, TenantSettings>> records = kafka.read(Topic.TENANT_SETTINGS.name(),
            new StringDeserializer(), Topic.TENANT_SETTINGS.valueDeserializer(EngramConfig.plain()), 1,
            Duration.ofSeconds(30));
        assertThat(records).filteredOn(r -> r.key().startsWith("health/")).singleElement().satisfies(r -> {
            assertThat(r.key()).isEqualTo("health/1735689600000");
            assertThat(r.timestamp()).isEqualTo(Instant.parse("2025-01-01T00:00:00Z").toEpochMilli());
            assertThat(r.value().getCategories().get(0).getTtlDays()).isEqualTo(365);
            assertThat(r.value().getDailyTokenBudget()).isEqualTo(50_000L);
        });
    }

    @Test
    void shouldClearEverySettingInANewVersionWhenATenantAdminPutsAnEmptyObject() throws Exception {
        assertThat(send("PUT", "/v1/tenants/clinic/settings", CLINIC_ADMIN, MEDICATIONS).statusCode()).isEqualTo(202);

        // a PUT is the whole settings (docs/tenants.md): {} is every field empty, the way back to the defaults
        final HttpResponse<String> cleared = send("PUT", "/v1/tenants/clinic/settings", CLINIC_ADMIN, "{}");

        assertThat(cleared.statusCode()).as(cleared.body()).isEqualTo(202);
        final JsonNode now = JSON.readTree(send("GET", "/v1/tenants/clinic/settings", CLINIC_ADMIN, null).body());
        assertThat(now.get("versions").asInt()).isEqualTo(2);
        assertThat(now.get("categories")).isEmpty();
        assertThat(now.get("disabledCategories")).isEmpty();
        assertThat(now.path("dailyTokenBudget").isNull()).isTrue();
        final JsonNode before = JSON.readTree(send("GET", "/v1/tenants/clinic/settings?asOf=2025-06-01T00:00:00Z",
            CLINIC_ADMIN, null).body());
        assertThat(before.get("categories").get(0).get("name").asText()).as("the earlier version stays for replays")
            .isEqualTo("medications");
    }

    @Test
    void shouldRefuseSettingsWhenTheKeyIsAUserKeyOrAnotherTenantsAdmin() throws Exception {
        assertThat(send("PUT", "/v1/tenants/health/settings", HEALTH_USER, MEDICATIONS).statusCode()).isEqualTo(403);
        assertThat(send("PUT", "/v1/tenants/health/settings", SHOP_ADMIN, MEDICATIONS).statusCode()).isEqualTo(403);
        assertThat(send("GET", "/v1/tenants/health/settings", SHOP_ADMIN, null).statusCode()).isEqualTo(403);
        assertThat(send("GET", "/v1/tenants/health/settings", "not-a-known-key-at-all", null).statusCode())
            .isEqualTo(401);
    }

    @Test
    void shouldAnswerAProblemNamingTheFieldWhenSettingsAreInvalid() throws Exception {
        final HttpResponse<String> builtIn = send("PUT", "/v1/tenants/shop/settings", SHOP_ADMIN,
            "{\"categories\": [{\"name\": \"personal\", \"description\": \"x\"}]}");
        final HttpResponse<String> unknown = send("PUT", "/v1/tenants/shop/settings", SHOP_ADMIN,
            "{\"categories\": [], \"retention\": 30}");
        final HttpResponse<String> disabled = send("PUT", "/v1/tenants/shop/settings", SHOP_ADMIN,
            "{\"disabledCategories\": [\"HOBBIES\"]}");

        for (final HttpResponse<String> response : List.of(builtIn, unknown, disabled)) {
            assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        }
        assertThat(JSON.readTree(builtIn.body()).get("detail").asText()).contains("\"personal\" is a built-in category");
        assertThat(JSON.readTree(unknown.body()).get("detail").asText()).contains("unknown field retention");
        assertThat(JSON.readTree(disabled.body()).get("detail").asText()).contains("HOBBIES");
        // a whole number beyond the field's range names the range, whatever its size
        assertThat(detail("{\"retentionDays\": 99999999999}")).isEqualTo("retentionDays must be within 0..36500, was 99999999999");
        assertThat(detail("{\"retentionDays\": 40000}")).isEqualTo("retentionDays must be within 0..36500");
        assertThat(detail("{\"retentionDays\": 1.5}")).isEqualTo("retentionDays must be a whole number within 0..36500, was 1.5");
        assertThat(detail("{\"categories\": [{\"name\": \"meds\", \"description\": \"x\", \"ttlDays\": 2.5}]}"))
            .isEqualTo("categories[].ttlDays must be a whole number within 0..36500, was 2.5");
        assertThat(detail("{\"dailyTokenBudget\": 100000000000000000000000}"))
            .isEqualTo("dailyTokenBudget must be within 0..1000000000000, was 100000000000000000000000");
        assertThat(detail("{\"dailyTokenBudget\": 1000000000001}"))
            .isEqualTo("dailyTokenBudget must be at most 1000000000000 (tokens per UTC day)");
        // a version is keyed by its 13-digit epoch ms: beyond it was a 500 with a stack trace (README trial)
        assertThat(detail("{\"effectiveFrom\": \"9999-01-01T00:00:00Z\"}"))
            .isEqualTo("effectiveFrom must not be after 2286-11-20T17:46:39.999Z, was 9999-01-01T00:00:00Z");
        assertThat(detail("{\"effectiveFrom\": \"+1000000000-12-31T23:59:59Z\"}"))
            .startsWith("effectiveFrom must not be after 2286-11-20T17:46:39.999Z");
        assertThat(detail("{\"effectiveFrom\": \"-1000000000-01-01T00:00:00Z\"}"))
            .isEqualTo("effectiveFrom must not be before 1970-01-01T00:00:00Z");
        assertThat(JSON.readTree(send("GET", "/v1/tenants/shop/settings", SHOP_ADMIN, null).body()).get("versions")
            .asInt()).isZero();
    }

    private static String detail(final String settings) throws Exception {
        final HttpResponse<String> response = send("PUT", "/v1/tenants/shop/settings", SHOP_ADMIN, settings);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        return JSON.readTree(response.body()).get("detail").asText();
    }

    @Test
    void shouldSumTheLedgerPerDayWhenATenantAdminAsksForUsage() throws Exception {
        final Instant now = Instant.now();
        final List<EmbeddedKafka.Record<String, LlmUsage>> records = List.of(
            usage("health", "travel", "c-1", 2, 300, 40, 0.0012, now),
            usage("health", null, "c-2", 1, 150, 25, 0.0006, now),
            usage("health", "travel", "c-old", 1, 100, 10, 0.0003, now.minus(Duration.ofDays(40))),
            usage("shop", null, "c-3", 5, 900, 90, 0.01, now));
        kafka.send(Topic.LLM_USAGE.name(), new StringSerializer(), Topic.LLM_USAGE.valueSerializer(EngramConfig.plain()),
            records);

        EmbeddedKafka.waitUntil(() -> {
            try {
                return JSON.readTree(send("GET", "/v1/tenants/health/usage", HEALTH_ADMIN, null).body())
                    .path("total").path("calls").asInt() == 3;
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(120), "the retriever to read llm-usage");
        final JsonNode health = JSON.readTree(send("GET", "/v1/tenants/health/usage?days=7", HEALTH_ADMIN, null).body());

        assertThat(health.get("days")).hasSize(1);
        // the window asked for, not the days with spending: from is 6 days before to (today counted)
        final java.time.LocalDate to = java.time.LocalDate.parse(health.get("to").asText());
        assertThat(java.time.LocalDate.parse(health.get("from").asText())).isEqualTo(to.minusDays(6));
        final JsonNode month = JSON.readTree(send("GET", "/v1/tenants/health/usage", HEALTH_ADMIN, null).body());
        assertThat(java.time.LocalDate.parse(month.get("from").asText()))
            .isEqualTo(java.time.LocalDate.parse(month.get("to").asText()).minusDays(29));
        assertThat(health.get("total").get("promptTokens").asLong()).isEqualTo(450);
        assertThat(health.get("total").get("completionTokens").asLong()).isEqualTo(65);
        assertThat(health.get("total").get("conversations").asLong()).isEqualTo(2);
        assertThat(health.get("total").get("estimatedCostUsd").asDouble()).isCloseTo(0.0018,
            org.assertj.core.data.Offset.offset(1e-9));
        assertThat(health.get("tokensToday").asLong()).isEqualTo(515);
        assertThat(health.get("agents").get("travel").get("promptTokens").asLong()).isEqualTo(300);
        assertThat(health.get("agents").get("").get("promptTokens").asLong()).isEqualTo(150);
        assertThat(send("GET", "/v1/tenants/health/usage", SHOP_ADMIN, null).statusCode()).isEqualTo(403);
        assertThat(send("GET", "/v1/tenants/health/usage", HEALTH_USER, null).statusCode()).isEqualTo(403);
    }

    private static EmbeddedKafka.Record<String, LlmUsage> usage(final String tenant, final String agent,
                                                                final String conversation, final int calls,
                                                                final long prompt, final long completion,
                                                                final double cost, final Instant at) {
        return new EmbeddedKafka.Record<>(tenant, LlmUsage.newBuilder().setTenantId(tenant).setAgentId(agent)
            .setConversationId(conversation).setExtractor("llm:stub:extract-v1").setCalls(calls).setPromptTokens(prompt)
            .setCompletionTokens(completion).setEstimatedCostUsd(cost).setOccurredAt(at).setEventTime(at).build(), at);
    }

    @Test
    void shouldShowAnAgentItsOwnAndTheSharedMemoriesWhenItAsksWithItsAgentId() throws Exception {
        final Instant at = Instant.parse("2025-05-01T08:00:00Z");
        final Memory city = Memory.newBuilder(MemoryFixtures.fact("health", "u-agents", "m-city", FactCategory.PERSONAL,
            "city", "Braga", "Lives in Braga", at)).build();
        final Memory trip = MemoryFixtures.memory("health", "u-agents", "m-trip", "Planning a trip to Kyoto in April",
            at.plusSeconds(1)).setAgentId("travel").build();
        final Memory code = MemoryFixtures.memory("health", "u-agents", "m-code",
            "Rewriting the billing service with Kotlin coroutines", at.plusSeconds(2)).setAgentId("coding").build();
        kafka.send(Topic.MEMORY_UPDATED.name(), new StringSerializer(),
            Topic.MEMORY_UPDATED.valueSerializer(EngramConfig.plain()), List.of(city, trip, code).stream()
                .map(m -> new EmbeddedKafka.Record<>("health/u-agents",
                    MemoryFixtures.updated(m, dev.engram.avro.UpdateOperation.CREATED, m.getCreatedAt()), m.getCreatedAt()))
                .toList());
        final String user = "/v1/tenants/health/users/u-agents";
        EmbeddedKafka.waitUntil(() -> {
            try {
                return JSON.readTree(send("GET", user + "/memories", HEALTH_ADMIN, null).body()).path("count").asInt() == 3;
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(120), "the retriever to hold the three memories");

        final String billing = "How is the billing service rewrite with Kotlin coroutines going?";
        final JsonNode coding = JSON.readTree(send("GET", user + "/memories?agentId=coding", HEALTH_ADMIN, null).body());
        final JsonNode all = JSON.readTree(send("GET", user + "/memories?query=billing%20Kyoto%20Braga&k=5"
            + "&recordAccess=false", HEALTH_ADMIN, null).body());

        assertThat(context(user, "When is my trip to Kyoto?", "travel")).contains("m-trip");
        assertThat(context(user, billing, null)).contains("m-code");
        assertThat(context(user, billing, "travel")).doesNotContain("m-code");
        assertThat(context(user, "Which city do I live in?", "coding")).contains("m-city");
        assertThat(context(user, "Which city do I live in?", "travel")).contains("m-city");
        assertThat(coding.get("memories").findValuesAsText("memoryId")).containsExactlyInAnyOrder("m-city", "m-code");
        assertThat(all.get("memories").findValuesAsText("memoryId")).contains("m-city", "m-trip", "m-code");
        assertThat(all.get("memories").findValuesAsText("agentId")).contains("travel", "coding");
    }

    /** The ids of the memories a context block includes (not reported as access). */
    private static List<String> context(final String user, final String message, final String agent) throws Exception {
        final JsonNode block = JSON.readTree(send("GET", user + "/context?recordAccess=false&message="
            + java.net.URLEncoder.encode(message, java.nio.charset.StandardCharsets.UTF_8)
            + (agent == null ? "" : "&agentId=" + agent), HEALTH_ADMIN, null).body());
        final List<String> ids = new java.util.ArrayList<>();
        block.path("memoryIds").forEach(id -> ids.add(id.asText()));
        return ids;
    }
}
