package dev.engram.retriever;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndexUnavailableException;
import dev.engram.runtime.ApiProblem;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.ScoredMemory;
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
 * Errors (problem+json): blank or missing tenant/user, bad {@code k}, {@code budgetTokens}, {@code type}
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

    private final RetrievalService service;
    private final HybridScorer scorer;
    private final AccessReporter access;
    private final HttpClient forwardClient;
    private final MeterRegistry registry;
    private final int defaultK;
    private final int maxK;
    private final int defaultBudget;
    private final long indexRetryAfterSeconds;

    /**
     * @param config k limits and the default context budget
     * @param service store access
     * @param scorer ranks one user's memories
     * @param access reports hits to memory-access
     * @param forwardClient HTTP client used to forward to the owning instance
     * @param registry where request timers are registered
     */
    public RetrieverApi(final EngramConfig config, final RetrievalService service, final HybridScorer scorer,
                        final AccessReporter access, final HttpClient forwardClient, final MeterRegistry registry) {
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
        app.get(USER_PATH + "/profile", ctx -> timed("profile", ctx, this::profile));
        app.get(USER_PATH + "/memories", ctx -> timed("memories", ctx, this::memories));
        app.get(USER_PATH + "/memories/{id}/history", ctx -> timed("history", ctx, this::history));
        app.get(USER_PATH + "/context", ctx -> timed("context", ctx, this::context));
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
        if (query != null && query.isBlank()) {
            throw ApiProblem.badRequest("query must not be blank; omit it to list all memories");
        }
        if (forwarded(ctx, user)) {
            return;
        }
        requireKnown(user);
        final List<Memory> memories = service.memories(user);
        if (query != null) {
            // asOf answers "what did we know at T" from the versions' validity (exact, over the local versions),
            // without reporting access; the current answer takes its dense candidates from the vector index
            final List<ScoredMemory> hits = asOf == null ? rank(user, query, memories, k)
                : scorer.rankAsOf(query, memories, k, asOf);
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
        final List<ApiViews.MemoryView> views = memories.stream()
            .filter(m -> type == null || m.getType() == type)
            .filter(m -> status == null || m.getStatus() == status)
            .sorted(Comparator.comparing(Memory::getUpdatedAt).reversed().thenComparing(Memory::getMemoryId))
            .map(ApiViews.MemoryView::of).toList();
        ctx.json(new ApiViews.MemoryList(user.tenantId(), user.userId(), views.size(), views));
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
        if (message == null || message.isBlank()) {
            throw ApiProblem.badRequest("message is required and must not be blank");
        }
        final int budget = intParam(ctx, "budgetTokens", defaultBudget, 1, MAX_BUDGET_TOKENS);
        if (forwarded(ctx, user)) {
            return;
        }
        requireKnown(user);
        final List<ScoredMemory> hits = rank(user, message, service.memories(user), maxK);
        final ContextBlock.Result block = ContextBlock.build(hits, budget);
        access.report(user, block.included());
        ctx.json(new ApiViews.Context(user.tenantId(), user.userId(), budget, block.estimatedTokens(),
            block.included(), block.text()));
    }

    /** Ranks through the scorer; a vector index that cannot answer now is a 503 with Retry-After. */
    private List<ScoredMemory> rank(final UserKey user, final String query, final List<Memory> memories, final int k) {
        try {
            return scorer.rank(user, query, memories, k);
        } catch (VectorIndexUnavailableException e) {
            throw ApiProblem.unavailable("The vector index is unavailable, so memories cannot be searched right now; "
                + "retry shortly. Profile and memory views are still served.", indexRetryAfterSeconds);
        }
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
        try {
            final HttpResponse<byte[]> response = forwardClient.send(HttpRequest.newBuilder(uri).GET()
                .header(FORWARDED_HEADER, "1").timeout(Duration.ofSeconds(10)).build(),
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

    private static UserKey user(final Context ctx) {
        try {
            return new UserKey(ctx.pathParam("tenant"), ctx.pathParam("user"));
        } catch (IllegalArgumentException e) {
            throw ApiProblem.badRequest(e.getMessage());
        }
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
