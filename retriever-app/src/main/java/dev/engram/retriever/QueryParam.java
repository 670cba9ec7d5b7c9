package dev.engram.retriever;

import java.util.List;

import io.javalin.http.Context;

/**
 * Every query parameter the retriever's routes read, with the operations ({@code METHOD path template}, as in
 * {@code /openapi.json}) that read it: the one place a route gets a query parameter from ({@link #raw}; the typed
 * readers are {@link ApiRequests}'), so that {@code OpenApiContractIT} can hold the document's parameters and the
 * server's to be the same set, and probe each one on its route.
 */
enum QueryParam {

    /** The search text of a ranked query; without it the memories are listed. */
    QUERY("query", Operations.MEMORIES),
    /** How many hits at most. */
    K("k", Operations.MEMORIES),
    /** Filter of the list by memory type. */
    TYPE("type", Operations.MEMORIES),
    /** Filter of the list by memory status. */
    STATUS("status", Operations.MEMORIES),
    /** The event time a query answers for. */
    AS_OF("asOf", Operations.MEMORIES),
    /** Whether the hits are reported as use on {@code memory-access}. */
    RECORD_ACCESS("recordAccess", Operations.MEMORIES, Operations.CONTEXT),
    /** Smallest score of a hit. */
    MIN_SCORE("minScore", Operations.MEMORIES),
    /** The agent asking: its own memories and the shared ones; absent: every memory of the user. */
    AGENT_ID("agentId", Operations.MEMORIES, Operations.CONTEXT),
    /** The user's next message, for the context block. */
    MESSAGE("message", Operations.CONTEXT),
    /** The context block's token budget. */
    BUDGET_TOKENS("budgetTokens", Operations.CONTEXT),
    /** The event time a tenant's settings are read at. */
    TENANT_AS_OF("asOf", Operations.TENANT_SETTINGS),
    /** How many UTC days of a tenant's cost ledger. */
    USAGE_DAYS("days", Operations.TENANT_USAGE),
    /** The panel's tenant field, read by the page's script (not by the server). */
    PANEL_TENANT("tenant", Operations.PANEL),
    /** The panel's user field, read by the page's script (not by the server). */
    PANEL_USER("user", Operations.PANEL);

    /** The operations that read query parameters, as {@code METHOD template}. */
    static final class Operations {
        static final String USER_PATH = "/v1/tenants/{tenant}/users/{user}";
        static final String MEMORIES = "GET " + USER_PATH + "/memories";
        static final String CONTEXT = "GET " + USER_PATH + "/context";
        static final String TENANT_SETTINGS = "GET /v1/tenants/{tenant}/settings";
        static final String TENANT_USAGE = "GET /v1/tenants/{tenant}/usage";
        static final String PANEL = "GET /panel";

        private Operations() {
        }
    }

    private final String wireName;
    private final List<String> operations;

    QueryParam(final String wireName, final String... operations) {
        this.wireName = wireName;
        this.operations = List.of(operations);
    }

    /** @return the parameter's name in the query string */
    String wireName() {
        return wireName;
    }

    /** @return the operations reading it, {@code METHOD template} */
    List<String> operations() {
        return operations;
    }

    /**
     * @return every operation's parameters ({@code METHOD template} → wire names): what the server lets a request
     *     name ({@code AppHttpServer#queryParameters}); any other parameter is a 400
     */
    static java.util.Map<String, java.util.Set<String>> byOperation() {
        final java.util.Map<String, java.util.Set<String>> byOperation = new java.util.TreeMap<>();
        for (final QueryParam param : values()) {
            param.operations.forEach(op ->
                byOperation.computeIfAbsent(op, o -> new java.util.TreeSet<>()).add(param.wireName));
        }
        return byOperation;
    }

    /**
     * @param ctx the request
     * @return the parameter's raw value, null when absent
     */
    String raw(final Context ctx) {
        return ctx.queryParam(wireName);
    }
}
