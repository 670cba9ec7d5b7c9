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
                McpEndpoint.CONTEXT, McpEndpoint.LIST, McpEndpoint.CORRECT, McpEndpoint.DELETE);
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

    @Test
    void shouldRefuseAClientWithoutAValidKey() {
        assertThatThrownBy(() -> client(null)).hasStackTraceContaining("McpHttpClientTransportAuthorizationException");
        assertThatThrownBy(() -> client("not-a-key")).hasStackTraceContaining("McpHttpClientTransportAuthorizationException");
        assertThat(fixture.send("POST", McpEndpoint.PATH, null, "{}").statusCode()).isEqualTo(401);
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
        // with one): invalid params, an id that is an object, and a client that does not accept JSON and SSE
        for (final String message : List.of(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":\"x\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"tools/list\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}")) {
            final HttpResponse<String> answer = fixture.send("POST", McpEndpoint.PATH, TwoUserRetriever.ADMIN_KEY, message);
            assertThat(answer.statusCode()).as(message).isBetween(400, 499);
            assertThat(answer.body()).as(message).contains("\"code\":-326").doesNotContain("stackTrace")
                .doesNotContain("Exception");
            assertThat(answer.headers().firstValue("Content-Type")).as(message).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        }
    }
}
