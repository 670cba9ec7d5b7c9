package dev.engram.retriever;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

import dev.engram.avro.AuditRecord;
import dev.engram.core.UserKey;
import dev.engram.runtime.ApiProblem;
import io.javalin.http.Context;
import dev.engram.topics.AppIds;

/**
 * Who may call the API and what they did: the {@code /v1} before-filters (ids present, API key known)
 * and after-filter (one audit record per answered request), and {@link #user(Context)}, the one way a
 * route learns whose memory it works on.
 *
 * <p>With authentication on, a request without a known key ({@code Authorization: Bearer KEY} or
 * {@code X-Api-Key}) is a 401, and {@link #user(Context)} refuses (403) a user the caller's key may not
 * reach (another tenant, or another user for a USER key). The audit record ({@link AuditRecord}: key id,
 * scope, tenant, user, action, memory id, command id, outcome, status; never content or query text) is
 * written by the instance the caller reached, not by the owner a request was forwarded to.
 */
final class ApiAccess {

    /** Request attribute: the authenticated {@link ApiKeys.Principal}, absent with auth off. */
    static final String PRINCIPAL = "engram.principal";
    /** Request attribute: the id of the command a write published, for the audit record. */
    static final String COMMAND_ID = "engram.commandId";
    /** Request attribute: a count for the audit record ({@code hits=3}, {@code count=12}). */
    static final String DETAIL = "engram.auditDetail";

    private final boolean authEnabled;
    private final ApiKeys keys;
    private final AuditReporter audit;
    private final Clock clock;

    /**
     * @param authEnabled require API keys ({@code retriever.auth.enabled})
     * @param keys the API keys
     * @param audit writes audit records to memory-audit
     * @param clock time of the audit records
     */
    ApiAccess(final boolean authEnabled, final ApiKeys keys, final AuditReporter audit, final Clock clock) {
        this.authEnabled = authEnabled;
        this.keys = keys;
        this.audit = audit;
        this.clock = clock;
    }

    /** Rejects {@code /v1/tenants//users/x/...} and {@code /v1/tenants/t/users//...}: never a wildcard. */
    static void rejectMissingIds(final Context ctx) {
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
     * Refuses (415) a write whose declared {@code Content-Type} is not JSON as this API reads it: {@code application/json}
     * with no charset or {@code charset=utf-8} (any case, quoted or not). The three types a browser may send
     * cross-site without a CORS preflight ({@code text/plain}, {@code application/x-www-form-urlencoded},
     * {@code multipart/form-data}; Fetch standard, "CORS-safelisted request-header") would otherwise let any web
     * page the user visits post conversations to a loopback API with authentication off. Another charset is refused
     * rather than read as UTF-8 (JSON is UTF-8, RFC 8259 section 8.1: {@code charset=ISO-8859-1} would have its
     * non-ASCII text decoded wrongly or refused as invalid UTF-8 with a misleading detail), and so is another JSON
     * type ({@code application/merge-patch+json}: no route applies a merge patch; a PUT is whole). A body without a
     * {@code Content-Type} is read as JSON, as before.
     *
     * @param ctx a {@code /v1} request; only POST, PUT and PATCH are checked
     * @throws ApiProblem 415 naming the type received and the one accepted
     */
    static void rejectNonJsonBody(final Context ctx) {
        final String method = ctx.method().name();
        if (!"POST".equals(method) && !"PUT".equals(method) && !"PATCH".equals(method)) {
            return;
        }
        final Optional<String> refused = nonJson(ctx.header("Content-Type"));
        if (refused.isPresent()) {
            throw new ApiProblem(415, refused.get());
        }
    }

    /**
     * Why a declared {@code Content-Type} is not JSON as Engram reads it ({@link #rejectNonJsonBody}; also the MCP
     * endpoint's rule, so {@code /mcp} and {@code /v1} take the same bodies).
     *
     * @param declared the request's {@code Content-Type}, or null
     * @return the reason, naming the type or charset received and what is accepted; empty when it is JSON or absent
     */
    static Optional<String> nonJson(final String declared) {
        if (declared == null || declared.isBlank()) {
            return Optional.empty();
        }
        final String[] parts = declared.split(";");
        final String type = parts[0].trim().toLowerCase(Locale.ROOT);
        final String accepted = "send the body as application/json, in UTF-8 (Content-Type: application/json, "
            + "optionally with charset=utf-8).";
        if (!"application/json".equals(type)) {
            return Optional.of("Content-Type \"" + type + "\" is not accepted: " + accepted);
        }
        for (int i = 1; i < parts.length; i++) {
            final String[] parameter = parts[i].split("=", 2);
            if ("charset".equalsIgnoreCase(parameter[0].trim())) {
                final String charset = parameter.length < 2 ? "" : parameter[1].trim().replace("\"", "");
                if (!"utf-8".equalsIgnoreCase(charset)) {
                    return Optional.of("Content-Type charset \"" + charset + "\" is not accepted: " + accepted);
                }
            }
        }
        return Optional.empty();
    }

    /** Authenticates every /v1 request (401 without a known key); authorization is in {@link #user}. */
    void authenticate(final Context ctx) {
        if (!authEnabled) {
            return;
        }
        final ApiKeys.Principal principal = apiKey(ctx.header("Authorization"), ctx.header("X-Api-Key"))
            .flatMap(keys::authenticate).orElseThrow(() -> new ApiProblem(401,
                "A valid API key is required: Authorization: Bearer KEY (or X-Api-Key: KEY)."));
        ctx.attribute(PRINCIPAL, principal);
    }

    /**
     * @param authorization the {@code Authorization} header, or null
     * @param apiKeyHeader the {@code X-Api-Key} header, or null
     * @return the key sent: the bearer token of {@code Authorization}, else {@code X-Api-Key}; empty when neither
     */
    static java.util.Optional<String> apiKey(final String authorization, final String apiKeyHeader) {
        if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return java.util.Optional.of(authorization.substring(7).strip());
        }
        return java.util.Optional.ofNullable(apiKeyHeader).map(String::strip).filter(k -> !k.isEmpty());
    }

    /**
     * The one way a handler learns whose memory it works on: the (tenant, user) of the path, refused with
     * 403 unless the caller's key may reach exactly that user (tenant isolation in one place).
     *
     * @param ctx the request
     * @return the user of the path
     * @throws ApiProblem 400 for an invalid id, 403 when the caller's key may not reach the user
     */
    UserKey user(final Context ctx) {
        final UserKey user;
        try {
            user = new UserKey(ctx.pathParam("tenant"), ctx.pathParam("user"));
        } catch (IllegalArgumentException e) {
            throw ApiProblem.badRequest(e.getMessage());
        }
        if (authEnabled) {
            final ApiKeys.Principal principal = ctx.attribute(PRINCIPAL);
            if (principal == null || !principal.mayAccess(user)) {
                throw new ApiProblem(403, "This API key may not access that tenant or user.");
            }
        }
        return user;
    }

    /**
     * The tenant of a tenant admin route ({@code /v1/tenants/{tenant}/...} without a user), refused with 403 unless
     * the caller's key is an ADMIN key of exactly that tenant.
     *
     * @param ctx the request
     * @return the tenant of the path
     * @throws ApiProblem 400 for an invalid tenant id, 403 for a USER key or another tenant's key
     */
    String tenantAdmin(final Context ctx) {
        final String tenant = ctx.pathParam("tenant");
        try {
            new UserKey(tenant, "any");
        } catch (IllegalArgumentException e) {
            throw ApiProblem.badRequest(e.getMessage());
        }
        if (authEnabled) {
            final ApiKeys.Principal principal = ctx.attribute(PRINCIPAL);
            if (principal == null || principal.scope() != ApiKeys.Scope.ADMIN || !principal.tenantId().equals(tenant)) {
                throw new ApiProblem(403, "Only an admin key of this tenant may read or change its settings and usage.");
            }
        }
        return tenant;
    }

    /**
     * @param ctx the request
     * @return the actor of a command or audit record: {@code key:<id>}, or {@code anonymous} with auth off
     */
    static String actor(final Context ctx) {
        final ApiKeys.Principal principal = ctx.attribute(PRINCIPAL);
        return principal == null ? "anonymous" : "key:" + principal.keyId();
    }

    /** Emits one audit record per answered /v1 request, at the instance the caller reached. */
    void audit(final Context ctx) {
        if (ctx.header(RetrieverApi.FORWARDED_HEADER) != null) {
            return;
        }
        final String[] parts = ctx.path().split("/", -1);
        final String tenant = parts.length > 3 && "tenants".equals(parts[2]) ? decode(parts[3]) : "";
        final String userId = parts.length > 5 && "users".equals(parts[4]) ? decode(parts[5]) : null;
        final String memoryId = parts.length > 7 && "memories".equals(parts[6]) ? decode(parts[7]) : null;
        final ApiKeys.Principal principal = ctx.attribute(PRINCIPAL);
        final int status = ctx.statusCode();
        audit.record(AuditRecord.newBuilder().setAuditId(UUID.randomUUID().toString())
            .setActor(actor(ctx))
            .setActorScope(principal != null ? principal.scope().name() : authEnabled ? "NONE" : "AUTH_DISABLED")
            .setTenantId(tenant).setUserId(userId == null || userId.isBlank() ? null : userId)
            .setAction(action(ctx.method().name(), parts, QueryParam.QUERY.raw(ctx) != null))
            .setMemoryId(memoryId).setCommandId(ctx.attribute(COMMAND_ID))
            .setOutcome(outcome(status)).setStatus(status).setDetail(ctx.attribute(DETAIL))
            .setSource(AppIds.RETRIEVER).setOccurredAt(clock.instant()).build());
    }

    private static String action(final String method, final String[] parts, final boolean query) {
        if (parts.length == 5 && ("settings".equals(parts[4]) || "usage".equals(parts[4]))) {
            // the tenant admin routes: tenant.settings.read, tenant.settings.update, tenant.usage.read
            return "tenant." + parts[4] + ("PUT".equals(method) ? ".update" : ".read");
        }
        final String tail = parts.length > 6 ? parts[6] : "";
        final boolean oneMemory = parts.length > 7;
        return switch (method + " " + tail) {
            case "GET profile" -> "profile.read";
            case "GET erasure" -> "user.erasure.check";
            case "GET memories" -> oneMemory ? "memory.history" : query ? "memories.query" : "memories.list";
            case "GET context" -> "context.read";
            case "GET export" -> "user.export";
            case "PUT memories" -> "memory.correct";
            case "DELETE memories" -> "memory.delete";
            case "PUT settings" -> "settings.update";
            case "POST conversations" -> "conversation.publish";
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
}
