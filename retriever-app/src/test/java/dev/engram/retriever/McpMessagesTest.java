package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * The MCP endpoint reads a JSON-RPC body as strictly as the HTTP API reads its bodies: one JSON value of valid
 * UTF-8 without a duplicate member (else a Parse error), only the members JSON-RPC defines (else an Invalid
 * Request), and a tool's declared arguments only (else Invalid params); each error names the fault.
 */
class McpMessagesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, Set<String>> TOOLS = Map.of("search_memories",
        Set.of("tenantId", "userId", "query", "k"));

    @Test
    void shouldAnswerAParseErrorNamingTheFaultWhenTheBodyIsNotOneStrictJsonValue() throws Exception {
        final JsonNode twoValues = error(envelope("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"
            + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}"));
        assertThat(twoValues.path("code").asInt()).isEqualTo(-32700);
        assertThat(twoValues.path("message").asText()).contains("more than one JSON value");
        assertThat(error(envelope("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}")).path("message").asText())
            .startsWith("Parse error: duplicate field").contains("id");
        final byte[] latin1 = "{\"jsonrpc\":\"2.0\",\"id\":\"caf\u00e9\",\"method\":\"ping\"}".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(error(McpMessages.invalidEnvelope(latin1)).path("message").asText())
            .contains("not valid UTF-8", "byte 0xE9 at offset 26");
    }

    @Test
    void shouldNameAnUnknownEnvelopeMemberWhenTheMessageHasOne() throws Exception {
        final JsonNode answer = JSON.readTree(envelope("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"parms\":{}}")
            .orElseThrow());
        assertThat(answer.path("id").asInt()).isEqualTo(5);
        assertThat(answer.path("error").path("code").asInt()).isEqualTo(-32600);
        assertThat(answer.path("error").path("message").asText()).contains("unknown member \"parms\"", "\"params\"");
        assertThat(envelope("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{}}")).isEmpty();
        assertThat(envelope("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}")).isEmpty();
    }

    @Test
    void shouldAnswerAnInvalidRequestWithoutIdWhenANumberIdIsNotAWholeNumberOfSixtyFourBits() throws Exception {
        final JsonNode answer = JSON.readTree(envelope("{\"jsonrpc\":\"2.0\",\"id\":12345678901234567890123456,"
            + "\"method\":\"tools/list\"}").orElseThrow());
        assertThat(answer.path("id").isNull()).as("an id that cannot be read is null (JSON-RPC 2.0, section 5)").isTrue();
        assertThat(answer.path("error").path("code").asInt()).isEqualTo(-32600);
        assertThat(answer.path("error").path("message").asText()).isEqualTo("Invalid Request: a number id is a whole "
            + "number from -9223372036854775808 to 9223372036854775807, was 12345678901234567890123456 (a longer id can be "
            + "sent as a string)");
        assertThat(error(envelope("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"tools/list\"}")).path("message").asText())
            .contains("was 1.5");
        assertThat(envelope("{\"jsonrpc\":\"2.0\",\"id\":9223372036854775807,\"method\":\"tools/list\"}")).isEmpty();
        assertThat(envelope("{\"jsonrpc\":\"2.0\",\"id\":\"12345678901234567890123456\",\"method\":\"tools/list\"}"))
            .as("as a string").isEmpty();
    }

    @Test
    void shouldRefuseAPostWithout400AndWithAnAcceptLackingEitherTypeWith406WhenItNamesTheHeader() {
        assertThat(McpHttpRules.unacceptable(null)).hasValueSatisfying(r -> {
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.message()).startsWith("Bad Request: no Accept header: an MCP client lists both "
                + "application/json and text/event-stream in Accept");
        });
        assertThat(McpHttpRules.unacceptable("application/json")).hasValueSatisfying(r -> {
            assertThat(r.status()).isEqualTo(406);
            assertThat(r.message()).startsWith("Not Acceptable: Accept \"application/json\": ");
        });
        assertThat(McpHttpRules.unacceptable("*/*")).get().extracting(McpHttpRules.Refusal::status).isEqualTo(406);
        assertThat(McpHttpRules.unacceptable("application/json, text/event-stream")).isEmpty();
        assertThat(McpHttpRules.unacceptable("text/event-stream;q=0.9, application/json")).isEmpty();
    }

    @Test
    void shouldNameUnknownArgumentsAndTheAcceptedOnesWhenAToolIsCalledWithThem() throws Exception {
        final JsonNode answer = JSON.readTree(McpMessages.invalidArguments(JSON.readTree("{\"jsonrpc\":\"2.0\",\"id\":9,"
            + "\"method\":\"tools/call\",\"params\":{\"name\":\"search_memories\",\"arguments\":{\"query\":\"x\",\"top\":3}}}"),
            TOOLS).orElseThrow());
        assertThat(answer.path("id").asInt()).isEqualTo(9);
        assertThat(answer.path("error").path("code").asInt()).isEqualTo(-32602);
        assertThat(answer.path("error").path("message").asText()).isEqualTo("Invalid params: unknown argument \"top\" of tool "
            + "search_memories; accepted: \"k\", \"query\", \"tenantId\", \"userId\"");
        assertThat(arguments("{\"name\":\"search_memories\",\"arguments\":{\"query\":\"x\",\"k\":3}}")).isEmpty();
        assertThat(arguments("{\"name\":\"search_memories\"}")).isEmpty();
        assertThat(arguments("{\"name\":\"forget_everything\",\"arguments\":{\"x\":1}}")).as("unknownTool names it").isEmpty();
        assertThat(arguments("{\"name\":\"search_memories\",\"arguments\":[1]}")).hasValueSatisfying(
            e -> assertThat(e).contains("arguments must be an object, not an array"));
        assertThat(arguments("{\"name\":\"search_memories\",\"argument\":{}}")).hasValueSatisfying(
            e -> assertThat(e).contains("unknown member \\\"argument\\\" of tools/call params"));
    }

    private static Optional<String> envelope(final String body) {
        return McpMessages.invalidEnvelope(body.getBytes(StandardCharsets.UTF_8));
    }

    private static Optional<String> arguments(final String params) throws Exception {
        return McpMessages.invalidArguments(JSON.readTree("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
            + params + "}"), TOOLS);
    }

    private static JsonNode error(final Optional<String> answer) throws Exception {
        assertThat(answer).isPresent();
        return JSON.readTree(answer.orElseThrow()).path("error");
    }
}
