package dev.engram.retriever;

import static dev.engram.retriever.ApiRequests.booleanParam;
import static dev.engram.retriever.ApiRequests.doubleParam;
import static dev.engram.retriever.ApiRequests.enumParam;
import static dev.engram.retriever.ApiRequests.hasWords;
import static dev.engram.retriever.ApiRequests.instantParam;
import static dev.engram.retriever.ApiRequests.intParam;
import static dev.engram.retriever.ApiRequests.memoryId;
import static dev.engram.retriever.ApiRequests.requireKnown;

import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.domain.DomainConfig;
import dev.engram.port.VectorIndexUnavailableException;
import dev.engram.runtime.ApiProblem;
import dev.engram.runtime.AppHttpServer;
import dev.engram.safety.SafetyFacts;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.ScoredMemory;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.streams.PipelineConfig;
import io.javalin.http.ContentType;
import io.javalin.http.Context;
import dev.engram.scoring.RankRequest;

/**
 * The read routes of {@link RetrieverApi}: profile, query and list, history, context and export. Each
 * resolves the user through {@link ApiAccess#user}, forwards to the owning instance when this one does
 * not hold the user ({@link OwnerForwarder}), and reads through {@link RetrievalService}'s per-user
 * prefix scan. Query and context hits are reported on {@code memory-access} (not for {@code asOf} or
 * {@code recordAccess=false}); while the user's memory is off they return no memories.
 */
final class ReadRoutes {

    /** The server's JSON settings ({@link AppHttpServer#objectMapper}); thread-safe, shared by every request. */
    private static final ObjectMapper JSON = AppHttpServer.objectMapper();

    private final RetrievalService service;
    private final HybridScorer scorer;
    private final AccessReporter access;
    private final ApiAccess auth;
    private final OwnerForwarder owner;
    private final Clock clock;
    private final int defaultK;
    private final int maxK;
    private final int defaultBudget;
    private final long indexRetryAfterSeconds;

    /**
     * @param config k limits, the default context budget, the vector index retry budget (for Retry-After)
     * @param service store access
     * @param scorer ranks one user's memories
     * @param access reports hits to memory-access
     * @param auth resolves and authorizes the user of a request
     * @param owner forwards requests for users owned by another instance
     * @param clock time of the export
     */
    ReadRoutes(final EngramConfig config, final RetrievalService service, final HybridScorer scorer,
               final AccessReporter access, final ApiAccess auth, final OwnerForwarder owner, final Clock clock) {
        this.service = service;
        this.scorer = scorer;
        this.access = access;
        this.auth = auth;
        this.owner = owner;
        this.clock = clock;
        this.defaultK = config.getInt(DomainConfig.DEFAULT_K);
        this.maxK = config.getInt(DomainConfig.MAX_K);
        this.defaultBudget = config.getInt(DomainConfig.CONTEXT_BUDGET_TOKENS);
        this.indexRetryAfterSeconds = Math.max(1, (config.getInt(PipelineConfig.QDRANT_RETRY_BUDGET_MS) + 999) / 1000);
    }

    /** {@code GET .../profile}: the user's profile. */
    void profile(final Context ctx) throws Exception {
        final UserKey user = auth.user(ctx);
        if (owner.forwarded(ctx, user)) {
            return;
        }
        ctx.json(ApiViews.Profile.of(requireKnown(service, user)));
    }

    /**
     * {@code GET .../memories}: with {@code query} the top-k ranked memories, without it the list (newest change first;
     * with {@code k} its first k).
     */
    void memories(final Context ctx) throws Exception {
        final UserKey user = auth.user(ctx);
        final String query = QueryParam.QUERY.raw(ctx);
        final int k = intParam(ctx, QueryParam.K, defaultK, 1, maxK);
        final MemoryType type = enumParam(ctx, QueryParam.TYPE, MemoryType.class);
        final MemoryStatus status = enumParam(ctx, QueryParam.STATUS, MemoryStatus.class);
        final Instant asOf = instantParam(ctx, QueryParam.AS_OF);
        final boolean recordAccess = recordAccess(ctx);
        final double minScore = doubleParam(ctx, QueryParam.MIN_SCORE, 0, 0, 1);
        final String agent = agentParam(ctx);
        if (query != null && !hasWords(query)) {
            throw ApiProblem.badRequest("query must contain a letter or digit; omit it to list all memories");
        }
        if (query == null) {
            requireListParameters(ctx);
        } else {
            requireQueryParameters(ctx);
        }
        if (owner.forwarded(ctx, user)) {
            return;
        }
        final UserProfile profile = requireKnown(service, user);
        if (query != null) {
            // asOf answers "what did we know at T" from the versions' validity (exact, over the local versions),
            // without reporting access; the current answer takes its dense candidates from the vector index
            // minScore applies to the score the answer reports: after the list's kind prior, which re-scores the hits
            final int others = othersOf(user, agent);
            final List<ScoredMemory> hits = !profile.getMemoryEnabled() ? List.<ScoredMemory>of()
                : (asOf == null ? scorer.forList(n -> visible(rank(user, profile, query, n + others, 0, false), agent, n), k)
                : visible(service.searchIndex(user).map(index -> scorer.rank(RankRequest.of(OwnNames.strip(query, user, profile), k + others).index(null, index).asOf(asOf))).orElse(List.<ScoredMemory>of()), agent, k)).stream()
                    .filter(hit -> hit.score() >= minScore).toList();
            ctx.attribute(ApiAccess.DETAIL, "hits=" + hits.size());
            final List<ApiViews.Hit> body = new ArrayList<>(hits.size());
            final List<String> ids = new ArrayList<>(hits.size());
            for (final ScoredMemory hit : hits) {
                body.add(ApiViews.Hit.of(hit));
                ids.add(hit.memory().getMemoryId());
            }
            if (asOf == null && recordAccess) {
                access.report(user, ids);
            }
            json(ctx, new ApiViews.QueryResult(user.tenantId(), user.userId(), query, k, body));
            return;
        }
        final List<ApiViews.MemoryView> views = service.memories(user).stream()
            .filter(m -> visibleTo(m, agent))
            .filter(m -> type == null || m.getType() == type)
            .filter(m -> status == null || m.getStatus() == status)
            .sorted(Comparator.comparing(Memory::getUpdatedAt).reversed().thenComparing(Memory::getMemoryId))
            // k given: the first k of the list; absent: every memory (its default is a query's, not a list's)
            .limit(QueryParam.K.raw(ctx) == null ? Long.MAX_VALUE : k)
            .map(ApiViews.MemoryView::of).toList();
        ctx.attribute(ApiAccess.DETAIL, "count=" + views.size());
        ctx.json(new ApiViews.MemoryList(user.tenantId(), user.userId(), views.size(), views));
    }

    /**
     * A list (no {@code query}) has no scores and answers for now: {@code minScore} and {@code asOf}, a query's, are a
     * 400 naming the parameter and what applies, instead of being ignored.
     */
    private static void requireListParameters(final Context ctx) {
        for (final QueryParam param : List.of(QueryParam.MIN_SCORE, QueryParam.AS_OF)) {
            if (param.raw(ctx) != null) {
                throw ApiProblem.badRequest(param.wireName() + " applies to a query (query=…); a list of the memories "
                    + "(no query) takes type, status, agentId and k (the first k, newest change first)");
            }
        }
    }

    /**
     * Whether this read counts as a use of its memories: {@code recordAccess} (default true, checked on every method),
     * and never for HEAD, which answers as GET without a body and must have no side effect (RFC 9110 §9.2.1: a safe
     * method; {@code curl -I} three times raised a memory's accessCount by three).
     */
    private static boolean recordAccess(final Context ctx) {
        final boolean asked = booleanParam(ctx, QueryParam.RECORD_ACCESS, true);
        return asked && ctx.method() != io.javalin.http.HandlerType.HEAD;
    }

    /**
     * A query ranks the ACTIVE memories of every kind (with {@code asOf}, the versions valid then; a question about the past, also the earlier values, {@code PastCues}): {@code type} and
     * {@code status}, a list's filters, are a 400 naming the parameter and where it applies, instead of being ignored
     * ({@code &type=EPISODIC} answered SEMANTIC memories, {@code &status=ARCHIVED} ACTIVE ones).
     */
    private static void requireQueryParameters(final Context ctx) {
        for (final QueryParam param : List.of(QueryParam.TYPE, QueryParam.STATUS)) {
            if (param.raw(ctx) != null) {
                throw ApiProblem.badRequest(param.wireName() + " applies to a list of the memories (no query); a query "
                    + "(query=…) ranks the ACTIVE memories of every type and takes k, minScore, asOf, recordAccess and "
                    + "agentId");
            }
        }
    }

    /** {@code GET .../export}: the profile and every memory held for the user (GDPR Art. 15 and 20). */
    void export(final Context ctx) throws Exception {
        final UserKey user = auth.user(ctx);
        if (owner.forwarded(ctx, user)) {
            return;
        }
        final UserProfile profile = requireKnown(service, user);
        final List<ApiViews.MemoryView> views = service.memories(user).stream()
            .sorted(Comparator.comparing(Memory::getCreatedAt).thenComparing(Memory::getMemoryId))
            .map(ApiViews.MemoryView::of).toList();
        final Map<String, Object> body = new LinkedHashMap<>();
        body.put("format", "engram-export-v1");
        body.put("exportedAt", clock.instant());
        body.put("tenantId", user.tenantId());
        body.put("userId", user.userId());
        body.put("settings", Map.of("memoryEnabled", profile.getMemoryEnabled()));
        body.put("profile", ApiViews.Profile.of(profile));
        body.put("memories", views);
        ctx.attribute(ApiAccess.DETAIL, "count=" + views.size());
        ctx.header("Content-Disposition", "attachment; filename=\"engram-export.json\"");
        ctx.json(body);
    }

    /** {@code GET .../memories/{id}/history}: every version of one memory, oldest first. */
    void history(final Context ctx) throws Exception {
        final UserKey user = auth.user(ctx);
        final String memoryId = memoryId(ctx);
        if (owner.forwarded(ctx, user)) {
            return;
        }
        requireKnown(service, user);
        final List<ApiViews.Version> versions = service.history(user, memoryId).stream()
            .map(ApiViews.Version::of).toList();
        if (versions.isEmpty()) {
            throw service.unknown(user, "No memory " + memoryId + " for this user");
        }
        ctx.json(new ApiViews.History(user.tenantId(), user.userId(), memoryId, versions));
    }

    /** {@code GET .../context}: the memories for a message packed into a token budget ({@code recordAccess=false}: not reported). */
    void context(final Context ctx) throws Exception {
        final UserKey user = auth.user(ctx);
        final String message = QueryParam.MESSAGE.raw(ctx);
        if (message == null || !hasWords(message)) {
            throw ApiProblem.badRequest("message is required and must contain a letter or digit");
        }
        final int budget = intParam(ctx, QueryParam.BUDGET_TOKENS, defaultBudget, 1, RetrieverApi.MAX_BUDGET_TOKENS);
        final boolean recordAccess = recordAccess(ctx);
        final String agent = agentParam(ctx);
        if (owner.forwarded(ctx, user)) {
            return;
        }
        final UserProfile profile = requireKnown(service, user);
        final List<ScoredMemory> hits = profile.getMemoryEnabled()
            ? visible(rank(user, profile, message, maxK + othersOf(user, agent), 0, true), agent, maxK) : List.of();
        final List<Memory> pinned = profile.getMemoryEnabled() && SafetyFacts.concerns(message)
            ? safetyFacts(user).stream().filter(m -> visibleTo(m, agent)).toList() : List.of();
        final ContextBlock.Result block = ContextBlock.build(pinned, hits, budget);
        if (recordAccess) {
            access.report(user, block.included());
        }
        json(ctx, new ApiViews.Context(user.tenantId(), user.userId(), budget, block.estimatedTokens(),
            block.included(), block.text()));
    }

    /**
     * @return the user's ACTIVE safety facts ({@link SafetyFacts#DEFAULT}), most important first, read from the kept
     *     search index (in memory: no store scan per request); none when the user has no index yet
     */
    private List<Memory> safetyFacts(final UserKey user) {
        return service.searchIndex(user).map(index -> index.read(view -> {
            final List<Memory> active = new ArrayList<>();
            for (int slot = 0; slot < view.slots(); slot++) {
                if (view.active(slot) && view.memory(slot) != null) {
                    active.add(view.memory(slot));
                }
            }
            return SafetyFacts.DEFAULT.pinned(active);
        })).orElse(List.of());
    }

    /**
     * Answers {@code body} as JSON, as {@code ctx.json} does, but from Jackson's UTF-8 bytes written straight to the
     * response: {@code ctx.json} builds a String and encodes it again, and a {@code ctx.result} is copied to the
     * response through a fresh buffer of Javalin's {@code responseBufferSize} (32 KB) per request, the largest single
     * allocation of a query request after the query embedding (JFR of {@code bench retrieval}). Compression and
     * Content-Length are decided as for a result: one write of the whole body, then Javalin closes the stream.
     */
    private static void json(final Context ctx, final Object body) throws IOException {
        final byte[] bytes = JSON.writeValueAsBytes(body);
        ctx.contentType(ContentType.APPLICATION_JSON);
        ctx.outputStream().write(bytes);
    }

    /** @return the {@code agentId} parameter, null when absent; a blank one is a 400 */
    private static String agentParam(final Context ctx) {
        final String agent = QueryParam.AGENT_ID.raw(ctx);
        if (agent != null && agent.isBlank()) {
            throw ApiProblem.badRequest("agentId must not be blank; omit it for every memory of the user");
        }
        return agent == null ? null : agent.strip();
    }

    /**
     * Agent scope (mem0's {@code agent_id}): an agent sees the memories shared by every agent of the user (no
     * {@code agentId}: the user's keyed facts, and whatever came from conversations without an agent) and its own.
     *
     * @param memory a memory
     * @param agent the agent asking, or null for every memory
     * @return whether the agent sees it
     */
    static boolean visibleTo(final Memory memory, final String agent) {
        return agent == null || memory.getAgentId() == null || agent.equals(memory.getAgentId());
    }

    /**
     * How many of the user's memories are other agents' own: a ranking over-fetches by that many, so that the top k
     * the asking agent sees are the top k of the memories it may see.
     */
    private int othersOf(final UserKey user, final String agent) {
        return agent == null ? 0 : (int) service.memories(user).stream().filter(m -> !visibleTo(m, agent)).count();
    }

    /** The hits the agent sees, at most {@code k}, in rank order. */
    private static List<ScoredMemory> visible(final List<ScoredMemory> hits, final String agent, final int k) {
        return agent == null ? hits : hits.stream().filter(hit -> visibleTo(hit.memory(), agent)).limit(k).toList();
    }

    /**
     * Ranks the user's kept search index ({@link RetrievalService#searchIndex}) through the scorer, without
     * the user's own name in the query ({@link OwnNames}); a vector index that cannot answer now is a 503
     * with Retry-After.
     *
     * @param profile the user's profile, read once per request
     * @param context whether the hits fill a context block ({@link RankRequest#forContext})
     */
    private List<ScoredMemory> rank(final UserKey user, final UserProfile profile, final String query, final int k,
                                    final double minScore, final boolean context) {
        final String text = OwnNames.strip(query, user, profile);
        try {
            return service.searchIndex(user).map(index -> {
                final RankRequest request = RankRequest.of(text, k).index(user, index).minScore(minScore);
                return scorer.rank(context ? request.forContext() : request);
            }).orElse(List.of());
        } catch (VectorIndexUnavailableException e) {
            throw ApiProblem.unavailable("The vector index is unavailable, so memories cannot be searched right now; "
                + "retry shortly. Profile and memory views are still served.", indexRetryAfterSeconds);
        }
    }
}
