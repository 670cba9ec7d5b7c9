package dev.engram.retriever;

import static dev.engram.retriever.McpTools.argument;
import static dev.engram.retriever.McpTools.fields;
import static dev.engram.retriever.McpTools.integer;
import static dev.engram.retriever.McpTools.number;
import static dev.engram.retriever.McpTools.query;
import static dev.engram.retriever.McpTools.segment;
import static dev.engram.retriever.McpTools.string;
import static dev.engram.retriever.McpTools.text;
import static dev.engram.retriever.McpTools.tool;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

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
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The MCP endpoint of the retriever ({@code POST /mcp}, Model Context Protocol over streamable HTTP in its
 * stateless form: every JSON-RPC request is one POST answered with JSON, no session is held, so any retriever
 * instance answers any call). Tools:
 *
 * <table>
 *   <caption>tools, each one call of the HTTP API</caption>
 *   <tr><td>{@value #SEARCH}</td><td>{@code GET .../memories?query=&k=[&minScore=&recordAccess=]}</td></tr>
 *   <tr><td>{@value #CONTEXT}</td><td>{@code GET .../context?message=&budgetTokens=[&recordAccess=]}</td></tr>
 *   <tr><td>{@value #LIST}</td><td>{@code GET .../memories[?type=&status=]}</td></tr>
 *   <tr><td>{@value #CORRECT}</td><td>{@code PUT .../memories/{id}}</td></tr>
 *   <tr><td>{@value #DELETE}</td><td>{@code DELETE .../memories/{id}}</td></tr>
 *   <tr><td>{@value #SAVE_CONVERSATION}</td><td>{@code POST .../conversations}</td></tr>
 * </table>
 * Each tool's {@code outputSchema} is the schema of the HTTP answer it carries, from {@code /openapi.json}
 * ({@link ApiDocs#schema}); the SDK checks every result that is not an error against it.
 *
 * <p><b>Transport rules</b> ({@link McpHttpRules}, checked before the SDK): the protocol versions served and their
 * negotiation, the {@code Origin} check against DNS rebinding (403), an {@code MCP-Protocol-Version} not served (400),
 * CORS for allowed browser origins ({@code OPTIONS /mcp} answers the preflight). A JSON-RPC envelope the SDK would
 * answer with its exception, and a call of a tool not served, are answered here ({@link McpMessages}). The body is
 * read as strictly as the HTTP API's: invalid UTF-8, two JSON values or a duplicate member are a Parse error
 * (−32700, 400), a member JSON-RPC does not define an Invalid Request (−32600, 400), a tool argument the tool does
 * not declare Invalid params (−32602), each naming the fault. Every request
 * is timed in {@value #REQUESTS_METRIC} by JSON-RPC method, tool and HTTP status.
 *
 * <p><b>Scope.</b> A tool does not reach a store itself: it calls this instance's {@code /v1} API at the address the MCP request reached it on
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
    /** Tool: save a completed conversation. */
    public static final String SAVE_CONVERSATION = "save_conversation";
    /** Timer of every MCP request, tagged {@code method}, {@code tool} and {@code status}. */
    public static final String REQUESTS_METRIC = "engram.mcp.requests";

    private static final String AUTHORIZATION = "engram.authorization";
    /** The API's base URL as this request reached it ({@link #apiBase}). */
    private static final String BASE = "engram.apiBase";
    private static final String START = "engram.mcp.start";
    private static final String METHOD = "engram.mcp.method";
    private static final String TOOL = "engram.mcp.tool";
    private static final Map<String, Object> RECORD_ACCESS = Map.of("type", "boolean", "description",
        "false: do not count this read as a use of the memories (default true: reads keep memories from going stale)");
    private static final Map<String, Object> AGENT = Map.of("type", "string", "description",
        "the agent asking (mem0's agent_id): its own memories and the user's shared ones; absent: every memory");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final boolean authEnabled;
    private final McpHttpRules rules;
    private final MeterRegistry registry;
    private final java.util.Set<String> toolNames;
    /** Each tool's argument names (its input schema's properties). */
    private final Map<String, java.util.Set<String>> toolArguments;
    /** Each tool's argument types (its input schema's property types). */
    private final Map<String, Map<String, Object>> toolArgumentTypes;
    private final ApiKeys keys;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();
    private final HttpServletStatelessServerTransport transport;
    private final McpStatelessSyncServer server;

    /**
     * An endpoint allowing browser origins on loopback hosts only, without metrics.
     *
     * @param authEnabled {@code retriever.auth.enabled}
     * @param keys the API keys (used for the 401 at the endpoint and the tools' default tenant and user)
     * @param version the server version reported to clients
     */
    public McpEndpoint(final boolean authEnabled, final ApiKeys keys, final String version) {
        this(authEnabled, keys, version, List.of(), new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
    }

    /**
     * @param authEnabled {@code retriever.auth.enabled}
     * @param keys the API keys (used for the 401 at the endpoint and the tools' default tenant and user)
     * @param version the server version reported to clients
     * @param allowedOrigins browser origins allowed besides loopback ones ({@code retriever.mcp.allowed.origins})
     * @param registry where {@value #REQUESTS_METRIC} is registered
     */
    public McpEndpoint(final boolean authEnabled, final ApiKeys keys, final String version,
                       final List<String> allowedOrigins, final MeterRegistry registry) {
        this.authEnabled = authEnabled;
        this.keys = keys;
        this.rules = new McpHttpRules(allowedOrigins);
        this.registry = registry;
        this.transport = HttpServletStatelessServerTransport.builder().messageEndpoint(PATH)
            .contextExtractor(request -> {
                final Map<String, Object> values = new LinkedHashMap<>();
                values.put(BASE, apiBase(request.getLocalAddr(), request.getLocalPort()));
                ApiAccess.apiKey(request.getHeader("Authorization"), request.getHeader("X-Api-Key"))
                    .ifPresent(key -> values.put(AUTHORIZATION, key));
                return McpTransportContext.create(values);
            }).build();
        final ApiDocs docs = new ApiDocs();
        this.server = McpServer.sync(new NegotiatingTransport(transport)).serverInfo("engram-retriever", version)
            .instructions("Long-term memory of one user. With a user API key, tenantId and userId may be omitted.")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
            .toolCall(tool(SEARCH, "Search the user's memories: the top-k active memories for a query, best first, with scores.",
                Map.of("query", string("what to look for"), "k", integer("how many at most (default 5, at most 100)"),
                    "minScore", number("drop hits scoring below this (0..1)"), "recordAccess", RECORD_ACCESS,
                    "agentId", AGENT),
                List.of("query"), true, docs.schema("QueryResult")),
                (context, call) -> call(context, call, "GET", "/memories",
                    query(call, "query", "k", "minScore", "recordAccess", "agentId"), null))
            .toolCall(tool(CONTEXT, "Get the context block for the user's next message: the memories that matter, as text to put "
                    + "into the prompt, within a token budget.",
                Map.of("message", string("the user's next message"), "budgetTokens", integer("token budget (default 512)"),
                    "recordAccess", RECORD_ACCESS, "agentId", AGENT),
                List.of("message"), true, docs.schema("Context")),
                (context, call) -> call(context, call, "GET", "/context",
                    query(call, "message", "budgetTokens", "recordAccess", "agentId"), null))
            .toolCall(tool(LIST, "List every memory of the user, newest change first.",
                Map.of("type", string("EPISODIC, SEMANTIC or PROCEDURAL"), "status", string("ACTIVE, ARCHIVED or DELETED"), "agentId", AGENT),
                List.of(), true, docs.schema("MemoryList")),
                (context, call) -> call(context, call, "GET", "/memories", query(call, "type", "status", "agentId"), null))
            .toolCall(tool(CORRECT, "Correct one of the user's memories (source CORRECTED, confidence 1.0).",
                Map.of("memoryId", string("the memory"), "content", string("the corrected sentence"),
                    "value", string("the corrected fact value")), List.of("memoryId"), false, docs.schema("Accepted")),
                (context, call) -> call(context, call, "PUT", "/memories/" + segment(argument(call, "memoryId")), "",
                    fields(call, "content", "value")))
            .toolCall(tool(DELETE, "Delete one of the user's memories.", Map.of("memoryId", string("the memory")),
                List.of("memoryId"), false, docs.schema("Accepted")),
                (context, call) -> call(context, call, "DELETE", "/memories/" + segment(argument(call, "memoryId")), "", null))
            .toolCall(tool(SAVE_CONVERSATION, "Save a completed conversation: its memories are extracted and consolidated "
                    + "like any other conversation's (posting the same conversationId again changes nothing).",
                Map.of("conversationId", string("the conversation's id"),
                    "messages", Map.of("type", "array", "description", "the turns, oldest first",
                        "items", docs.schema("Message")),
                    // POST …/conversations' own definition (ISO-8601 with an offset or epoch milliseconds): one form set
                    "completedAt", docs.property("Conversation", "completedAt"),
                    "metadata", Map.of("type", "object", "additionalProperties", Map.of("type", "string")),
                    "agentId", string("the agent the conversation was with (mem0's agent_id); absent: none")),
                List.of("conversationId", "messages"), false, docs.schema("ConversationAccepted")),
                (context, call) -> call(context, call, "POST", "/conversations", "",
                    fields(call, "conversationId", "messages", "completedAt", "metadata", "agentId")))
            .build();
        this.toolNames = server.listTools().stream().map(McpSchema.Tool::name).collect(java.util.stream.Collectors.toSet());
        this.toolArguments = server.listTools().stream().collect(java.util.stream.Collectors.toUnmodifiableMap(
            McpSchema.Tool::name, McpTools::argumentNames));
        this.toolArgumentTypes = server.listTools().stream().collect(java.util.stream.Collectors.toUnmodifiableMap(
            McpSchema.Tool::name, McpTools::argumentTypes));
    }

    /**
     * Adds {@code POST /mcp}, its CORS preflight {@code OPTIONS /mcp}, and their filters (Origin and
     * {@code MCP-Protocol-Version}: {@link McpHttpRules}; then the 401; the request metric) to the server. A POST's
     * body is checked first ({@link McpMessages#invalidEnvelope}), then its {@code Accept}
     * ({@link McpHttpRules#unacceptable}), then the tool and its arguments, before the SDK sees it.
     *
     * @param app the retriever's server
     */
    public void register(final Javalin app) {
        app.before(PATH, this::guard);
        app.before(PATH, this::authenticate);
        app.after(PATH, this::measure);
        app.options(PATH, McpHttpRules::preflight);
        app.post(PATH, ctx -> {
            // a byte order mark is skipped as /v1 skips it (JsonBodies): the SDK's parser would refuse it
            final byte[] body = dev.engram.runtime.JsonBodies.withoutBom(ctx.bodyAsBytes());
            final Optional<JsonNode> message = McpMessages.parse(body);
            message.ifPresent(m -> {
                ctx.attribute(METHOD, McpMessages.method(m));
                ctx.attribute(TOOL, McpMessages.tool(m, toolNames));
            });
            final Optional<String> invalid = McpMessages.invalidEnvelope(body);
            if (invalid.isPresent()) {
                // answered here: the SDK's transport would serialize its exception, stack trace included
                ctx.status(400).contentType("application/json").result(invalid.get());
                return;
            }
            final Optional<McpHttpRules.Refusal> unacceptable = McpHttpRules.unacceptable(ctx.header("Accept"));
            if (unacceptable.isPresent()) {
                // answered here: the SDK's transport says -32601, "Method not found"
                ctx.status(unacceptable.get().status()).contentType("application/json")
                    .result(McpMessages.rpcError(-32600, unacceptable.get().message()));
                return;
            }
            final Optional<String> nonJson = ApiAccess.nonJson(ctx.header("Content-Type"));
            if (nonJson.isPresent()) {
                // the /v1 rule: a Latin-1 body was read as UTF-8 here while /v1 refused it (README trial)
                ctx.status(415).contentType("application/json").result(McpMessages.rpcError(-32600, nonJson.get()));
                return;
            }
            final Optional<String> unknown = message.flatMap(m -> McpMessages.unknownTool(m, toolNames)
                .or(() -> McpMessages.invalidArguments(m, toolArguments))
                .or(() -> McpMessages.wrongArgumentType(m, toolArgumentTypes)));
            if (unknown.isPresent()) {
                // the SDK names no tool ("Unknown tool: invalid_tool_name" whatever was asked)
                ctx.status(200).contentType("application/json").result(unknown.get());
                return;
            }
            final McpServletWrappers.BufferedResponse response = new McpServletWrappers.BufferedResponse(ctx.res());
            transport.service(new McpServletWrappers.BodyRequest(ctx.req(), body), response);
            response.sendSanitized();
        });
    }

    /**
     * The Origin and protocol-version rules ({@link McpHttpRules}): a 403 for a browser origin not allowed, a 400 for
     * an {@code MCP-Protocol-Version} not served, each with a JSON-RPC error without id; CORS headers otherwise.
     */
    private void guard(final Context ctx) {
        ctx.attribute(START, System.nanoTime());
        if (!rules.allows(ctx.header("Origin"))) {
            refuse(ctx, 403, "Forbidden: origin " + ctx.header("Origin") + " is not allowed (a browser page may call "
                + "this endpoint from a loopback origin or one of retriever.mcp.allowed.origins)");
            return;
        }
        McpHttpRules.cors(ctx);
        if (!McpHttpRules.validVersion(ctx.header(McpHttpRules.VERSION_HEADER))) {
            refuse(ctx, 400, "Bad Request: unsupported " + McpHttpRules.VERSION_HEADER + " "
                + ctx.header(McpHttpRules.VERSION_HEADER) + " (supported: " + String.join(", ", McpHttpRules.VERSIONS) + ")");
        }
    }

    private void refuse(final Context ctx, final int status, final String message) {
        ctx.status(status).contentType("application/json").result(McpMessages.rpcError(-32600, message));
        measure(ctx); // counted here: the after-filter may be skipped with the rest
        ctx.skipRemainingHandlers();
    }

    /**
     * Records {@value #REQUESTS_METRIC}: JSON-RPC method (the HTTP method for a request answered before it was read),
     * tool (a served one, {@code unknown} or {@code none}), status.
     */
    private void measure(final Context ctx) {
        final Long start = ctx.attribute(START);
        if (start == null) {
            return;
        }
        ctx.attribute(START, null); // once per request
        final String method = Optional.ofNullable(ctx.<String>attribute(METHOD)).orElse(ctx.method().name());
        final String tool = Optional.ofNullable(ctx.<String>attribute(TOOL)).orElse("none");
        Timer.builder(REQUESTS_METRIC).description("MCP requests: JSON-RPC method, tool and HTTP status")
            .tags("method", method, "tool", tool, "status", Integer.toString(ctx.statusCode()))
            .publishPercentileHistogram().register(registry).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }

    /**
     * The SDK's stateless transport with the protocol versions Engram serves ({@link McpHttpRules#VERSIONS}): the
     * server answers an {@code initialize} with the client's version when it is one of them, else with the latest.
     * The SDK's own list starts at 2025-03-26, so a 2024-11-05 client got 2025-11-25 and disconnected.
     */
    private record NegotiatingTransport(HttpServletStatelessServerTransport http) implements McpStatelessServerTransport {
        @Override
        public void setMcpHandler(final io.modelcontextprotocol.server.McpStatelessServerHandler handler) {
            http.setMcpHandler(handler);
        }

        @Override
        public reactor.core.publisher.Mono<Void> closeGracefully() {
            return http.closeGracefully();
        }

        @Override
        public List<String> protocolVersions() {
            return McpHttpRules.VERSIONS;
        }
    }

    /** @return the names of the tools served */
    public List<String> toolNames() {
        return server.listTools().stream().map(McpSchema.Tool::name).toList();
    }

    private void authenticate(final Context ctx) {
        if (authEnabled && ctx.method() != io.javalin.http.HandlerType.OPTIONS && ApiAccess.apiKey(ctx.header("Authorization"), ctx.header("X-Api-Key"))
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
        final String base = (String) context.get(BASE);
        try {
            final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/v1/tenants/" + segment(tenant) + "/users/" + segment(user) + tail + query))
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
            return error("The memory API at " + base + " could not be reached: "
                + dev.engram.serde.ConnectionFailures.describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return error("Interrupted");
        }
    }

    /**
     * The base URL of this instance's {@code /v1} API as the MCP request reached it: the local address of the
     * request's connection (the address the server is bound to, or with a wildcard bind the interface the client
     * used), so a tool's call reaches the server whatever {@code http.bind.address} is ({@code localhost} did not
     * answer a server bound to 127.0.0.2 or a pod IP).
     *
     * @param localAddress the connection's local IP address (IPv4, or IPv6 possibly with a zone)
     * @param localPort the connection's local port
     * @return e.g. {@code http://127.0.0.2:8080} or {@code http://[::1]:8080}
     */
    static String apiBase(final String localAddress, final int localPort) {
        final String host = localAddress.indexOf(':') >= 0
            ? "[" + localAddress.replace("%", "%25") + "]" : localAddress;
        return "http://" + host + ":" + localPort;
    }

    private static McpSchema.CallToolResult error(final String message) {
        return McpSchema.CallToolResult.builder().addTextContent(message).isError(true).build();
    }
}
