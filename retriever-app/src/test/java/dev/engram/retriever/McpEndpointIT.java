package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The retriever's MCP endpoint driven by the MCP Java SDK's own client over streamable HTTP: the tools are
 * listed, a user's key gets that user's context, another user's key gets nothing of it (the tool answers the
 * API's 403), and a request without a key is refused.
 */
class McpEndpointIT {

    private static TwoUserRetriever fixture;

    @BeforeAll
    static void start() {
        fixture = TwoUserRetriever.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static McpSyncClient client(final String key) {
        final HttpRequest.Builder request = HttpRequest.newBuilder();
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        final McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder(fixture.baseUrl())
                .endpoint(McpEndpoint.PATH).requestBuilder(request).build())
            .requestTimeout(Duration.ofSeconds(30)).build();
        client.initialize();
        return client;
    }

    private static String text(final McpSchema.CallToolResult result) {
        return result.content().stream().map(c -> ((McpSchema.TextContent) c).text()).reduce("", String::concat);
    }

    @Test
    void shouldListTheMemoryTools() {
        try (McpSyncClient client = client(TwoUserRetriever.ANA_KEY)) {
            final List<McpSchema.Tool> tools = client.listTools().tools();

            assertThat(tools).extracting(McpSchema.Tool::name).containsExactlyInAnyOrder(McpEndpoint.SEARCH,
                McpEndpoint.CONTEXT, McpEndpoint.LIST, McpEndpoint.CORRECT, McpEndpoint.DELETE,
                McpEndpoint.SAVE_CONVERSATION);
            assertThat(tools).allSatisfy(tool -> assertThat(tool.outputSchema()).as(tool.name())
                .containsEntry("type", "object").containsKey("required"));
            assertThat(tools).allSatisfy(tool -> assertThat(((Map<?, ?>) tool.inputSchema().get("properties")).keySet())
                .map(Object::toString).contains("tenantId", "userId"));
            assertThat(tools).filteredOn(t -> t.name().equals(McpEndpoint.CONTEXT)).singleElement()
                .satisfies(t -> assertThat((List<?>) t.inputSchema().get("required")).map(Object::toString).containsExactly("message"));
        }
    }

    @Test
    void shouldGetTheContextOfTheKeysUserAndNothingWithAnotherUsersKey() {
        try (McpSyncClient ana = client(TwoUserRetriever.ANA_KEY); McpSyncClient ben = client(TwoUserRetriever.BEN_KEY)) {
            final McpSchema.CallToolResult own = ana.callTool(new McpSchema.CallToolRequest(McpEndpoint.CONTEXT,
                Map.of("message", "Which language should the new service use?")));
            assertThat(own.isError()).as(text(own)).isFalse();
            assertThat(text(own)).contains("Kotlin");
            assertThat(own.structuredContent()).isInstanceOfSatisfying(Map.class,
                body -> assertThat(body.get("userId")).isEqualTo("u-ana"));

            final McpSchema.CallToolResult other = ben.callTool(new McpSchema.CallToolRequest(McpEndpoint.CONTEXT,
                Map.of("tenantId", "t1", "userId", "u-ana", "message", "Which language should the new service use?")));
            assertThat(other.isError()).isTrue();
            assertThat(text(other)).startsWith("403").doesNotContain("Kotlin");
            for (final McpSchema.CallToolRequest call : List.of(
                new McpSchema.CallToolRequest(McpEndpoint.SEARCH, Map.of("tenantId", "t1", "userId", "u-ana", "query", "language")),
                new McpSchema.CallToolRequest(McpEndpoint.LIST, Map.of("tenantId", "t1", "userId", "u-ana")))) {
                final McpSchema.CallToolResult result = ben.callTool(call);
                assertThat(result.isError()).isTrue();
                assertThat(text(result)).startsWith("403").doesNotContain("Kotlin").doesNotContain("Lisbon");
            }
            final McpSchema.CallToolResult delete = ben.callTool(new McpSchema.CallToolRequest(McpEndpoint.DELETE,
                Map.of("tenantId", "t1", "userId", "u-ana", "memoryId", "m-ana-kotlin")));
            assertThat(delete.isError()).isTrue();
            assertThat(text(delete)).startsWith("403");

            final McpSchema.CallToolResult bensOwn = ben.callTool(new McpSchema.CallToolRequest(McpEndpoint.SEARCH,
                Map.of("query", "what do I like to do on weekends", "k", 3)));
            assertThat(bensOwn.isError()).as(text(bensOwn)).isFalse();
            assertThat(text(bensOwn)).contains("chess").doesNotContain("Kotlin").doesNotContain("Lisbon");
        }
    }

    @Test
    void shouldListCorrectAndDeleteThroughTheApiWithAnAdminKey() {
        try (McpSyncClient admin = client(TwoUserRetriever.ADMIN_KEY)) {
            final McpSchema.CallToolResult list = admin.callTool(new McpSchema.CallToolRequest(McpEndpoint.LIST,
                Map.of("userId", "u-ana")));
            assertThat(list.isError()).as(text(list)).isFalse();
            assertThat(text(list)).contains("m-ana-kotlin", "m-ana-city");

            final McpSchema.CallToolResult missingUser = admin.callTool(new McpSchema.CallToolRequest(McpEndpoint.LIST, Map.of()));
            assertThat(missingUser.isError()).isTrue();
            assertThat(text(missingUser)).contains("userId");
            final McpSchema.CallToolResult unknown = admin.callTool(new McpSchema.CallToolRequest(McpEndpoint.CORRECT,
                Map.of("userId", "u-ana", "memoryId", "m-none", "content", "Lives in Braga")));
            assertThat(unknown.isError()).isTrue();
            assertThat(text(unknown)).startsWith("404");
            final McpSchema.CallToolResult correct = admin.callTool(new McpSchema.CallToolRequest(McpEndpoint.CORRECT,
                Map.of("userId", "u-ana", "memoryId", "m-ana-city", "content", "Lives in Braga", "value", "Braga")));
            assertThat(correct.isError()).as(text(correct)).isFalse();
            assertThat(correct.structuredContent()).isInstanceOfSatisfying(Map.class,
                body -> assertThat(body.get("kind")).isEqualTo("CORRECT"));
        }
    }

    /**
     * A model reading a user's memories through MCP sees what a correction replaced (Graz before the PUT of Vienna):
     * {@code list_memories} and {@code search_memories} carry {@code formerValues} in the text and in the structured
     * content, which the SDK has checked against the tool's output schema.
     */
    @Test
    void shouldShowTheValueACorrectionReplacedInTheListAndSearchTools() {
        final java.time.Instant corrected = TwoUserRetriever.T0.plus(Duration.ofDays(6));
        final dev.engram.avro.Memory vienna = dev.engram.avro.Memory.newBuilder(dev.engram.testing.MemoryFixtures.fact(
                "t1", "u-dora", "m-dora-city", dev.engram.avro.FactCategory.PERSONAL, "city", "Vienna", "Lives in Vienna",
                TwoUserRetriever.T0)).setSource(dev.engram.avro.MemorySource.CORRECTED).setUpdatedAt(corrected)
            .setFormerValues(List.of(dev.engram.avro.FormerValue.newBuilder().setValue("Graz").setContent("Lives in Graz")
                .setCorrectedAt(corrected).build())).build();
        fixture.kafka().send(dev.engram.topics.Topic.MEMORY_UPDATED.name(),
            new org.apache.kafka.common.serialization.StringSerializer(),
            dev.engram.serde.AvroSerdes.serde(dev.engram.avro.MemoryUpdated.class).serializer(),
            List.of(new dev.engram.testing.EmbeddedKafka.Record<>("t1/u-dora", dev.engram.testing.MemoryFixtures.updated(
                vienna, dev.engram.avro.UpdateOperation.CORRECTED, corrected), corrected)));
        dev.engram.testing.EmbeddedKafka.waitUntil(() -> fixture.get("/v1/tenants/t1/users/u-dora/memories",
            TwoUserRetriever.ADMIN_KEY).body().contains("Vienna"), Duration.ofSeconds(60), "u-dora's correction served");
        try (McpSyncClient admin = client(TwoUserRetriever.ADMIN_KEY)) {
            for (final McpSchema.CallToolRequest call : List.of(
                new McpSchema.CallToolRequest(McpEndpoint.LIST, Map.of("userId", "u-dora")),
                new McpSchema.CallToolRequest(McpEndpoint.SEARCH, Map.of("userId", "u-dora", "query", "where do I live",
                    "recordAccess", false)))) {
                final McpSchema.CallToolResult result = admin.callTool(call);
                assertThat(result.isError()).as(text(result)).isFalse();
                assertThat(text(result)).contains("\"formerValues\":[{\"value\":\"Graz\",\"content\":\"Lives in Graz\","
                    + "\"correctedAt\":\"" + corrected + "\"}]");
                assertThat(result.structuredContent()).isInstanceOfSatisfying(Map.class, body -> {
                    final Map<?, ?> memory = (Map<?, ?>) ((List<?>) body.get("memories")).get(0);
                    assertThat(memory.get("value")).isEqualTo("Vienna");
                    assertThat((List<?>) memory.get("formerValues")).singleElement().isEqualTo(Map.of("value", "Graz",
                        "content", "Lives in Graz", "correctedAt", corrected.toString()));
                });
            }
        }
    }

    private static final Map<String, String> MCP_HEADERS = Map.of("Accept", "application/json, text/event-stream");

    private static HttpResponse<String> post(final String message, final Map<String, String> headers) {
        final Map<String, String> all = new java.util.HashMap<>(MCP_HEADERS);
        all.putAll(headers);
        return fixture.send("POST", McpEndpoint.PATH, TwoUserRetriever.ANA_KEY, message, all);
    }

    private static com.fasterxml.jackson.databind.JsonNode json(final HttpResponse<String> response) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(response.body());
        } catch (java.io.IOException e) {
            throw new AssertionError(response.body(), e);
        }
    }

    @Test
    void shouldAnswerTheProtocolVersionTheClientAsksForWhenItIsServedAndTheLatestOtherwise() {
        for (final String asked : List.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2023-01-01")) {
            final HttpResponse<String> answer = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                + "{\"protocolVersion\":\"" + asked + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}",
                Map.of());
            assertThat(answer.statusCode()).as(asked + ": " + answer.body()).isEqualTo(200);
            assertThat(json(answer).path("result").path("protocolVersion").asText()).as(asked)
                .isEqualTo(asked.equals("2023-01-01") ? "2025-11-25" : asked);
        }
    }

    @Test
    void shouldRefuseAProtocolVersionHeaderItDoesNotServeWith400() {
        final String list = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}";
        for (final String version : List.of("2099-01-01", "not-a-version", "2000-01-01")) {
            final HttpResponse<String> answer = post(list, Map.of("MCP-Protocol-Version", version));
            assertThat(answer.statusCode()).as(version).isEqualTo(400);
            assertThat(json(answer).path("error").path("message").asText()).contains("MCP-Protocol-Version", version);
        }
        for (final String version : List.of("2024-11-05", "2025-06-18", "2025-11-25")) {
            assertThat(post(list, Map.of("MCP-Protocol-Version", version)).statusCode()).as(version).isEqualTo(200);
        }
        assertThat(post(list, Map.of()).statusCode()).as("no header: a 2025-03-26 client").isEqualTo(200);
    }

    @Test
    void shouldRefuseABrowserOriginThatIsNotAllowedAndGiveCorsToALoopbackOne() {
        final String list = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}";
        final HttpResponse<String> rebound = post(list, Map.of("Origin", "http://attacker.example:8080"));
        assertThat(rebound.statusCode()).isEqualTo(403);
        assertThat(json(rebound).path("error").path("message").asText()).contains("attacker.example");
        assertThat(json(rebound).path("id").isNull()).isTrue();
        assertThat(rebound.body()).doesNotContain("Kotlin", "tools");

        for (final String origin : List.of("http://localhost:5173", "http://127.0.0.1:6274", "http://[::1]:3000")) {
            final HttpResponse<String> local = post(list, Map.of("Origin", origin));
            assertThat(local.statusCode()).as(origin).isEqualTo(200);
            assertThat(local.headers().firstValue("Access-Control-Allow-Origin")).as(origin).hasValue(origin);
        }
        final HttpResponse<String> preflight = fixture.send("OPTIONS", McpEndpoint.PATH, null, null, Map.of(
            "Origin", "http://localhost:5173", "Access-Control-Request-Method", "POST",
            "Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version"));
        assertThat(preflight.statusCode()).isEqualTo(204);
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).hasValue("http://localhost:5173");
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Headers")).hasValueSatisfying(
            h -> assertThat(h).contains("Authorization", "MCP-Protocol-Version", "Content-Type"));
        assertThat(fixture.send("OPTIONS", McpEndpoint.PATH, null, null, Map.of("Origin", "https://attacker.example"))
            .statusCode()).isEqualTo(403);
        assertThat(metricsShowing("engram_mcp_requests_seconds_count\\{[^}]*status=\"403\"")).as("refusals are counted too")
            .isNotEmpty();
    }

    @Test
    void shouldNameTheUnknownToolInItsErrorAndCountRequestsByMethodToolAndStatus() {
        final HttpResponse<String> answer = post("{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\","
            + "\"params\":{\"name\":\"forget_everything\",\"arguments\":{}}}", Map.of());
        assertThat(json(answer).path("id").asInt()).isEqualTo(42);
        assertThat(json(answer).path("error").path("code").asInt()).isEqualTo(-32602);
        assertThat(json(answer).path("error").path("message").asText()).contains("forget_everything", McpEndpoint.SEARCH);

        try (McpSyncClient ana = client(TwoUserRetriever.ANA_KEY)) {
            ana.callTool(new McpSchema.CallToolRequest(McpEndpoint.CONTEXT, Map.of("message", "Which language?")));
        }
        final String metrics = metricsShowing("engram_mcp_requests_seconds_count\\{[^}]*method=\"tools/call\"[^}]*status=\"200\""
            + "[^}]*tool=\"get_context\"");
        assertThat(metrics).containsPattern("engram_mcp_requests_seconds_count\\{[^}]*method=\"tools/call\"[^}]*tool=\"unknown\"");
        assertThat(metrics).containsPattern("engram_mcp_requests_seconds_count\\{[^}]*method=\"initialize\"");
        assertThat(metrics).contains("engram_mcp_requests_seconds_bucket");
    }

    /**
     * {@code /metrics} once it shows {@code pattern}: a request's timer is recorded when the exchange completes, which
     * can be just after the client has its answer (seen once in a clean-clone CI run), so the first scrape may miss it.
     */
    private String metricsShowing(final String pattern) {
        final java.util.regex.Pattern wanted = java.util.regex.Pattern.compile(pattern);
        final String[] last = {""};
        dev.engram.testing.EmbeddedKafka.waitUntil(() -> wanted.matcher(last[0] = fixture.get("/metrics", null).body()).find(),
            Duration.ofSeconds(60), "/metrics to show " + pattern);
        return last[0];
    }

    /**
     * The topic holds the other tests' conversations in other partitions: a read that stops at the first record can
     * miss this one every time (and at load a first fetch may bring one partition only), so each read takes all it
     * finds for 15 s, again until the conversation is there (90 s at most).
     *
     * @param conversationId a conversation the test saved
     * @return its records on {@code conversations-completed}
     */
    private static List<org.apache.kafka.clients.consumer.ConsumerRecord<String, dev.engram.avro.ConversationCompleted>> onTheTopic(
            final String conversationId) {
        return dev.engram.testing.Waits.until(conversationId + " on the topic", Duration.ofSeconds(90),
            () -> fixture.kafka().read(dev.engram.topics.Topic.CONVERSATIONS_COMPLETED.name(),
                new org.apache.kafka.common.serialization.StringDeserializer(),
                dev.engram.topics.Topic.CONVERSATIONS_COMPLETED.valueDeserializer(dev.engram.config.EngramConfig.defaults()),
                Integer.MAX_VALUE, Duration.ofSeconds(15)).stream()
                .filter(r -> r.value().getConversationId().equals(conversationId)).toList(),
            records -> !records.isEmpty());
    }

    @Test
    void shouldSaveAConversationThroughTheApi() {
        try (McpSyncClient ana = client(TwoUserRetriever.ANA_KEY)) {
            final McpSchema.CallToolResult saved = ana.callTool(new McpSchema.CallToolRequest(McpEndpoint.SAVE_CONVERSATION,
                Map.of("conversationId", "c-mcp-1", "agentId", "music", "messages", List.of(Map.of("role", "user",
                    "content", "I started learning the cello.", "timestamp", "2025-05-03T18:00:00Z")))));
            assertThat(saved.isError()).as(text(saved)).isFalse();
            assertThat(saved.structuredContent()).isInstanceOfSatisfying(Map.class, body -> {
                assertThat(body.get("conversationId")).isEqualTo("c-mcp-1");
                assertThat(body.get("status")).isEqualTo("ACCEPTED");
            });
            assertThat(onTheTopic("c-mcp-1")).singleElement()
                .satisfies(r -> assertThat(r.value().getAgentId()).isEqualTo("music"));
            final McpSchema.CallToolResult scoped = ana.callTool(new McpSchema.CallToolRequest(McpEndpoint.SEARCH,
                Map.of("query", "language", "agentId", "music", "recordAccess", false)));
            assertThat(scoped.isError()).as(text(scoped)).isFalse();
            final McpSchema.CallToolResult invalid = ana.callTool(new McpSchema.CallToolRequest(McpEndpoint.SAVE_CONVERSATION,
                Map.of("conversationId", "c-mcp-2", "messages", List.of())));
            assertThat(invalid.isError()).isTrue();
            assertThat(text(invalid)).startsWith("400");
        }
    }

    @Test
    void shouldTakeARoleInAnyLetterCaseAsPostConversationsDoesAndNameAnUnknownRoleAsItDoes() {
        try (McpSyncClient ana = client(TwoUserRetriever.ANA_KEY)) {
            final McpSchema.CallToolResult upper = ana.callTool(new McpSchema.CallToolRequest(McpEndpoint.SAVE_CONVERSATION,
                Map.of("conversationId", "c-mcp-upper", "messages",
                    List.of(Map.of("role", "USER", "content", "I live in Graz."),
                        Map.of("role", " Assistant ", "content", "Noted.")))));
            final McpSchema.CallToolResult unknown = ana.callTool(new McpSchema.CallToolRequest(McpEndpoint.SAVE_CONVERSATION,
                Map.of("conversationId", "c-mcp-narrator", "messages",
                    List.of(Map.of("role", "narrator", "content", "I live in Graz.")))));

            assertThat(upper.isError()).as(text(upper)).isFalse();
            assertThat(upper.structuredContent()).isInstanceOfSatisfying(Map.class, body -> {
                assertThat(body.get("conversationId")).isEqualTo("c-mcp-upper");
                assertThat(body.get("status")).isEqualTo("ACCEPTED");
                assertThat(body.get("messages")).isEqualTo(2);
            });
            assertThat(onTheTopic("c-mcp-upper")).singleElement().satisfies(r -> assertThat(r.value().getMessages()).extracting(
                dev.engram.avro.Message::getRole).containsExactly("USER", " Assistant "));
            assertThat(unknown.isError()).as(text(unknown)).isTrue();
            assertThat(text(unknown)).startsWith("400").contains("has the role 'narrator', not one of user, assistant, "
                + "system, tool").doesNotContain("schema");
        }
    }

    @Test
    void shouldAnswerAToolErrorNamingTheSettingWhenAConversationIsDatedInYear9999() {
        try (McpSyncClient ana = client(TwoUserRetriever.ANA_KEY)) {
            final McpSchema.CallToolResult future = ana.callTool(new McpSchema.CallToolRequest(McpEndpoint.SAVE_CONVERSATION,
                Map.of("conversationId", "c-mcp-9999", "completedAt", "9999-12-31T00:00:00Z", "messages",
                    List.of(Map.of("role", "user", "content", "I will retire in Lisbon.")))));

            assertThat(future.isError()).as(text(future)).isTrue();
            assertThat(text(future)).startsWith("400").contains("completedAt 9999-12-31T00:00:00Z",
                "input.max.future.ms=3600000", "the latest event time accepted now is");
        }
    }

    @Test
    void shouldTakeCompletedAtAsEpochMillisecondsAsPostConversationsDoesAndNameTheFormsOtherwise() {
        final long at = java.time.Instant.parse("2025-01-02T03:04:05Z").toEpochMilli();
        try (McpSyncClient ana = client(TwoUserRetriever.ANA_KEY)) {
            final McpSchema.CallToolResult millis = ana.callTool(new McpSchema.CallToolRequest(McpEndpoint.SAVE_CONVERSATION,
                Map.of("conversationId", "c-mcp-epoch", "completedAt", at, "messages",
                    List.of(Map.of("role", "user", "content", "I moved to Porto.")))));
            // a JSON type the input schema does not take is the call's fault: Invalid params, not a tool result
            assertThatThrownBy(() -> ana.callTool(new McpSchema.CallToolRequest(McpEndpoint.SAVE_CONVERSATION,
                Map.of("conversationId", "c-mcp-bool", "completedAt", true, "messages",
                    List.of(Map.of("role", "user", "content", "I moved to Porto."))))))
                .hasMessageContaining("Invalid params: argument \"completedAt\" of tool save_conversation must be a string "
                    + "or an integer, not a boolean (true)");
            final McpSchema.CallToolResult words = ana.callTool(new McpSchema.CallToolRequest(McpEndpoint.SAVE_CONVERSATION,
                Map.of("conversationId", "c-mcp-words", "completedAt", "yesterday", "messages",
                    List.of(Map.of("role", "user", "content", "I moved to Porto.")))));

            assertThat(millis.isError()).as(text(millis)).isFalse();
            assertThat(onTheTopic("c-mcp-epoch")).singleElement()
                .satisfies(r -> assertThat(r.value().getCompletedAt()).isEqualTo(java.time.Instant.ofEpochMilli(at)));
            assertThat(words.isError()).as(text(words)).isTrue();
            assertThat(text(words)).startsWith("400").contains("completedAt is not an ISO-8601 timestamp with an offset",
                "or epoch milliseconds as a JSON number");
        }
    }

    @Test
    void shouldRefuseAClientWithoutAValidKey() {
        assertThatThrownBy(() -> client(null)).hasStackTraceContaining("McpHttpClientTransportAuthorizationException");
        assertThatThrownBy(() -> client("not-a-key")).hasStackTraceContaining("McpHttpClientTransportAuthorizationException");
        assertThat(fixture.send("POST", McpEndpoint.PATH, null, "{}").statusCode()).isEqualTo(401);
    }

    @Test
    void shouldRefuseInvalidUtf8AndAnUnknownArgumentWithAJsonRpcErrorNamingTheFault() {
        final byte[] prefix = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{\"cursor\":\"".getBytes(
            java.nio.charset.StandardCharsets.UTF_8);
        final byte[] body = java.util.Arrays.copyOf(prefix, prefix.length + 3);
        body[prefix.length] = (byte) 0xC3; // a lead byte followed by no continuation byte
        body[prefix.length + 1] = '"';
        body[prefix.length + 2] = '}';
        final HttpResponse<String> invalid = fixture.sendBytes("POST", McpEndpoint.PATH, TwoUserRetriever.ANA_KEY, body, MCP_HEADERS);
        assertThat(invalid.statusCode()).isEqualTo(400);
        assertThat(json(invalid).path("error").path("code").asInt()).isEqualTo(-32700);
        assertThat(json(invalid).path("error").path("message").asText()).contains("not valid UTF-8",
            "offset " + prefix.length);

        final HttpResponse<String> unknown = post("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":"
            + "{\"name\":\"search_memories\",\"arguments\":{\"query\":\"language\",\"limit\":3}}}", Map.of());
        assertThat(json(unknown).path("id").asInt()).isEqualTo(8);
        assertThat(json(unknown).path("error").path("code").asInt()).isEqualTo(-32602);
        assertThat(json(unknown).path("error").path("message").asText()).contains("\"limit\"", "search_memories",
            "\"query\"", "\"k\"");
    }

    @Test
    void shouldAnswerAMalformedMessageWithAJsonRpcErrorWithoutInternals() {
        final HttpResponse<String> garbage = fixture.send("POST", McpEndpoint.PATH, TwoUserRetriever.ADMIN_KEY, "garbage");
        assertThat(garbage.statusCode()).isEqualTo(400);
        assertThat(garbage.body()).contains("\"code\":-32700").doesNotContain("stackTrace").doesNotContain("dev.engram");
        final HttpResponse<String> notRpc = fixture.send("POST", McpEndpoint.PATH, TwoUserRetriever.ADMIN_KEY, "{\"a\":1}");
        assertThat(notRpc.statusCode()).isEqualTo(400);
        assertThat(notRpc.body()).contains("\"code\":-32600").doesNotContain("stackTrace");
        // well-formed envelopes the SDK would have answered with its exception (a 500 and a stack trace, or a 4xx
        // with one): invalid params, an id that is an object or a number of 26 digits, and a client that does not
        // accept JSON and SSE
        for (final String message : List.of(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":\"x\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"tools/list\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":12345678901234567890123456,\"method\":\"tools/list\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}")) {
            final HttpResponse<String> answer = fixture.send("POST", McpEndpoint.PATH, TwoUserRetriever.ADMIN_KEY, message);
            assertThat(answer.statusCode()).as(message).isBetween(400, 499);
            assertThat(answer.body()).as(message).contains("\"code\":-326").doesNotContain("stackTrace")
                .doesNotContain("Exception");
            assertThat(answer.headers().firstValue("Content-Type")).as(message).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        }
    }

    @Test
    void shouldAnswer400WithoutAcceptAnd406WithAnAcceptLackingEventStreamNamingTheHeaderNotAMethod() {
        final String list = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}";
        final HttpResponse<String> none = fixture.send("POST", McpEndpoint.PATH, TwoUserRetriever.ANA_KEY, list);
        final HttpResponse<String> jsonOnly = fixture.send("POST", McpEndpoint.PATH, TwoUserRetriever.ANA_KEY, list,
            Map.of("Accept", "application/json"));

        assertThat(none.statusCode()).as(none.body()).isEqualTo(400);
        assertThat(jsonOnly.statusCode()).as(jsonOnly.body()).isEqualTo(406);
        for (final HttpResponse<String> answer : List.of(none, jsonOnly)) {
            assertThat(json(answer).path("error").path("code").asInt()).as("Invalid Request, not Method not found")
                .isEqualTo(-32600);
            assertThat(json(answer).path("error").path("message").asText()).contains("Accept", "application/json",
                "text/event-stream");
            assertThat(json(answer).path("id").isNull()).isTrue();
        }
        assertThat(post(list, Map.of()).statusCode()).as("both listed").isEqualTo(200);
    }

    @Test
    void shouldAnswer406WhenAnAcceptListsBothTypesButOneOrBothWithQualityZero() {
        final String list = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}";
        for (final String accept : List.of("application/json;q=0, text/event-stream;q=0",
            "application/json, text/event-stream;q=0", "application/json;q=0.0, text/event-stream",
            "application/json;charset=utf-8;q=0, text/event-stream")) {
            final HttpResponse<String> answer = fixture.send("POST", McpEndpoint.PATH, TwoUserRetriever.ANA_KEY, list,
                Map.of("Accept", accept));

            assertThat(answer.statusCode()).as(accept + ": " + answer.body()).isEqualTo(406);
            assertThat(json(answer).path("error").path("code").asInt()).isEqualTo(-32600);
            assertThat(json(answer).path("error").path("message").asText()).contains("Accept", accept);
        }
        for (final String accept : List.of("application/json;q=0.5, text/event-stream;q=0.001",
            "text/event-stream, application/json; charset=utf-8")) {
            final HttpResponse<String> answer = fixture.send("POST", McpEndpoint.PATH, TwoUserRetriever.ANA_KEY, list,
                Map.of("Accept", accept));
            assertThat(answer.statusCode()).as(accept + ": " + answer.body()).isEqualTo(200);
        }
    }

    @Test
    void shouldRefuseAsTheV1RoutesDoWhenTheBodyIsDeclaredInAnotherCharsetOrType() {
        final String list = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\"}";
        final HttpResponse<String> latin1 = post(list, Map.of("Content-Type", "application/json; charset=ISO-8859-1"));
        final HttpResponse<String> text = post(list, Map.of("Content-Type", "text/plain"));

        for (final HttpResponse<String> answer : List.of(latin1, text)) {
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(415);
            assertThat(json(answer).path("error").path("code").asInt()).isEqualTo(-32600);
        }
        assertThat(json(latin1).path("error").path("message").asText()).startsWith("Content-Type charset \"ISO-8859-1\"");
        assertThat(post(list, Map.of("Content-Type", "application/json; charset=UTF-8")).statusCode()).isEqualTo(200);
    }

    /** A POST to /mcp with exactly these headers (the fixture adds a Content-Type to every body). */
    private static HttpResponse<String> raw(final byte[] body, final Map<String, String> headers) throws Exception {
        final HttpRequest.Builder request = HttpRequest.newBuilder(java.net.URI.create(fixture.baseUrl() + McpEndpoint.PATH))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body)).header("Authorization", "Bearer " + TwoUserRetriever.ANA_KEY);
        headers.forEach(request::header);
        return java.net.http.HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldReadABodyWithoutContentTypeOrWithAByteOrderMarkAsJsonAsTheV1RoutesDo() throws Exception {
        final byte[] list = "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/list\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        final byte[] bom = new byte[list.length + 3];
        bom[0] = (byte) 0xEF;
        bom[1] = (byte) 0xBB;
        bom[2] = (byte) 0xBF;
        System.arraycopy(list, 0, bom, 3, list.length);

        final HttpResponse<String> untyped = raw(list, MCP_HEADERS);
        final HttpResponse<String> marked = raw(bom, Map.of("Accept", MCP_HEADERS.get("Accept"), "Content-Type", "application/json"));
        final HttpResponse<String> v1Marked = fixture.sendBytes("PUT", "/v1/tenants/t1/users/u-ana/settings",
            TwoUserRetriever.ANA_KEY, "\uFEFF{\"memoryEnabled\": true}".getBytes(java.nio.charset.StandardCharsets.UTF_8), Map.of());

        assertThat(untyped.statusCode()).as(untyped.body()).isEqualTo(200);
        assertThat(json(untyped).path("result").path("tools").size()).isEqualTo(6);
        assertThat(marked.statusCode()).as(marked.body()).isEqualTo(200);
        assertThat(json(marked).path("result").path("tools").size()).isEqualTo(6);
        assertThat(v1Marked.statusCode()).as(v1Marked.body()).isBetween(200, 299);
    }

    @Test
    void shouldAnswerInvalidParamsNamingTheArgumentAndTypeWhenAnArgumentIsOfTheWrongType() {
        final HttpResponse<String> word = post("{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":"
            + "{\"name\":\"search_memories\",\"arguments\":{\"query\":\"language\",\"k\":\"five\"}}}", Map.of());
        final HttpResponse<String> notObject = post("{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/call\",\"params\":"
            + "{\"name\":\"search_memories\",\"arguments\":\"x\"}}", Map.of());
        final HttpResponse<String> whole = post("{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"tools/call\",\"params\":"
            + "{\"name\":\"search_memories\",\"arguments\":{\"query\":\"language\",\"k\":2.0}}}", Map.of());

        assertThat(json(word).path("id").asInt()).isEqualTo(12);
        assertThat(json(word).path("error").path("code").asInt()).as(word.body()).isEqualTo(-32602);
        assertThat(json(word).path("error").path("message").asText()).contains("\"k\"", "search_memories", "an integer",
            "\"five\"");
        assertThat(json(notObject).path("error").path("message").asText()).as(notObject.body())
            .isEqualTo("Invalid params: arguments must be an object, not a string (\"x\")");
        assertThat(json(whole).path("result").path("isError").asBoolean()).as(whole.body()).isFalse();
    }

    @Test
    void shouldNameAParseErrorWithoutTheParsersInternals() {
        for (final String body : List.of("{", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"", "[1,",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"search_memories\","
                + "\"arguments\":{\"query\":\"x\"},\"_meta\":\"x\"}}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":[1]}}")) {
            final HttpResponse<String> answer = post(body, Map.of());
            assertThat(answer.body()).as(body).contains("\"code\":-32").doesNotContain("StreamReadFeature")
                .doesNotContain("INCLUDE_SOURCE").doesNotContain("Source: ").doesNotContain("com.fasterxml");
        }
    }
}
