package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import dev.engram.runtime.RuntimeConfig;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.topics.Topic;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A retriever bound to a loopback address other than {@code localhost} (127.0.0.2, as a pod IP would be): its MCP
 * tools reach its {@code /v1} API at the address the MCP request reached (README trial: every tool answered
 * "The memory API could not be reached: null" since the tools called {@code http://localhost:PORT}).
 */
class McpBindAddressIT {

    private static final String ADMIN_KEY = "t1-admin-key-0000000009";
    private static final String HOST = "127.0.0.2";

    private static EmbeddedKafka kafka;
    private static RetrieverApp.Handle retriever;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, Topic.allNames());
        retriever = RetrieverApp.start(kafka.engramConfig(Map.of(RuntimeConfig.HTTP_BIND_ADDRESS, HOST,
            RetrieverConfig.AUTH_KEYS, ADMIN_KEY + "=t1:admin")));
        final HttpClient http = HttpClient.newHttpClient();
        EmbeddedKafka.waitUntil(() -> {
            try {
                return http.send(HttpRequest.newBuilder(URI.create(base() + "/health/ready")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(90), "the retriever on " + HOST + " to be ready");
    }

    @AfterAll
    static void stop() throws Exception {
        if (retriever != null) {
            retriever.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    private static String base() {
        return "http://" + HOST + ":" + retriever.port();
    }

    @Test
    void shouldAnswerAToolThroughTheApiWhenTheServerIsNotBoundToLocalhost() {
        final McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder(base())
                .endpoint(McpEndpoint.PATH).requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer " + ADMIN_KEY))
                .build())
            .requestTimeout(Duration.ofSeconds(30)).build();
        try (client) {
            client.initialize();
            final McpSchema.CallToolResult list = client.callTool(new McpSchema.CallToolRequest(McpEndpoint.LIST,
                Map.of("userId", "u-nobody")));
            final String text = ((McpSchema.TextContent) list.content().get(0)).text();

            // the API itself answered: an unknown user is its 404, not a connection failure
            assertThat(text).startsWith("404").doesNotContain("could not be reached");
        }
    }

    @Test
    void shouldNameTheCauseWhenTheApiCannotBeReached() throws Exception {
        final int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        final String base = McpEndpoint.apiBase("127.0.0.1", closed);
        Exception failure = null;
        try {
            HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/v1")).build(),
                HttpResponse.BodyHandlers.discarding());
        } catch (ConnectException e) {
            failure = e;
        }

        assertThat(failure).isNotNull();
        assertThat(dev.engram.serde.ConnectionFailures.describe(failure)).contains("ConnectException").contains("refused").doesNotContain("null");
        assertThat(McpEndpoint.apiBase("0:0:0:0:0:0:0:1", 8080)).isEqualTo("http://[0:0:0:0:0:0:0:1]:8080");
    }
}
