package dev.engram.retriever;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.runtime.ApiProblem;
import dev.engram.runtime.JsonBodies;

/**
 * The JSON-RPC side of {@link McpEndpoint} that the MCP SDK does not get right by itself: the envelope checked
 * before the SDK sees it, the SDK transport's error answers (its serialized exception, stack trace included)
 * replaced by JSON-RPC errors ({@link McpServletWrappers} holds the request and response wrappers that make both
 * possible).
 */
final class McpMessages {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** JSON-RPC methods a metric names; any other is {@code other} (the tag stays bounded). */
    private static final Set<String> METHODS = Set.of("initialize", "ping", "tools/list", "tools/call",
        "notifications/initialized", "notifications/cancelled");

    private McpMessages() {
    }

    /**
     * @param body a request body
     * @return the JSON object it holds, empty when it is not JSON or not an object
     */
    static Optional<JsonNode> parse(final byte[] body) {
        try {
            final JsonNode node = JSON.readTree(body);
            return node != null && node.isObject() ? Optional.of(node) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * @param message a JSON-RPC message
     * @return its method for a metric tag: a known MCP method, {@code response} for a client's response,
     *     {@code other} otherwise
     */
    static String method(final JsonNode message) {
        final String method = message.path("method").asText(null);
        if (method == null) {
            return message.has("result") || message.has("error") ? "response" : "other";
        }
        return METHODS.contains(method) ? method : "other";
    }

    /**
     * @param message a JSON-RPC message
     * @param tools the tools served
     * @return for a {@code tools/call}, the tool's name when it is served, else {@code unknown}; {@code none} for
     *     another method
     */
    static String tool(final JsonNode message, final Set<String> tools) {
        if (!"tools/call".equals(message.path("method").asText())) {
            return "none";
        }
        final String name = message.path("params").path("name").asText("");
        return tools.contains(name) ? name : "unknown";
    }

    /**
     * @param message a JSON-RPC message
     * @param tools the tools served
     * @return for a {@code tools/call} of a tool not served, the JSON-RPC error naming it (Invalid params, −32602, as
     *     the specification's "Tools" page has it) with the request's id; empty otherwise
     */
    static Optional<String> unknownTool(final JsonNode message, final Set<String> tools) {
        if (!"unknown".equals(tool(message, tools))) {
            return Optional.empty();
        }
        return Optional.of(rpcError(message.get("id"), -32602, "Unknown tool: " + message.path("params").path("name")
            .asText() + " (tools: " + String.join(", ", new java.util.TreeSet<>(tools)) + ")"));
    }

    /**
     * Checks the JSON-RPC 2.0 envelope before the SDK sees it (JSON-RPC 2.0 specification, section 5.1), as
     * strictly as the HTTP API reads its bodies ({@link JsonBodies#value}): a body that is not valid UTF-8, not JSON,
     * more than one JSON value or an object with a duplicate member is a Parse error (−32700) naming the fault and
     * where it is; JSON that is not an object with {@code "jsonrpc": "2.0"} and a method, result or error, or that has
     * a member JSON-RPC does not define (named), is an Invalid Request (−32600).
     *
     * @param body the request body
     * @return the JSON-RPC error response to send, empty when the envelope is well-formed
     */
    static Optional<String> invalidEnvelope(final byte[] body) {
        final JsonNode node;
        try {
            node = JsonBodies.value(body);
        } catch (ApiProblem e) {
            return Optional.of(rpcError(-32700, "Parse error: " + e.getMessage()));
        }
        if (node == null || !node.isObject() || !"2.0".equals(node.path("jsonrpc").asText(null))
            || !(node.path("method").isTextual() || node.has("result") || node.has("error"))) {
            return Optional.of(rpcError(-32600,
                "Invalid Request: expected a JSON-RPC 2.0 object with \"jsonrpc\": \"2.0\" and a method"));
        }
        final JsonNode id = node.get("id");
        if (id != null && !(id.isTextual() || id.isNumber() || id.isNull())) {
            return Optional.of(rpcError(-32600, "Invalid Request: an id is a string, a number or null"));
        }
        if (id != null && id.isNumber() && !(id.isIntegralNumber() && id.canConvertToLong())) {
            // a number id beyond 64 bits (the README trial's 26 digits) failed inside the SDK, logged as an ERROR with
            // its stack; a fraction is what JSON-RPC says an id should not have (section 4)
            return Optional.of(rpcError(-32600, "Invalid Request: a number id is a whole number from "
                + Long.MIN_VALUE + " to " + Long.MAX_VALUE + ", was " + abbreviated(id.asText())
                + " (a longer id can be sent as a string)"));
        }
        final List<String> unknown = unknownNames(node, ENVELOPE);
        if (!unknown.isEmpty()) {
            return Optional.of(rpcError(id, -32600, "Invalid Request: unknown member" + (unknown.size() > 1 ? "s " : " ")
                + quoted(unknown) + "; a JSON-RPC 2.0 message has " + quoted(ENVELOPE)));
        }
        final JsonNode params = node.get("params");
        if (params != null && !params.isObject()) {
            return Optional.of(rpcError(-32602, "Invalid params: params must be an object, not " + JsonBodies.describe(params)));
        }
        if ("tools/call".equals(node.path("method").asText()) && (params == null || !params.path("name").isTextual())) {
            return Optional.of(rpcError(-32602, "Invalid params: tools/call needs params with the tool's name"));
        }
        return Optional.empty();
    }

    /**
     * Checks a {@code tools/call} of a served tool as the HTTP API checks a body's fields: {@code params} holds only
     * {@code name}, {@code arguments}, {@code _meta} (and {@code task}), {@code arguments} is an object, and every
     * argument is one of the tool's input schema (each tool declares {@code additionalProperties: false}); an
     * unknown one is named with the ones accepted, never ignored.
     *
     * @param message a well-formed JSON-RPC message ({@link #invalidEnvelope} found nothing)
     * @param arguments each served tool's argument names
     * @return the JSON-RPC error (Invalid params, −32602) with the request's id; empty when the call is well-formed
     *     or is not a call of a served tool
     */
    static Optional<String> invalidArguments(final JsonNode message, final Map<String, Set<String>> arguments) {
        if (!"tools/call".equals(message.path("method").asText())) {
            return Optional.empty();
        }
        final JsonNode params = message.path("params");
        final Set<String> accepted = arguments.get(params.path("name").asText());
        if (accepted == null) {
            return Optional.empty(); // an unknown tool: unknownTool names it
        }
        final List<String> unknownParams = unknownNames(params, CALL_PARAMS);
        if (!unknownParams.isEmpty()) {
            return Optional.of(rpcError(message.get("id"), -32602, "Invalid params: unknown member"
                + (unknownParams.size() > 1 ? "s " : " ") + quoted(unknownParams) + " of tools/call params; accepted: "
                + quoted(CALL_PARAMS)));
        }
        final JsonNode given = params.get("arguments");
        if (given == null || given.isNull()) {
            return Optional.empty();
        }
        if (!given.isObject()) {
            return Optional.of(rpcError(message.get("id"), -32602, "Invalid params: arguments must be an object, not " + JsonBodies.describe(given)));
        }
        final List<String> unknown = unknownNames(given, accepted);
        if (unknown.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(rpcError(message.get("id"), -32602, "Invalid params: unknown argument"
            + (unknown.size() > 1 ? "s " : " ") + quoted(unknown) + " of tool " + params.path("name").asText()
            + "; accepted: " + quoted(accepted)));
    }

    /**
     * Checks each argument of a {@code tools/call} against its JSON Schema type in the tool's input schema, as the SDK
     * does not: {@code "k": "five"} reached the API and came back as a tool result with {@code isError}, while an
     * argument of the wrong type is the caller's fault in the call itself (Invalid params, −32602). A null argument is
     * taken as absent; {@code integer} accepts a number without a fraction ({@code 5.0}).
     *
     * @param message a well-formed JSON-RPC message ({@link #invalidArguments} found nothing)
     * @param types each served tool's argument types ({@link McpTools#argumentTypes})
     * @return the JSON-RPC error naming the argument, its tool, the type wanted and what was given; empty otherwise
     */
    static Optional<String> wrongArgumentType(final JsonNode message, final Map<String, Map<String, Object>> types) {
        if (!"tools/call".equals(message.path("method").asText())) {
            return Optional.empty();
        }
        final String tool = message.path("params").path("name").asText();
        final Map<String, Object> wanted = types.get(tool);
        final JsonNode given = message.path("params").path("arguments");
        if (wanted == null || !given.isObject()) {
            return Optional.empty();
        }
        for (final Iterator<Map.Entry<String, JsonNode>> fields = given.fields(); fields.hasNext(); ) {
            final Map.Entry<String, JsonNode> argument = fields.next();
            final Object type = wanted.get(argument.getKey());
            final List<String> names = type instanceof List<?> list ? list.stream().map(String::valueOf).toList()
                : type == null ? List.of() : List.of(String.valueOf(type));
            final JsonNode value = argument.getValue();
            if (names.isEmpty() || value.isNull() || names.stream().anyMatch(name -> isOfType(value, name))) {
                continue;
            }
            return Optional.of(rpcError(message.get("id"), -32602, "Invalid params: argument \"" + argument.getKey()
                + "\" of tool " + tool + " must be " + String.join(" or ", names.stream().map(McpMessages::article)
                .toList()) + ", not " + JsonBodies.describe(value)));
        }
        return Optional.empty();
    }

    private static boolean isOfType(final JsonNode value, final String type) {
        return switch (type) {
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber() || value.isNumber() && value.asDouble() == Math.rint(value.asDouble());
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            case "array" -> value.isArray();
            case "object" -> value.isObject();
            default -> true;
        };
    }

    private static String article(final String type) {
        return ("integer".equals(type) || "array".equals(type) || "object".equals(type) ? "an " : "a ") + type;
    }

    /** The members of a JSON-RPC 2.0 request, notification or response. */
    private static final Set<String> ENVELOPE = Set.of("jsonrpc", "id", "method", "params", "result", "error");
    /** The members of MCP's {@code tools/call} params ({@code task}: the 2025-11-25 task augmentation). */
    private static final Set<String> CALL_PARAMS = Set.of("name", "arguments", "_meta", "task");

    private static List<String> unknownNames(final JsonNode object, final Set<String> known) {
        final List<String> unknown = new ArrayList<>();
        object.fieldNames().forEachRemaining(name -> {
            if (!known.contains(name)) {
                unknown.add(name);
            }
        });
        return unknown;
    }

    private static String quoted(final java.util.Collection<String> names) {
        return String.join(", ", names.stream().sorted().map(n -> "\"" + n + "\"").toList());
    }

    /**
     * The JSON-RPC error that replaces an error answer of the SDK's transport, which serializes its exception with
     * the stack trace: the SDK's own code and message when it gave one ({@code jsonRpcError}), else Invalid Request
     * (−32600) for a 4xx and Internal error (−32603) for a 5xx.
     *
     * @param status the HTTP status the transport set, ≥ 400
     * @param body what the transport wrote
     * @return the error response to send instead
     */
    static String sanitizedError(final int status, final byte[] body) {
        JsonNode error = null;
        try {
            final JsonNode node = JSON.readTree(body);
            error = node == null ? null : node.path("jsonRpcError").isObject() ? node.get("jsonRpcError")
                : node.path("error").isObject() ? node.get("error") : null;
        } catch (IOException e) {
            // not JSON: the generic error below
        }
        if (error != null && error.path("code").isInt() && error.path("message").isTextual()) {
            return rpcError(error.get("code").asInt(), error.get("message").asText());
        }
        return status >= 500 ? rpcError(-32603, "Internal error") : rpcError(-32600, "Invalid Request");
    }

    /** @return the text, cut to 40 characters with an ellipsis (an id echoed in a message stays short) */
    private static String abbreviated(final String text) {
        return text.length() > 40 ? text.substring(0, 40) + "…" : text;
    }

    /**
     * @param code the JSON-RPC error code
     * @param message the error's message
     * @return the JSON-RPC error response without an id (the answer to no request, or to an unreadable one)
     */
    static String rpcError(final int code, final String message) {
        return rpcError(null, code, message);
    }

    /**
     * @param id the request's id (a JSON string or number), null for an answer to no request
     * @param code the JSON-RPC error code
     * @param message the error's message
     * @return the JSON-RPC error response
     */
    static String rpcError(final JsonNode id, final int code, final String message) {
        final Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", code);
        error.put("message", message);
        final Map<String, Object> response = new LinkedHashMap<>();
        response.put("jsonrpc", "2.0");
        response.put("id", id == null || id.isNull() ? null : id.isNumber() ? id.numberValue() : id.asText());
        response.put("error", error);
        try {
            return JSON.writeValueAsString(response);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
