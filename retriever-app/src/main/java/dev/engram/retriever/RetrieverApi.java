package dev.engram.retriever;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.AuditRecord;
import dev.engram.avro.CommandKind;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.port.Embedder;
import dev.engram.privacy.PiiFilter;
import dev.engram.port.VectorIndexUnavailableException;
import dev.engram.runtime.ApiProblem;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.ScoredMemory;
import dev.engram.scoring.Vectors;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The retrieval HTTP API (DESIGN.md, "HTTP API"); tenant and user are always in the path and every read
 * goes through {@link RetrievalService}'s per-user prefix scan.
 *
 * <table>
 *   <caption>routes</caption>
 *   <tr><td>{@code GET /v1/tenants/{tenant}/users/{user}/profile}</td><td>{@link ApiViews.Profile}</td></tr>
 *   <tr><td>{@code GET .../memories?query=…&k=5[&asOf=T]}</td><td>{@link ApiViews.QueryResult}: top-k ACTIVE
 *       memories (with {@code asOf}: the memories valid at event time T, whatever their status now;
 *       {@code recordAccess=false}: an evaluation or admin read whose hits are not reported as use)
 *       with score and components; the hits are reported on {@code memory-access}</td></tr>
 *   <tr><td>{@code GET .../memories[?type=…&status=…]}</td><td>{@link ApiViews.MemoryList}: every stored
 *       memory of the user, newest change first</td></tr>
 *   <tr><td>{@code GET .../memories/{id}/history}</td><td>{@link ApiViews.History}: every version of the
 *       memory (operation, cause, event time, state after), oldest first</td></tr>
 *   <tr><td>{@code GET .../context?message=…&budgetTokens=…}</td><td>{@link ApiViews.Context}, see
 *       {@link ContextBlock}; the included memories are reported on {@code memory-access}</td></tr>
 * </table>
 * Writes (DESIGN.md "HTTP API"), each published to {@code memory-commands} and answered 202 with the
 * command id once the broker has it; the consolidator applies them in order with the user's other events:
 * <table>
 *   <caption>write routes</caption>
 *   <tr><td>{@code PUT .../memories/{id}}</td><td>{@code {"content": …, "value": …}}: CORRECT (source
 *       CORRECTED, confidence 1.0); personal identifiers are redacted (or the correction refused with 422
 *       when {@code privacy.pii.action=drop}); 404 when the memory is not this user's</td></tr>
 *   <tr><td>{@code DELETE .../memories/{id}}</td><td>DELETE; 404 when the memory is not this user's</td></tr>
 *   <tr><td>{@code DELETE /v1/tenants/{tenant}/users/{user}}</td><td>ERASE everything about the user
 *       (accepted for unknown users too: their events may still be in flight)</td></tr>
 *   <tr><td>{@code PUT .../settings}</td><td>{@code {"memoryEnabled": false}}: SET_MEMORY_ENABLED</td></tr>
 * </table>
 * {@code GET .../export} returns the profile and every memory held for the user as JSON (GDPR Art. 15 and
 * 20). While the user's memory is off, query and context requests return no memories.
 *
 * <p><b>Authentication and isolation.</b> With {@code retriever.auth.enabled} (the default) every
 * {@code /v1} request needs an API key ({@code Authorization: Bearer KEY} or {@code X-Api-Key}) known to
 * {@link ApiKeys}, else 401. The only way a handler gets the user it works on is {@link #user(Context)},
 * which builds the {@link UserKey} from the path and refuses (403) a user the caller's key may not reach
 * (another tenant, or another user for a USER key). Every answer of a {@code /v1} request is audited on
 * {@code memory-audit} ({@link AuditRecord}: key id, scope, tenant, user, action, memory id, command id,
 * outcome, status; never content or query text) by the instance the caller reached.
 *
 * <p>{@code GET /panel} serves the memory panel (plain HTML and JavaScript calling this API).
 *
 * <p>Errors (problem+json): blank or missing tenant/user, bad {@code k}, {@code budgetTokens}, {@code type}
 * or {@code status}, blank {@code query} or {@code message} → 400; a user without a profile (never seen,
 * or erased) or an unknown memory → 404; stores not queryable → 503 with Retry-After; a query or context
 * request while the vector index (Qdrant) is unavailable → 503 with Retry-After (profile and list views
 * are served from the stores all the same). A request for a
 * user owned by another instance is forwarded there once (header {@value #FORWARDED_HEADER}).
 */
public final class RetrieverApi {

    /** Marks a forwarded request, so that a second hop is refused rather than looping. */
    public static final String FORWARDED_HEADER = "X-Engram-Forwarded";
    /** Largest accepted token budget of the context endpoint. */
    public static final int MAX_BUDGET_TOKENS = 100_000;

    private static final String USER_PATH = "/v1/tenants/{tenant}/users/{user}";
    private static final String PRINCIPAL = "engram.principal";
    private static final String COMMAND_ID = "engram.commandId";
    private static final String DETAIL = "engram.auditDetail";
    /** Longest accepted corrected content or value, in characters. */
    static final int MAX_CORRECTION_CHARS = 2000;
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The privacy side of the API.
     *
     * @param authEnabled require API keys ({@code retriever.auth.enabled})
     * @param keys the API keys
     * @param commands publishes writes to memory-commands
     * @param audit writes audit records to memory-audit
     * @param pii filters corrections before they are published
     * @param embedder embeds corrected content (the model of the stored embeddings)
     * @param clock time of commands and audit records
     */
    public record Privacy(boolean authEnabled, ApiKeys keys, CommandPublisher commands, AuditReporter audit,
                          PiiFilter pii, Embedder embedder, Clock clock) {
    }

    private final RetrievalService service;
    private final HybridScorer scorer;
    private final AccessReporter access;
    private final HttpClient forwardClient;
    private final MeterRegistry registry;
    private final int defaultK;
    private final int maxK;
    private final int defaultBudget;
    private final long indexRetryAfterSeconds;
    private final Privacy privacy;
    private final String panelHtml;

    /**
     * @param config k limits and the default context budget
     * @param service store access
     * @param scorer ranks one user's memories
     * @param access reports hits to memory-access
     * @param forwardClient HTTP client used to forward to the owning instance
     * @param registry where request timers are registered
     * @param privacy authentication, commands, audit and the PII filter
     */
    public RetrieverApi(final EngramConfig config, final RetrievalService service, final HybridScorer scorer,
                        final AccessReporter access, final HttpClient forwardClient, final MeterRegistry registry,
                        final Privacy privacy) {
        this.privacy = privacy;
        this.panelHtml = resource("/panel/index.html");
        this.service = service;
        this.scorer = scorer;
        this.access = access;
        this.forwardClient = forwardClient;
        this.registry = registry;
        this.defaultK = config.getInt(EngramConfig.DEFAULT_K);
        this.maxK = config.getInt(EngramConfig.MAX_K);
        this.defaultBudget = config.getInt(EngramConfig.CONTEXT_BUDGET_TOKENS);
        this.indexRetryAfterSeconds = Math.max(1, (config.getInt(EngramConfig.QDRANT_RETRY_BUDGET_MS) + 999) / 1000);
    }

    /**
     * Adds the routes.
     *
     * @param app the server
     */
    public void register(final Javalin app) {
        app.before("/v1/*", RetrieverApi::rejectMissingIds);
        app.before("/v1/*", this::authenticate);
        app.after("/v1/*", this::audit);
        app.get("/panel", ctx -> ctx.html(panelHtml));
        app.get(USER_PATH + "/profile", ctx -> timed("profile", ctx, this::profile));
        app.get(USER_PATH + "/memories", ctx -> timed("memories", ctx, this::memories));
        app.get(USER_PATH + "/memories/{id}/history", ctx -> timed("history", ctx, this::history));
        app.get(USER_PATH + "/context", ctx -> timed("context", ctx, this::context));
        app.get(USER_PATH + "/export", ctx -> timed("export", ctx, this::export));
        app.put(USER_PATH + "/memories/{id}", ctx -> timed("correct", ctx, this::correct));
        app.delete(USER_PATH + "/memories/{id}", ctx -> timed("delete", ctx, this::deleteMemory));
        app.delete(USER_PATH, ctx -> timed("erase", ctx, this::erase));
        app.put(USER_PATH + "/settings", ctx -> timed("settings", ctx, this::settings));
    }

    private interface Handler {
        void handle(Context ctx) throws Exception;
    }

    private void timed(final String endpoint, final Context ctx, final Handler handler) throws Exception {
        final Timer.Sample sample = Timer.start(registry);
        try {
            handler.handle(ctx);
        } finally {
            sample.stop(Timer.builder("engram.retrieval.requests").description("Retrieval API request latency")
                .tag("endpoint", endpoint).register(registry));
        }
    }

    private void profile(final Context ctx) throws Exception {
        final UserKey user = user(ctx);
        if (forwarded(ctx, user)) {
            return;
        }
        ctx.json(ApiViews.Profile.of(requireKnown(user)));
    }

    private void memories(final Context ctx) throws Exception {
        final UserKey user = user(ctx);
        final String query = ctx.queryParam("query");
        final int k = k(ctx);
        final MemoryType type = enumParam(ctx, "type", MemoryType.class);
        final MemoryStatus status = enumParam(ctx, "status", MemoryStatus.class);
        final Instant asOf = instantParam(ctx, "asOf");
        final boolean recordAccess = booleanParam(ctx, "recordAccess", true);
        if (query != null && !hasWords(query)) {
            throw ApiProblem.badRequest("query must contain a letter or digit; omit it to list all memories");
        }
        if (forwarded(ctx, user)) {
            return;
        }
        final UserProfile profile = requireKnown(user);
        if (query != null) {
            // asOf answers "what did we know at T" from the versions' validity (exact, over the local versions),
            // without reporting access; the current answer takes its dense candidates from the vector index
            final double minScore = doubleParam(ctx, "minScore", 0, 0, 1);
            final List<ScoredMemory> hits = !profile.getMemoryEnabled() ? List.<ScoredMemory>of()
                : asOf == null ? rank(user, query, k, minScore)
                : service.searchIndex(user).map(index -> scorer.rankAsOf(index, OwnNames.strip(query, user, profile), k, asOf))
                    .orElse(List.of());
            ctx.attribute(DETAIL, "hits=" + hits.size());
            final List<ApiViews.Hit> body = new ArrayList<>(hits.size());
            final List<String> ids = new ArrayList<>(hits.size());
            for (final ScoredMemory hit : hits) {
                body.add(ApiViews.Hit.of(hit));
                ids.add(hit.memory().getMemoryId());
            }
            if (asOf == null && recordAccess) {
                access.report(user, ids);
            }
            ctx.json(new ApiViews.QueryResult(user.tenantId(), user.userId(), query, k, body));
            return;
        }
        final List<ApiViews.MemoryView> views = service.memories(user).stream()
            .filter(m -> type == null || m.getType() == type)
            .filter(m -> status == null || m.getStatus() == status)
            .sorted(Comparator.comparing(Memory::getUpdatedAt).reversed().thenComparing(Memory::getMemoryId))
            .map(ApiViews.MemoryView::of).toList();
        ctx.attribute(DETAIL, "count=" + views.size());
        ctx.json(new ApiViews.MemoryList(user.tenantId(), user.userId(), views.size(), views));
    }

    private void export(final Context ctx) throws Exception {
        final UserKey user = user(ctx);
        if (forwarded(ctx, user)) {
            return;
        }
        final UserProfile profile = requireKnown(user);
        final List<ApiViews.MemoryView> views = service.memories(user).stream()
            .sorted(Comparator.comparing(Memory::getCreatedAt).thenComparing(Memory::getMemoryId))
            .map(ApiViews.MemoryView::of).toList();
        final Map<String, Object> body = new LinkedHashMap<>();
        body.put("format", "engram-export-v1");
        body.put("exportedAt", privacy.clock().instant());
        body.put("tenantId", user.tenantId());
        body.put("userId", user.userId());
        body.put("settings", Map.of("memoryEnabled", profile.getMemoryEnabled()));
        body.put("profile", ApiViews.Profile.of(profile));
        body.put("memories", views);
        ctx.attribute(DETAIL, "count=" + views.size());
        ctx.header("Content-Disposition", "attachment; filename=\"engram-export.json\"");
        ctx.json(body);
    }

    private void correct(final Context ctx) throws Exception {
        final UserKey user = user(ctx);
        final String memoryId = memoryId(ctx);
        final JsonNode body = body(ctx);
        final String content = optionalText(body, "content");
        final String value = optionalText(body, "value");
        if (content == null && value == null) {
            throw ApiProblem.badRequest("give the corrected content and/or value, e.g. {\"content\": \"Lives in Braga\"}");
        }
        if (forwarded(ctx, user)) {
            return;
        }
        requireMemory(user, memoryId);
        final String cleanContent = content == null ? null : privacy.pii().filterText(content);
        final String cleanValue = value == null ? null : privacy.pii().filterText(value);
        if (content != null && cleanContent == null || value != null && cleanValue == null) {
            throw new ApiProblem(422, "The correction contains a card number, IBAN or national id and is not stored.");
        }
        final MemoryCommand.Builder command = newCommand(ctx, user, CommandKind.CORRECT).setMemoryId(memoryId)
            .setContent(cleanContent).setValue(cleanValue);
        if (cleanContent != null) {
            command.setEmbedding(Vectors.toList(privacy.embedder().embed(cleanContent)));
        }
        accept(ctx, command.build());
    }

    private void deleteMemory(final Context ctx) throws Exception {
        final UserKey user = user(ctx);
        final String memoryId = memoryId(ctx);
        if (forwarded(ctx, user)) {
            return;
        }
        requireMemory(user, memoryId);
        accept(ctx, newCommand(ctx, user, CommandKind.DELETE).setMemoryId(memoryId).build());
    }

    private void erase(final Context ctx) {
        final UserKey user = user(ctx);
        accept(ctx, newCommand(ctx, user, CommandKind.ERASE).build());
    }

    private void settings(final Context ctx) {
        final UserKey user = user(ctx);
        final JsonNode enabled = body(ctx).get("memoryEnabled");
        if (enabled == null || !enabled.isBoolean()) {
            throw ApiProblem.badRequest("memoryEnabled (true or false) is required");
        }
        accept(ctx, newCommand(ctx, user, CommandKind.SET_MEMORY_ENABLED).setMemoryEnabled(enabled.booleanValue()).build());
    }

    private MemoryCommand.Builder newCommand(final Context ctx, final UserKey user, final CommandKind kind) {
        final ApiKeys.Principal principal = ctx.attribute(PRINCIPAL);
        return MemoryCommand.newBuilder().setCommandId(UUID.randomUUID().toString()).setTenantId(user.tenantId())
            .setUserId(user.userId()).setKind(kind).setMemoryId(null).setContent(null).setValue(null)
            .setMemoryEnabled(null).setActor(principal == null ? "anonymous" : "key:" + principal.keyId())
            .setIssuedAt(privacy.clock().instant());
    }

    private void accept(final Context ctx, final MemoryCommand command) {
        privacy.commands().publish(command);
        ctx.attribute(COMMAND_ID, command.getCommandId());
        final Map<String, Object> body = new LinkedHashMap<>();
        body.put("commandId", command.getCommandId());
        body.put("kind", command.getKind().name());
        body.put("status", "ACCEPTED");
        ctx.status(202).json(body);
    }

    private void requireMemory(final UserKey user, final String memoryId) {
        requireKnown(user);
        if (service.memory(user, memoryId).isEmpty()) {
            throw ApiProblem.notFound("No memory " + memoryId + " for this user");
        }
    }

    private static String memoryId(final Context ctx) {
        final String memoryId = ctx.pathParam("id");
        if (memoryId.isBlank()) {
            throw ApiProblem.badRequest("memory id must not be blank");
        }
        return memoryId;
    }

    private static JsonNode body(final Context ctx) {
        final String raw = ctx.body();
        if (raw.isBlank()) {
            throw ApiProblem.badRequest("a JSON body is required");
        }
        try {
            final JsonNode node = JSON.readTree(raw);
            if (node == null || !node.isObject()) {
                throw ApiProblem.badRequest("the body must be a JSON object");
            }
            return node;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw ApiProblem.badRequest("the body is not valid JSON");
        }
    }

    private static String optionalText(final JsonNode body, final String field) {
        final JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual() || node.asText().isBlank()) {
            throw ApiProblem.badRequest(field + " must be a non-blank string");
        }
        if (node.asText().length() > MAX_CORRECTION_CHARS) {
            throw ApiProblem.badRequest(field + " must have at most " + MAX_CORRECTION_CHARS + " characters");
        }
        return node.asText().strip();
    }

    /** Authenticates every /v1 request (401 without a known key); authorization is in {@link #user}. */
    private void authenticate(final Context ctx) {
        if (!privacy.authEnabled()) {
            return;
        }
        String key = ctx.header("X-Api-Key");
        final String authorization = ctx.header("Authorization");
        if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            key = authorization.substring(7);
        }
        final ApiKeys.Principal principal = privacy.keys().authenticate(key).orElseThrow(() -> new ApiProblem(401,
            "A valid API key is required: Authorization: Bearer KEY (or X-Api-Key: KEY)."));
        ctx.attribute(PRINCIPAL, principal);
    }

    /** Emits one audit record per answered /v1 request, at the instance the caller reached. */
    private void audit(final Context ctx) {
        if (ctx.header(FORWARDED_HEADER) != null) {
            return;
        }
        final String[] parts = ctx.path().split("/", -1);
        final String tenant = parts.length > 3 && "tenants".equals(parts[2]) ? decode(parts[3]) : "";
        final String userId = parts.length > 5 && "users".equals(parts[4]) ? decode(parts[5]) : null;
        final String memoryId = parts.length > 7 && "memories".equals(parts[6]) ? decode(parts[7]) : null;
        final ApiKeys.Principal principal = ctx.attribute(PRINCIPAL);
        final int status = ctx.statusCode();
        privacy.audit().record(AuditRecord.newBuilder().setAuditId(UUID.randomUUID().toString())
            .setActor(principal == null ? "anonymous" : "key:" + principal.keyId())
            .setActorScope(principal != null ? principal.scope().name() : privacy.authEnabled() ? "NONE" : "AUTH_DISABLED")
            .setTenantId(tenant).setUserId(userId == null || userId.isBlank() ? null : userId)
            .setAction(action(ctx.method().name(), parts, ctx.queryParam("query") != null))
            .setMemoryId(memoryId).setCommandId(ctx.attribute(COMMAND_ID))
            .setOutcome(outcome(status)).setStatus(status).setDetail(ctx.attribute(DETAIL))
            .setSource(dev.engram.topology.Topics.RETRIEVER_APP).setOccurredAt(privacy.clock().instant()).build());
    }

    private static String action(final String method, final String[] parts, final boolean query) {
        final String tail = parts.length > 6 ? parts[6] : "";
        final boolean oneMemory = parts.length > 7;
        return switch (method + " " + tail) {
            case "GET profile" -> "profile.read";
            case "GET memories" -> oneMemory ? "memory.history" : query ? "memories.query" : "memories.list";
            case "GET context" -> "context.read";
            case "GET export" -> "user.export";
            case "PUT memories" -> "memory.correct";
            case "DELETE memories" -> "memory.delete";
            case "PUT settings" -> "settings.update";
            case "DELETE " -> parts.length == 6 ? "user.erase" : "other";
            default -> method.toLowerCase(Locale.ROOT) + ".other";
        };
    }

    private static String outcome(final int status) {
        if (status == 202) {
            return "ACCEPTED";
        }
        if (status < 300) {
            return "OK";
        }
        return switch (status) {
            case 401 -> "UNAUTHENTICATED";
            case 403 -> "DENIED";
            case 404 -> "NOT_FOUND";
            default -> status >= 500 ? "ERROR" : "INVALID";
        };
    }

    private static String decode(final String segment) {
        try {
            return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return segment;
        }
    }

    private static String resource(final String path) {
        try (InputStream in = RetrieverApi.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void history(final Context ctx) throws Exception {
        final UserKey user = user(ctx);
        final String memoryId = ctx.pathParam("id");
        if (memoryId.isBlank()) {
            throw ApiProblem.badRequest("memory id must not be blank");
        }
        if (forwarded(ctx, user)) {
            return;
        }
        requireKnown(user);
        final List<ApiViews.Version> versions = service.history(user, memoryId).stream()
            .map(ApiViews.Version::of).toList();
        if (versions.isEmpty()) {
            throw ApiProblem.notFound("No memory " + memoryId + " for this user");
        }
        ctx.json(new ApiViews.History(user.tenantId(), user.userId(), memoryId, versions));
    }

    private void context(final Context ctx) throws Exception {
        final UserKey user = user(ctx);
        final String message = ctx.queryParam("message");
        if (message == null || !hasWords(message)) {
            throw ApiProblem.badRequest("message is required and must contain a letter or digit");
        }
        final int budget = intParam(ctx, "budgetTokens", defaultBudget, 1, MAX_BUDGET_TOKENS);
        if (forwarded(ctx, user)) {
            return;
        }
        final List<ScoredMemory> hits = requireKnown(user).getMemoryEnabled()
            ? rank(user, message, maxK, 0) : List.of();
        final ContextBlock.Result block = ContextBlock.build(hits, budget);
        access.report(user, block.included());
        ctx.json(new ApiViews.Context(user.tenantId(), user.userId(), budget, block.estimatedTokens(),
            block.included(), block.text()));
    }

    /**
     * Ranks the user's kept search index through the scorer, without the user's own name in the query
     * ({@link OwnNames}); a vector index that cannot answer now is a 503 with Retry-After.
     */
    private List<ScoredMemory> rank(final UserKey user, final String query, final int k, final double minScore) {
        final String text = OwnNames.strip(query, user, service.profile(user).orElse(null));
        try {
            return service.searchIndex(user).map(index -> scorer.rank(user, index, text, k, minScore)).orElse(List.of());
        } catch (VectorIndexUnavailableException e) {
            throw ApiProblem.unavailable("The vector index is unavailable, so memories cannot be searched right now; "
                + "retry shortly. Profile and memory views are still served.", indexRetryAfterSeconds);
        }
    }

    /**
     * @return true when the text has a letter or digit: blank, invisible (zero-width space, NBSP) or
     *     undecodable (U+FFFD) text has nothing to search or embed
     */
    private static boolean hasWords(final String text) {
        return text.codePoints().anyMatch(c -> Character.isLetterOrDigit(c) && c != 0xFFFD);
    }

    /** @return the decimal query parameter within [min, max], the default when absent; else a 400 */
    private static double doubleParam(final Context ctx, final String name, final double fallback, final double min,
                                      final double max) {
        final String raw = ctx.queryParam(name);
        if (raw == null) {
            return fallback;
        }
        final double value;
        try {
            value = Double.parseDouble(raw.strip());
        } catch (NumberFormatException e) {
            throw ApiProblem.badRequest(name + " must be a number between " + min + " and " + max + ": " + raw);
        }
        if (!(value >= min && value <= max)) {
            throw ApiProblem.badRequest(name + " must be between " + min + " and " + max + ", was " + raw);
        }
        return value;
    }

    /** @return the boolean query parameter ({@code true}/{@code false}), the default when absent; else a 400 */
    private static boolean booleanParam(final Context ctx, final String name, final boolean fallback) {
        final String raw = ctx.queryParam(name);
        if (raw == null) {
            return fallback;
        }
        return switch (raw.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ApiProblem.badRequest(name + " must be true or false: " + raw);
        };
    }

    /** @return the ISO-8601 instant query parameter, null when absent; a malformed one is a 400 */
    private static Instant instantParam(final Context ctx, final String name) {
        final String raw = ctx.queryParam(name);
        if (raw == null) {
            return null;
        }
        try {
            return Instant.parse(raw.strip());
        } catch (java.time.format.DateTimeParseException e) {
            throw ApiProblem.badRequest(name + " must be an ISO-8601 instant such as 2025-03-01T00:00:00Z: " + raw);
        }
    }

    private UserProfile requireKnown(final UserKey user) {
        return service.profile(user).orElseThrow(() -> ApiProblem.notFound("No memories are known for user "
            + user.userId() + " of tenant " + user.tenantId()));
    }

    /**
     * Forwards the request to the instance owning the user, if that is not this one.
     *
     * @return true if the response was produced by the owner
     */
    private boolean forwarded(final Context ctx, final UserKey user) throws InterruptedException {
        final Optional<HostInfo> owner = service.remoteOwner(user);
        if (owner.isEmpty()) {
            return false;
        }
        if (ctx.header(FORWARDED_HEADER) != null) {
            throw ApiProblem.unavailable("The owner of this user is moving between instances; retry shortly.",
                RetrievalService.RETRY_AFTER_SECONDS);
        }
        final String query = ctx.queryString();
        final URI uri = URI.create("http://" + owner.get().host() + ":" + owner.get().port()
            + ctx.req().getRequestURI() + (query == null ? "" : "?" + query));
        final HttpRequest.Builder request = HttpRequest.newBuilder(uri)
            .method(ctx.method().name(), "GET".equals(ctx.method().name()) || "DELETE".equals(ctx.method().name())
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(ctx.bodyAsBytes()))
            .header(FORWARDED_HEADER, "1").timeout(Duration.ofSeconds(10));
        for (final String header : List.of("Authorization", "X-Api-Key", "Content-Type")) {
            final String v = ctx.header(header);
            if (v != null) {
                request.header(header, v);
            }
        }
        try {
            final HttpResponse<byte[]> response = forwardClient.send(request.build(),
                HttpResponse.BodyHandlers.ofByteArray());
            ctx.status(response.statusCode());
            response.headers().firstValue("Content-Type").ifPresent(ctx::contentType);
            response.headers().firstValue("Retry-After").ifPresent(v -> ctx.header("Retry-After", v));
            ctx.result(response.body());
            return true;
        } catch (IOException e) {
            throw ApiProblem.unavailable("The instance owning this user is unreachable; retry shortly.",
                RetrievalService.RETRY_AFTER_SECONDS);
        }
    }

    /** Rejects {@code /v1/tenants//users/x/...} and {@code /v1/tenants/t/users//...}: never a wildcard. */
    private static void rejectMissingIds(final Context ctx) {
        final String[] parts = ctx.path().split("/", -1);
        // ["", "v1", "tenants", tenant, "users", user, ...]
        if (parts.length >= 3 && "tenants".equals(parts[2])) {
            if (parts.length < 4 || parts[3].isBlank()) {
                throw ApiProblem.badRequest("tenantId is missing or blank");
            }
            if (parts.length >= 5 && "users".equals(parts[4]) && (parts.length < 6 || parts[5].isBlank())) {
                throw ApiProblem.badRequest("userId is missing or blank");
            }
        }
    }

    /**
     * The one way a handler learns whose memory it works on: the (tenant, user) of the path, refused with
     * 403 unless the caller's key may reach exactly that user (tenant isolation in one place).
     */
    private UserKey user(final Context ctx) {
        final UserKey user;
        try {
            user = new UserKey(ctx.pathParam("tenant"), ctx.pathParam("user"));
        } catch (IllegalArgumentException e) {
            throw ApiProblem.badRequest(e.getMessage());
        }
        if (privacy.authEnabled()) {
            final ApiKeys.Principal principal = ctx.attribute(PRINCIPAL);
            if (principal == null || !principal.mayAccess(user)) {
                throw new ApiProblem(403, "This API key may not access that tenant or user.");
            }
        }
        return user;
    }

    private int k(final Context ctx) {
        return intParam(ctx, "k", defaultK, 1, maxK);
    }

    private static int intParam(final Context ctx, final String name, final int fallback, final int min,
                                final int max) {
        final String raw = ctx.queryParam(name);
        if (raw == null) {
            return fallback;
        }
        final int value;
        try {
            value = Integer.parseInt(raw.strip());
        } catch (NumberFormatException e) {
            throw ApiProblem.badRequest(name + " must be an integer between " + min + " and " + max);
        }
        if (value < min || value > max) {
            throw ApiProblem.badRequest(name + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    private static <E extends Enum<E>> E enumParam(final Context ctx, final String name, final Class<E> type) {
        final String raw = ctx.queryParam(name);
        if (raw == null) {
            return null;
        }
        try {
            return Enum.valueOf(type, raw.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiProblem.badRequest(name + " must be one of " + java.util.Arrays.toString(type.getEnumConstants()));
        }
    }
}
