package dev.engram.retriever;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.runtime.ApiProblem;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpStatelessSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStatelessServerTransport;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * The MCP endpoint of the retriever ({@code POST /mcp}, Model Context Protocol over streamable HTTP in its
 * stateless form: every JSON-RPC request is one POST answered with JSON, no session is held, so any retriever
 * instance answers any call). Tools:
 *
 * <table>
 *   <caption>tools, each one call of the HTTP API</caption>
 *   <tr><td>{@value #SEARCH}</td><td>{@code GET .../memories?query=&k=}</td></tr>
 *   <tr><td>{@value #CONTEXT}</td><td>{@code GET .../context?message=&budgetTokens=}</td></tr>
 *   <tr><td>{@value #LIST}</td><td>{@code GET .../memories[?type=&status=]}</td></tr>
 *   <tr><td>{@value #CORRECT}</td><td>{@code PUT .../memories/{id}}</td></tr>
 *   <tr><td>{@value #DELETE}</td><td>{@code DELETE .../memories/{id}}</td></tr>
 * </table>
 *
 * <p><b>Scope.</b> A tool does not reach a store itself: it calls this instance's {@code /v1} API over loopback
 * with the caller's own API key, so authentication, the one-tenant-one-user check (403), validation (400),
 * forwarding to the owner instance, access reporting and the audit record are exactly the HTTP API's. The
 * endpoint itself refuses a request without a valid key (401) while {@code retriever.auth.enabled}. A tool's
 * {@code tenantId} and {@code userId} default to the key's (a user key names both, an admin key the tenant);
 * an API error comes back as a tool result with {@code isError: true} and the problem's status and detail.
 */
public final class McpEndpoint {

    /** Path of the endpoint. */
    public static final String PATH = "/mcp";
    /** Tool: search memories. */
    public static final String SEARCH = "search_memories";
    /** Tool: the context block. */
    public static final String CONTEXT = "get_context";
    /** Tool: list memories. */
    public static final String LIST = "list_memories";
    /** Tool: correct a memory. */
    public static final String CORRECT = "correct_memory";
    /** Tool: delete a memory. */
    public static final String DELETE = "delete_memory";

    private static final String AUTHORIZATION = "engram.authorization";
    private static final String PORT = "engram.localPort";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final boolean authEnabled;
    private final ApiKeys keys;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();
    private final HttpServletStatelessServerTransport transport;
    private final McpStatelessSyncServer server;

    /**
     * @param authEnabled {@code retriever.auth.enabled}
     * @param keys the API keys (used for the 401 at the endpoint and the tools' default tenant and user)
     * @param version the server version reported to clients
     */
    public McpEndpoint(final boolean authEnabled, final ApiKeys keys, final String version) {
        this.authEnabled = authEnabled;
        this.keys = keys;
        this.transport = HttpServletStatelessServerTransport.builder().messageEndpoint(PATH)
            .contextExtractor(request -> {
                final Map<String, Object> values = new LinkedHashMap<>();
                values.put(PORT, request.getLocalPort());
                ApiAccess.apiKey(request.getHeader("Authorization"), request.getHeader("X-Api-Key"))
                    .ifPresent(key -> values.put(AUTHORIZATION, key));
                return McpTransportContext.create(values);
            }).build();
        this.server = McpServer.sync(transport).serverInfo("engram-retriever", version)
            .instructions("Long-term memory of one user. With a user API key, tenantId and userId may be omitted.")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
            .toolCall(tool(SEARCH, "Search the user's memories: the top-k active memories for a query, best first, with scores.",
                Map.of("query", string("what to look for"), "k", integer("how many at most (default 5)")), List.of("query"), true),
                (context, call) -> call(context, call, "GET", "/memories", query(call, "query", "k"), null))
            .toolCall(tool(CONTEXT, "Get the context block for the user's next message: the memories that matter, as text to put "
                    + "into the prompt, within a token budget.",
                Map.of("message", string("the user's next message"), "budgetTokens", integer("token budget (default 512)")),
                List.of("message"), true),
                (context, call) -> call(context, call, "GET", "/context", query(call, "message", "budgetTokens"), null))
            .toolCall(tool(LIST, "List every memory of the user, newest change first.",
                Map.of("type", string("EPISODIC, SEMANTIC or PROCEDURAL"), "status", string("ACTIVE, ARCHIVED or DELETED")),
                List.of(), true),
                (context, call) -> call(context, call, "GET", "/memories", query(call, "type", "status"), null))
            .toolCall(tool(CORRECT, "Correct one of the user's memories (source CORRECTED, confidence 1.0).",
                Map.of("memoryId", string("the memory"), "content", string("the corrected sentence"),
                    "value", string("the corrected fact value")), List.of("memoryId"), false),
                (context, call) -> call(context, call, "PUT", "/memories/" + segment(argument(call, "memoryId")), "",
                    correction(call)))
            .toolCall(tool(DELETE, "Delete one of the user's memories.", Map.of("memoryId", string("the memory")),
                List.of("memoryId"), false),
                (context, call) -> call(context, call, "DELETE", "/memories/" + segment(argument(call, "memoryId")), "", null))
            .build();
    }

    /**
     * Adds {@code POST /mcp} (and its 401 filter) to the server.
     *
     * @param app the retriever's server
     */
    public void register(final Javalin app) {
        app.before(PATH, this::authenticate);
        app.post(PATH, ctx -> {
            final byte[] body = ctx.bodyAsBytes();
            final Optional<String> invalid = invalidEnvelope(body);
            if (invalid.isPresent()) {
                // answered here: the SDK's transport would serialize its exception, stack trace included
                ctx.status(400).contentType("application/json").result(invalid.get());
                return;
            }
            final BufferedResponse response = new BufferedResponse(ctx.res());
            transport.service(new BodyRequest(ctx.req(), body), response);
            response.sendSanitized();
        });
    }

    /**
     * Checks the JSON-RPC 2.0 envelope before the SDK sees it (JSON-RPC 2.0 specification, section 5.1):
     * a body that is not JSON is a Parse error (−32700); JSON that is not an object with
     * {@code "jsonrpc": "2.0"} and a method, result or error is an Invalid Request (−32600).
     *
     * @param body the request body
     * @return the JSON-RPC error response to send, empty when the envelope is well-formed
     */
    static Optional<String> invalidEnvelope(final byte[] body) {
        final JsonNode node;
        try {
            node = JSON.readTree(body);
        } catch (IOException e) {
            return Optional.of(rpcError(-32700, "Parse error: the body is not JSON"));
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
        final JsonNode params = node.get("params");
        if (params != null && !params.isObject()) {
            return Optional.of(rpcError(-32602, "Invalid params: params is an object"));
        }
        if ("tools/call".equals(node.path("method").asText()) && (params == null || !params.path("name").isTextual())) {
            return Optional.of(rpcError(-32602, "Invalid params: tools/call needs params with the tool's name"));
        }
        return Optional.empty();
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

    private static String rpcError(final int code, final String message) {
        final Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", code);
        error.put("message", message);
        final Map<String, Object> response = new LinkedHashMap<>();
        response.put("jsonrpc", "2.0");
        response.put("id", null);
        response.put("error", error);
        try {
            return JSON.writeValueAsString(response);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The transport's answer, held until it is complete: an error status (≥ 400) is sent with {@link #sanitizedError}
     * instead of the SDK's serialized exception; anything else is sent as written.
     */
    private static final class BufferedResponse extends jakarta.servlet.http.HttpServletResponseWrapper {
        private final java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
        private java.io.PrintWriter writer;

        BufferedResponse(final jakarta.servlet.http.HttpServletResponse response) {
            super(response);
        }

        @Override
        public jakarta.servlet.ServletOutputStream getOutputStream() {
            return new jakarta.servlet.ServletOutputStream() {
                @Override
                public void write(final int b) {
                    buffer.write(b);
                }

                @Override
                public void write(final byte[] b, final int off, final int len) {
                    buffer.write(b, off, len);
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setWriteListener(final jakarta.servlet.WriteListener listener) {
                    throw new UnsupportedOperationException("blocking writes only");
                }
            };
        }

        @Override
        public java.io.PrintWriter getWriter() {
            if (writer == null) {
                writer = new java.io.PrintWriter(new java.io.OutputStreamWriter(buffer, StandardCharsets.UTF_8));
            }
            return writer;
        }

        @Override
        public void flushBuffer() {
            // held until sendSanitized
        }

        /** Sends what the transport wrote, an error status with a sanitized body. */
        void sendSanitized() throws IOException {
            if (writer != null) {
                writer.flush();
            }
            final byte[] body = getStatus() >= 400
                ? sanitizedError(getStatus(), buffer.toByteArray()).getBytes(StandardCharsets.UTF_8) : buffer.toByteArray();
            if (getStatus() >= 400) {
                setContentType("application/json");
            }
            setContentLength(body.length);
            getResponse().getOutputStream().write(body);
            getResponse().flushBuffer();
        }
    }

    /** The request with its body already read by the envelope check, served again to the transport. */
    private static final class BodyRequest extends jakarta.servlet.http.HttpServletRequestWrapper {
        private final byte[] body;

        BodyRequest(final jakarta.servlet.http.HttpServletRequest request, final byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public jakarta.servlet.ServletInputStream getInputStream() {
            final java.io.ByteArrayInputStream in = new java.io.ByteArrayInputStream(body);
            return new jakarta.servlet.ServletInputStream() {
                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(final byte[] b, final int off, final int len) {
                    return in.read(b, off, len);
                }

                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(final jakarta.servlet.ReadListener listener) {
                    throw new UnsupportedOperationException("blocking reads only");
                }
            };
        }

        @Override
        public java.io.BufferedReader getReader() {
            return new java.io.BufferedReader(new java.io.InputStreamReader(getInputStream(), StandardCharsets.UTF_8));
        }
    }

    /** @return the names of the tools served */
    public List<String> toolNames() {
        return server.listTools().stream().map(McpSchema.Tool::name).toList();
    }

    private void authenticate(final Context ctx) {
        if (authEnabled && ApiAccess.apiKey(ctx.header("Authorization"), ctx.header("X-Api-Key"))
            .flatMap(keys::authenticate).isEmpty()) {
            throw new ApiProblem(401, "A valid API key is required: Authorization: Bearer KEY (or X-Api-Key: KEY).");
        }
    }

    private McpSchema.CallToolResult call(final McpTransportContext context, final McpSchema.CallToolRequest call,
                                          final String method, final String tail, final String query,
                                          final Map<String, Object> body) {
        final String key = (String) context.get(AUTHORIZATION);
        final Optional<ApiKeys.Principal> principal = key == null ? Optional.empty() : keys.authenticate(key);
        final String tenant = Optional.ofNullable(text(call, "tenantId")).or(() -> principal.map(ApiKeys.Principal::tenantId))
            .orElse(null);
        final String user = Optional.ofNullable(text(call, "userId")).or(() -> principal.map(ApiKeys.Principal::userId))
            .orElse(null);
        if (tenant == null || user == null) {
            return error("tenantId and userId are required (a user API key supplies both, an admin key the tenant)");
        }
        try {
            final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + context.get(PORT)
                    + "/v1/tenants/" + segment(tenant) + "/users/" + segment(user) + tail + query))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
            if (body != null) {
                request.header("Content-Type", "application/json");
            }
            if (key != null) {
                request.header("Authorization", "Bearer " + key);
            }
            final HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            final JsonNode node = response.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(response.body());
            if (response.statusCode() / 100 != 2) {
                return error(response.statusCode() + " " + node.path("title").asText("") + ": "
                    + node.path("detail").asText(response.body()));
            }
            final Object structured = JSON.convertValue(node, Map.class);
            final String text = CONTEXT.equals(call.name()) ? node.path("context").asText() : response.body();
            return McpSchema.CallToolResult.builder().addTextContent(text).structuredContent(structured).isError(false).build();
        } catch (IOException e) {
            return error("The memory API could not be reached: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return error("Interrupted");
        }
    }

    private static McpSchema.CallToolResult error(final String message) {
        return McpSchema.CallToolResult.builder().addTextContent(message).isError(true).build();
    }

    private static McpSchema.Tool tool(final String name, final String description, final Map<String, Object> properties,
                                       final List<String> required, final boolean readOnly) {
        final Map<String, Object> all = new LinkedHashMap<>();
        all.put("tenantId", string("tenant; default: the API key's tenant"));
        all.put("userId", string("user; default: the API key's user"));
        all.putAll(properties);
        final Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", all);
        schema.put("required", required);
        schema.put("additionalProperties", false);
        return McpSchema.Tool.builder().name(name).description(description).inputSchema(schema)
            .annotations(new McpSchema.ToolAnnotations(null, readOnly, !readOnly && DELETE.equals(name), true, false, null))
            .build();
    }

    private static Map<String, Object> string(final String description) {
        return Map.of("type", "string", "description", description);
    }

    private static Map<String, Object> integer(final String description) {
        return Map.of("type", "integer", "description", description);
    }

    private static String text(final McpSchema.CallToolRequest call, final String name) {
        final Object value = call.arguments() == null ? null : call.arguments().get(name);
        return value == null || value.toString().isBlank() ? null : value.toString();
    }

    private static String argument(final McpSchema.CallToolRequest call, final String name) {
        final String value = text(call, name);
        return value == null ? "" : value;
    }

    private static String query(final McpSchema.CallToolRequest call, final String... names) {
        final StringJoiner joiner = new StringJoiner("&", "?", "").setEmptyValue("");
        for (final String name : names) {
            final Object value = call.arguments() == null ? null : call.arguments().get(name);
            if (value != null) {
                final String raw = value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                    ? Long.toString(n.longValue()) : value.toString();
                joiner.add(name + "=" + segment(raw));
            }
        }
        return joiner.toString();
    }

    private static Map<String, Object> correction(final McpSchema.CallToolRequest call) {
        final Map<String, Object> body = new LinkedHashMap<>();
        for (final String field : List.of("content", "value")) {
            final String value = text(call, field);
            if (value != null) {
                body.put(field, value);
            }
        }
        return body;
    }

    private static String segment(final String raw) {
        return URLEncoder.encode(raw, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
