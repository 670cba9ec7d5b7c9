package dev.engram.llm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.engram.config.EngramConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What llama.cpp's server, vLLM, Ollama and OpenAI answer differently, each against {@link StubChatServer}
 * on the wire: the response_format modes, a 400 / 422 for a schema the server will not take, reasoning
 * beside the content, {@code <think>} in front of it, and no {@code usage}.
 */
class ChatCompletionsClientTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<ChatCompletionsClient.Message> ASK = List.of(
        new ChatCompletionsClient.Message("system", "Answer with one JSON object."),
        new ChatCompletionsClient.Message("user", "Say hello."));

    private StubChatServer server;
    private SimpleMeterRegistry registry;

    @BeforeEach
    void start() throws Exception {
        server = StubChatServer.start(4);
        registry = new SimpleMeterRegistry();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private ChatCompletionsClient client(final String responseFormat) {
        final LlmSettings settings = LlmSettings.from(EngramConfig.defaults().with(Map.of(
                LlmConfig.LLM_BASE_URL, server.baseUrl(), LlmConfig.LLM_MODEL, "m",
                LlmConfig.LLM_RESPONSE_FORMAT, responseFormat))).orElseThrow()
            .withResilience(Duration.ofSeconds(15), 2, Duration.ofMillis(5), Duration.ofSeconds(1));
        return new ChatCompletionsClient(settings, registry, "test");
    }

    private static ObjectNode schema() {
        final ObjectNode schema = JSON.createObjectNode().put("type", "object");
        schema.putObject("properties").putObject("hello").put("type", "string");
        return schema;
    }

    private JsonNode format(final int request) {
        return server.requests().get(request).path("response_format");
    }

    @Test
    void shouldSendTheSchemaAsJsonSchemaWhenTheServerTakesIt() {
        server.script(StubChatServer.Reply.content("{\"hello\":\"world\"}"));

        assertThat(client("json_schema").complete(ASK, "greeting", schema()).content()).isEqualTo("{\"hello\":\"world\"}");
        assertThat(format(0).path("type").asText()).isEqualTo("json_schema");
        assertThat(format(0).path("json_schema").path("name").asText()).isEqualTo("greeting");
        assertThat(format(0).path("json_schema").path("schema")).isEqualTo(schema());
    }

    @Test
    void shouldSendJsonObjectWhenConfiguredSo() {
        server.script(StubChatServer.Reply.content("{}"));

        client("json_object").complete(ASK, "greeting", schema());

        assertThat(format(0).path("type").asText()).isEqualTo("json_object");
        assertThat(format(0).has("json_schema")).isFalse();
    }

    @Test
    void shouldFallBackToJsonObjectAndStayThereWhenTheServerAnswers400ToTheSchema() {
        server.script(new StubChatServer.Reply(400, Map.of(),
                "{\"error\":{\"message\":\"response_format json_schema is not supported\",\"type\":\"invalid_request_error\"}}", 0),
            StubChatServer.Reply.content("{\"hello\":\"a\"}"), StubChatServer.Reply.content("{\"hello\":\"b\"}"));
        final ChatCompletionsClient client = client("json_schema");

        assertThat(client.complete(ASK, "greeting", schema()).content()).isEqualTo("{\"hello\":\"a\"}");
        assertThat(client.complete(ASK, "greeting", schema()).content()).isEqualTo("{\"hello\":\"b\"}");
        assertThat(server.requestCount()).isEqualTo(3);
        assertThat(format(0).path("type").asText()).isEqualTo("json_schema");
        assertThat(format(1).path("type").asText()).isEqualTo("json_object");
        assertThat(format(2).path("type").asText()).isEqualTo("json_object");
    }

    @Test
    void shouldFallBackWhenTheServerAnswers422ToTheSchema() {
        server.script(new StubChatServer.Reply(422, Map.of(), "{\"error\":\"Input validation error: grammar\"}", 0),
            StubChatServer.Reply.content("{}"));

        assertThat(client("json_schema").complete(ASK, "greeting", schema()).content()).isEqualTo("{}");
        assertThat(format(1).path("type").asText()).isEqualTo("json_object");
    }

    @Test
    void shouldKeepTheContentAndTheReasoningApartWhenBothAreSent() {
        server.script(StubChatServer.Reply.completion("{\"hello\":\"x\"}", "The user wants {\"hello\": 1}.", "stop"));

        final ChatCompletionsClient.Completion c = client("json_schema").complete(ASK, "greeting", schema());

        assertThat(c.content()).isEqualTo("{\"hello\":\"x\"}");
        assertThat(c.reasoning()).isEqualTo("The user wants {\"hello\": 1}.");
    }

    @Test
    void shouldReadOllamasReasoningFieldWhenThereIsNoReasoningContent() {
        server.script(new StubChatServer.Reply(200, Map.of(), "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
            + "\"content\":\"{}\",\"reasoning\":\"thinking\"},\"finish_reason\":\"stop\"}],"
            + "\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2}}", 0));

        final ChatCompletionsClient.Completion c = client("json_schema").complete(ASK, "greeting", schema());

        assertThat(c.reasoning()).isEqualTo("thinking");
        assertThat(c.promptTokens()).isEqualTo(7);
        assertThat(c.usageEstimated()).isFalse();
    }

    @Test
    void shouldMoveALeadingThinkBlockOutOfTheContentWhenTheServerHasNoReasoningParser() {
        server.script(StubChatServer.Reply.content("<think>Maybe {\"hello\":\"wrong\"}?\nNo.</think>\n{\"hello\":\"right\"}"));

        final ChatCompletionsClient.Completion c = client("json_schema").complete(ASK, "greeting", schema());

        assertThat(TolerantJson.firstObject(c.content()).orElseThrow().path("hello").asText()).isEqualTo("right");
        assertThat(c.reasoning()).isEqualTo("Maybe {\"hello\":\"wrong\"}?\nNo.");
    }

    @Test
    void shouldEstimateAndCountTokensWhenTheServerSendsNoUsage() {
        server.script(new StubChatServer.Reply(200, Map.of(), StubChatServer.Reply.completionBody(
            "{\"hello\":\"world\"}", null, "stop", "m", -1, 0), 0));

        final ChatCompletionsClient.Completion c = client("json_schema").complete(ASK, "greeting", schema());

        assertThat(server.requests().get(0).has("usage")).isFalse();
        assertThat(c.usageEstimated()).isTrue();
        // (28 + 3) / 4 + 4 and (10 + 3) / 4 + 4 for the two messages; (17 + 3) / 4 for the answer
        assertThat(c.promptTokens()).isEqualTo(7 + 4 + 3 + 4);
        assertThat(c.completionTokens()).isEqualTo(5);
        assertThat(registry.counter("engram.llm.usage.missing", "application", "test").count()).isEqualTo(1);
        assertThat(registry.counter("engram.llm.tokens", "application", "test", "kind", "prompt").count()).isEqualTo(18);
    }

    @Test
    void shouldReportTheServersUsageWhenItSendsOne() {
        server.script(new StubChatServer.Reply(200, Map.of(), StubChatServer.Reply.completionBody(
            "{}", null, "stop", "m", 321, 12), 0));

        final ChatCompletionsClient.Completion c = client("json_schema").complete(ASK, "greeting", schema());

        assertThat(c.promptTokens()).isEqualTo(321);
        assertThat(c.completionTokens()).isEqualTo(12);
        assertThat(c.usageEstimated()).isFalse();
        assertThat(registry.counter("engram.llm.usage.missing", "application", "test").count()).isZero();
    }
}
