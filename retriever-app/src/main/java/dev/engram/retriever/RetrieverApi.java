package dev.engram.retriever;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Clock;

import dev.engram.avro.AuditRecord;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.port.Embedder;
import dev.engram.privacy.PiiFilter;
import dev.engram.runtime.ApiProblem;
import dev.engram.scoring.HybridScorer;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import dev.engram.topics.Topic;

/**
 * The retrieval HTTP API; tenant and user are always in the path and every read
 * goes through {@link RetrievalService}'s per-user prefix scan.
 *
 * Reads ({@link ReadRoutes}):
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
 * Writes ({@link WriteRoutes}), each published to {@code memory-commands} and answered 202 with the
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
 * {@code POST .../conversations} publishes a completed conversation to {@code conversations-completed} instead (for a
 * chat platform without a Kafka client; {@link ConversationRoute}), answered 202 once the broker has it.
 * Tenant admin routes ({@link TenantRoutes}, ADMIN keys of the tenant only): {@code PUT /v1/tenants/{tenant}/settings}
 * writes a new version of the tenant's settings to {@code tenant-settings} (custom categories, instructions, disabled
 * built-in categories, retention, daily token budget), {@code GET} reads the newest (or {@code ?asOf=});
 * {@code GET /v1/tenants/{tenant}/usage} is the tenant's cost ledger (LLM calls, tokens, estimated cost per day).
 * {@code GET .../export} returns the profile and every memory held for the user as JSON (GDPR Art. 15 and
 * 20). While the user's memory is off, query and context requests return no memories.
 *
 * <p><b>Authentication and isolation</b> ({@link ApiAccess}). With {@code retriever.auth.enabled} (the default) every
 * {@code /v1} request needs an API key ({@code Authorization: Bearer KEY} or {@code X-Api-Key}) known to
 * {@link ApiKeys}, else 401. The only way a handler gets the user it works on is {@link ApiAccess#user},
 * which builds the {@link UserKey} from the path and refuses (403) a user the caller's key may not reach
 * (another tenant, or another user for a USER key). Every answer of a {@code /v1} request is audited on
 * {@code memory-audit} ({@link AuditRecord}: key id, scope, tenant, user, action, memory id, command id,
 * outcome, status; never content or query text) by the instance the caller reached.
 *
 * <p>{@code GET /panel} serves the memory panel (plain HTML and JavaScript calling this API).
 *
 * <p>Errors (problem+json): blank or missing tenant/user, bad {@code k}, {@code budgetTokens}, {@code type}
 * or {@code status}, blank {@code query} or {@code message} → 400; a user without a profile (never seen,
 * or erased) or an unknown memory → 404 (503 with Retry-After while the instance has not caught up since its start:
 * {@link RetrievalService#unknown}); stores not queryable → 503 with Retry-After; a query or context
 * request while the vector index (Qdrant) is unavailable → 503 with Retry-After (profile and list views
 * are served from the stores all the same). A request for a
 * user owned by another instance is forwarded there once (header {@value #FORWARDED_HEADER}, {@link OwnerForwarder}).
 *
 * <p>This class wires the routes; the read routes are {@link ReadRoutes}, the write routes
 * {@link WriteRoutes}, parameter parsing {@link ApiRequests}.
 */
public final class RetrieverApi {

    /** Marks a forwarded request, so that a second hop is refused rather than looping. */
    public static final String FORWARDED_HEADER = "X-Engram-Forwarded";
    /** Largest accepted token budget of the context endpoint. */
    public static final int MAX_BUDGET_TOKENS = 100_000;

    private static final String TENANT_PATH = "/v1/tenants/{tenant}";
    private static final String USER_PATH = TENANT_PATH + "/users/{user}";

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

    /** Timer of the API's requests, tags {@code endpoint} and {@code status} (a histogram: p95/p99 from /metrics). */
    public static final String METER_REQUESTS = "engram.retrieval.requests";
    /** The smallest request latency the histogram resolves (its first bucket). */
    static final java.time.Duration MIN_EXPECTED = java.time.Duration.ofMillis(1);
    /** The largest request latency the histogram resolves (its last finite bucket). */
    static final java.time.Duration MAX_EXPECTED = java.time.Duration.ofSeconds(30);
    /**
     * The histogram's bucket bounds, 1-2.5-5 steps from {@link #MIN_EXPECTED} to {@link #MAX_EXPECTED}: 14 buckets per
     * endpoint and status (Micrometer's percentile histogram would publish about 70), fine enough for p95/p99 alerts.
     */
    static final java.time.Duration[] BUCKETS = java.util.stream.Stream.of(1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500,
        5000, 10_000, 30_000).map(ms -> java.time.Duration.ofNanos(Math.round(ms.doubleValue() * 1_000_000)))
        .toArray(java.time.Duration[]::new);

    private final MeterRegistry registry;
    /** The request timer of each endpoint and status, registered once rather than looked up in the registry per request. */
    private final java.util.Map<String, Timer> timers = new java.util.concurrent.ConcurrentHashMap<>();
    private final String panelHtml;
    private final ApiAccess auth;
    private final ReadRoutes reads;
    private final WriteRoutes writes;
    private final ErasureRoute erasure;
    private final ConversationRoute conversations;
    private final TenantRoutes tenants;

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
        this(config, service, scorer, access, forwardClient, registry, privacy, null);
    }

    /**
     * With the tenant admin routes ({@link TenantRoutes}).
     *
     * @param config k limits and the default context budget
     * @param service store access
     * @param scorer ranks one user's memories
     * @param access reports hits to memory-access
     * @param forwardClient HTTP client used to forward to the owning instance
     * @param registry where request timers are registered
     * @param privacy authentication, commands, audit and the PII filter
     * @param tenantAdmin writes and reads tenant-settings; null: the tenant routes answer 503
     */
    public RetrieverApi(final EngramConfig config, final RetrievalService service, final HybridScorer scorer,
                        final AccessReporter access, final HttpClient forwardClient, final MeterRegistry registry,
                        final Privacy privacy, final TenantAdmin tenantAdmin) {
        this.registry = registry;
        this.panelHtml = resource("/panel/index.html");
        this.auth = new ApiAccess(privacy.authEnabled(), privacy.keys(), privacy.audit(), privacy.clock());
        final OwnerForwarder owner = new OwnerForwarder(service, forwardClient);
        this.reads = new ReadRoutes(config, service, scorer, access, auth, owner, privacy.clock());
        this.writes = new WriteRoutes(service, auth, owner, privacy);
        this.erasure = new ErasureRoute(service, auth, owner, privacy.authEnabled(),
            dev.engram.crypto.PersonalSerdes.keys(config, Topic.DATA_KEYS.name()));
        this.conversations = new ConversationRoute(auth, privacy.commands(),
            dev.engram.validation.ConversationValidator.from(config), privacy.clock());
        this.tenants = tenantAdmin == null ? null : new TenantRoutes(auth, tenantAdmin, privacy.clock());
    }

    /**
     * The anti-framing headers of the panel's pages: {@code X-Frame-Options: DENY} and
     * {@code Content-Security-Policy: frame-ancestors 'none'} (the older header for older browsers, the policy for
     * current ones). The panel carries Delete and Erase buttons, so a page of another site must not frame it and lure
     * a click on them (clickjacking); the policy sets nothing else, so the page's own inline script still runs.
     *
     * @param ctx a request to {@code /panel} or {@code /panel/docs}
     * @return the same context, for chaining
     */
    static io.javalin.http.Context notFramed(final io.javalin.http.Context ctx) {
        return ctx.header("X-Frame-Options", "DENY").header("Content-Security-Policy", "frame-ancestors 'none'");
    }

    /**
     * Adds the routes.
     *
     * @param app the server
     */
    public void register(final Javalin app) {
        app.before("/v1/*", ApiAccess::rejectMissingIds);
        // only where a route matched: a POST to a path that takes none is a 405, whatever its Content-Type
        app.beforeMatched("/v1/*", ApiAccess::rejectNonJsonBody);
        app.before("/v1/*", auth::authenticate);
        app.after("/v1/*", auth::audit);
        app.get("/panel", ctx -> notFramed(ctx).html(panelHtml));
        app.get(USER_PATH + "/profile", ctx -> timed("profile", ctx, reads::profile));
        app.get(USER_PATH + "/memories", ctx -> timed("memories", ctx, reads::memories));
        app.get(USER_PATH + "/memories/{id}/history", ctx -> timed("history", ctx, reads::history));
        app.get(USER_PATH + "/context", ctx -> timed("context", ctx, reads::context));
        app.get(USER_PATH + "/export", ctx -> timed("export", ctx, reads::export));
        app.put(USER_PATH + "/memories/{id}", ctx -> timed("correct", ctx, writes::correct));
        app.delete(USER_PATH + "/memories/{id}", ctx -> timed("delete", ctx, writes::deleteMemory));
        app.delete(USER_PATH, ctx -> timed("erase", ctx, writes::erase));
        app.put(USER_PATH + "/settings", ctx -> timed("settings", ctx, writes::settings));
        app.get(USER_PATH + "/erasure", ctx -> timed("erasure", ctx, erasure::check));
        app.post(USER_PATH + "/conversations", ctx -> timed("conversations", ctx, conversations::post));
        app.put(TENANT_PATH + "/settings", ctx -> timed("tenant-settings", ctx, tenantRoutes()::put));
        app.get(TENANT_PATH + "/settings", ctx -> timed("tenant-settings", ctx, tenantRoutes()::get));
        app.get(TENANT_PATH + "/usage", ctx -> timed("tenant-usage", ctx, tenantRoutes()::usage));
    }

    private TenantRoutes tenantRoutes() {
        if (tenants == null) {
            throw ApiProblem.unavailable("Tenant settings are not served by this instance.", 5);
        }
        return tenants;
    }

    private interface Handler {
        void handle(Context ctx) throws Exception;
    }

    private void timed(final String endpoint, final Context ctx, final Handler handler) throws Exception {
        final Timer.Sample sample = Timer.start(registry);
        int status = 500; // an exception that is neither of the two below is answered 500 by ProblemErrorHandler
        try {
            handler.handle(ctx);
            status = ctx.statusCode();
        } catch (ApiProblem e) {
            status = e.status();
            throw e;
        } catch (io.javalin.http.HttpResponseException e) {
            status = e.getStatus();
            throw e;
        } finally {
            sample.stop(requestTimer(registry, timers, endpoint, status));
        }
    }

    /**
     * The request timer of one endpoint and status ({@value #METER_REQUESTS}): a Prometheus histogram ({@link #BUCKETS},
     * {@link #MIN_EXPECTED} to {@link #MAX_EXPECTED}) so that {@code histogram_quantile} gives p95/p99 per endpoint,
     * and the status so that an error rate is {@code status=~"5.."} over all. Registered once per pair.
     *
     * @param registry where it is registered
     * @param timers the cache of registered timers, by {@code endpoint status}
     * @param endpoint the route's short name, e.g. {@code memories}
     * @param status the HTTP status answered
     * @return the timer
     */
    static Timer requestTimer(final MeterRegistry registry, final java.util.Map<String, Timer> timers, final String endpoint,
                              final int status) {
        return timers.computeIfAbsent(endpoint + ' ' + status, e -> Timer.builder(METER_REQUESTS)
            .description("Retrieval API request latency, by endpoint and HTTP status").tag("endpoint", endpoint)
            .tag("status", Integer.toString(status)).serviceLevelObjectives(BUCKETS)
            .minimumExpectedValue(MIN_EXPECTED).maximumExpectedValue(MAX_EXPECTED).register(registry));
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
}
