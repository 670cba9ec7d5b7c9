package dev.engram.retriever;

import dev.engram.config.ConfigFields;
import dev.engram.config.ConfigFields.Importance;
import dev.engram.config.ConfigFields.Range;
import dev.engram.config.ConfigFields.Type;
import dev.engram.config.ConfigGroup;

/**
 * The settings the retriever app owns ({@link ConfigGroup} {@code retriever-app}): its HTTP API's authentication and
 * MCP origins, how long a started retriever waits to catch up, and how long it collects access reports. Registered as a service, composed onto the core
 * definition by {@code EngramConfig}; the keys are this class's constants.
 */
public final class RetrieverConfig implements ConfigGroup {

    /** Longest a started retriever answers 503 (not 404) for users and memories it has not read yet. */
    public static final String RETRIEVER_CATCHUP_MAX_WAIT_MS = "retriever.catchup.max.wait.ms";
    public static final String AUTH_ENABLED = "retriever.auth.enabled";
    /** The explicit opt-in to serve the API without authentication on a non-loopback address. */
    public static final String AUTH_ALLOW_UNAUTHENTICATED_REMOTE = "retriever.auth.allow.unauthenticated.remote";
    public static final String AUTH_KEYS = "retriever.auth.keys";
    public static final String AUTH_KEYS_FILE = "retriever.auth.keys.file";
    /** Browser origins allowed to call the MCP endpoint besides loopback ones (DNS rebinding protection). */
    public static final String MCP_ALLOWED_ORIGINS = "retriever.mcp.allowed.origins";
    /** How long the access reporter collects hits before it sends them ({@link BatchingAccessReporter}). */
    public static final String ACCESS_LINGER_MS = "retriever.access.linger.ms";

    /** Called by the service loader ({@code META-INF/services/dev.engram.config.ConfigGroup}). */
    public RetrieverConfig() {
        // the keys are constants; the declaration is {@link #define}
    }

    @Override
    public String name() {
        return "retriever-app";
    }

    @Override
    public void define(final ConfigFields fields) {
        fields
            .define(RETRIEVER_CATCHUP_MAX_WAIT_MS, Type.LONG, 300_000L, Range.atLeast(0), Importance.LOW,
                "After a (re)start the retriever answers an unknown user or memory with 503 and Retry-After (and "
                    + "/health/ready with 503) instead of 404 until it has processed memory-updated up to the end the "
                    + "topic had when its stream thread first ran (committed offsets of its partitions vs read_committed "
                    + "end offsets); at most this long, then it answers 404 again and logs a warning. 0 = never wait.")
            .define(AUTH_ENABLED, Type.BOOLEAN, true, Importance.HIGH,
                "Require an API key (Authorization: Bearer KEY or X-Api-Key) on every /v1 request. Only the local "
                    + "demo turns this off.")
            .define(AUTH_ALLOW_UNAUTHENTICATED_REMOTE, Type.BOOLEAN, false, Importance.HIGH,
                "With retriever.auth.enabled=false the retriever refuses to start on a non-loopback http.bind.address "
                    + "(anyone on the network could read every tenant's memories) unless this is true; even then it warns "
                    + "at start and every minute.")
            .define(AUTH_KEYS, Type.PASSWORD, "", Importance.HIGH,
                "API keys, comma-separated: KEY=TENANT:admin (the whole tenant) or KEY=TENANT:user:USER (one user). "
                    + "Default deny: no key, no access.")
            .define(AUTH_KEYS_FILE, Type.STRING, "", Importance.MEDIUM,
                "A properties file of more API keys, one KEY=TENANT:admin or KEY=TENANT:user:USER per line.")
            .define(MCP_ALLOWED_ORIGINS, Type.LIST, "", Importance.MEDIUM,
                "Browser origins (scheme://host[:port], comma-separated) allowed to call /mcp besides loopback ones "
                    + "(localhost, 127.0.0.0/8, [::1], any port); a request from any other Origin is a 403 (DNS "
                    + "rebinding protection: the demo runs without API keys). * allows every origin. Requests without "
                    + "an Origin header (every non-browser client) are not affected.")
            .define(ACCESS_LINGER_MS, Type.LONG, BatchingAccessReporter.DEFAULT_LINGER_MS, Range.between(0, 60_000),
                Importance.LOW,
                "How long (ms) the retriever collects the hits of query and context requests before it sends them on "
                    + "memory-access, one record per user and batch; the consolidator and the retriever each fold a batch "
                    + "in a transaction of their own. Longer: less CPU per request (fewer records and transactions) and "
                    + "a hit counts that much later in ranking (access count, recency); 0: what is queued when the "
                    + "first report arrives.");
    }
}
