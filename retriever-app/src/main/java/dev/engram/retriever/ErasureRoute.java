package dev.engram.retriever;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import dev.engram.core.UserKey;
import dev.engram.crypto.DataKeys;
import dev.engram.runtime.ApiProblem;
import io.javalin.http.Context;

/**
 * {@code GET /v1/tenants/{t}/users/{u}/erasure} (admin keys only): what this retriever still holds of one
 * user — entries in its memories and history stores, its profile, the erasure ledger's time, the user's
 * data key on {@code engram-data-keys} — and {@code clean} when none is left. The topics and the
 * consolidator's stores are checked by {@code bin/engram verify-erasure}. Answered by the user's owner
 * instance (forwarded like the reads). After an erasure, a record written about the user (a conversation dated before
 * the erasure, which the consolidator drops) makes a new data key: {@code clean} is then false with every store
 * empty, and a {@code note} says why (the erased records stay unreadable: their key is never revived).
 */
final class ErasureRoute {

    private final RetrievalService service;
    private final ApiAccess auth;
    private final OwnerForwarder owner;
    private final boolean authEnabled;
    private final Optional<DataKeys> dataKeys;

    /**
     * @param service store access
     * @param auth resolves and authorizes the user of a request
     * @param owner forwards requests for users owned by another instance
     * @param authEnabled whether API keys are required (then only ADMIN keys pass)
     * @param dataKeys the data key ring, empty with {@code crypto.enabled=false}
     */
    ErasureRoute(final RetrievalService service, final ApiAccess auth, final OwnerForwarder owner,
                 final boolean authEnabled, final Optional<DataKeys> dataKeys) {
        this.service = service;
        this.auth = auth;
        this.owner = owner;
        this.authEnabled = authEnabled;
        this.dataKeys = dataKeys;
    }

    void check(final Context ctx) throws Exception {
        final UserKey user = auth.user(ctx);
        if (authEnabled) {
            final ApiKeys.Principal principal = ctx.attribute(ApiAccess.PRINCIPAL);
            if (principal == null || principal.scope() != ApiKeys.Scope.ADMIN) {
                throw new ApiProblem(403, "The erasure check needs an admin key of the tenant.");
            }
        }
        if (owner.forwarded(ctx, user)) {
            return;
        }
        final Map<String, Long> held = service.held(user);
        final Map<String, Object> places = new LinkedHashMap<>();
        long total = 0;
        for (final Map.Entry<String, Long> e : held.entrySet()) {
            if (!"erasedAt".equals(e.getKey())) {
                places.put(e.getKey(), e.getValue());
                total += e.getValue();
            }
        }
        final String dataKey = dataKeys.map(k -> k.hasKey(user.wire()) ? "live" : "none").orElse("crypto off");
        places.put("dataKey", dataKey);
        final Map<String, Object> body = new LinkedHashMap<>();
        body.put("tenantId", user.tenantId());
        body.put("userId", user.userId());
        body.put("erasedAt", held.containsKey("erasedAt") ? Instant.ofEpochMilli(held.get("erasedAt")) : null);
        body.put("places", places);
        body.put("clean", total == 0 && !"live".equals(dataKey));
        if (total == 0 && "live".equals(dataKey) && held.containsKey("erasedAt")) {
            // the erasure's key is gone (a key is never revived): this one was made for a record written since
            body.put("note", "Nothing of the user is held here and what was erased stays unreadable, but a new data key "
                + "was made after the erasure for a record written about the user since (e.g. a conversation dated "
                + "before the erasure: the consolidator drops it, so nothing is remembered, but its candidates stay on "
                + "memory-candidates, readable, until that topic's retention). bin/engram verify-erasure names the "
                + "topics holding such records.");
        }
        ctx.attribute(ApiAccess.DETAIL, "held=" + total + " dataKey=" + dataKey);
        ctx.json(body);
    }
}
