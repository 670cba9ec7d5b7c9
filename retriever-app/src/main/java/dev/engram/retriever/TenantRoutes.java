package dev.engram.retriever;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.CustomCategory;
import dev.engram.avro.TenantSettings;
import dev.engram.port.TenantPolicy;
import dev.engram.runtime.ApiProblem;
import dev.engram.topology.TenantSettingsTable;
import io.javalin.http.Context;

/**
 * The tenant admin routes of {@link RetrieverApi}, for ADMIN keys of the tenant only ({@link ApiAccess#tenantAdmin}):
 *
 * <ul>
 *   <li>{@code PUT /v1/tenants/{tenant}/settings}: a new version of the tenant's settings, the whole of them
 *       ({@link TenantViews.Settings}'s fields: {@code categories}, {@code instructions}, {@code disabledCategories},
 *       {@code retentionDays}, {@code dailyTokenBudget}; an absent field is empty), in force for the tenant's
 *       conversations from {@code effectiveFrom} (event time, ISO-8601; default now). Written to
 *       {@code tenant-settings} and answered 202 with the version once this instance has read it back. A field this
 *       API does not know, a wrong type or a value outside {@link TenantPolicy#problems}' limits is a 400 naming it.</li>
 *   <li>{@code GET /v1/tenants/{tenant}/settings[?asOf=T]}: the newest version (or the one in force at event time T),
 *       and how many versions there are; a tenant without settings gets the defaults with {@code version: null}.</li>
 *   <li>{@code GET /v1/tenants/{tenant}/usage[?days=30]}: the cost ledger ({@code llm-usage}) of the last {@code days}
 *       UTC days: LLM calls, prompt and completion tokens, estimated cost and conversations per day, per agent and in total,
 *       today's tokens and the daily token budget ({@link TenantViews.Usage}).</li>
 * </ul>
 */
final class TenantRoutes {

    private static final Set<String> FIELDS = Set.of("categories", "instructions", "disabledCategories",
        "retentionDays", "dailyTokenBudget", "effectiveFrom");
    private static final Set<String> CATEGORY_FIELDS = Set.of("name", "description", "keywords", "ttlDays");

    private final ApiAccess auth;
    private final TenantAdmin tenants;
    private final Clock clock;

    /**
     * @param auth authorizes tenant admins
     * @param tenants writes and reads tenant-settings
     * @param clock the default version time and {@code updatedAt}
     */
    TenantRoutes(final ApiAccess auth, final TenantAdmin tenants, final Clock clock) {
        this.auth = auth;
        this.tenants = tenants;
        this.clock = clock;
    }

    /** {@code PUT /v1/tenants/{tenant}/settings}. */
    void put(final Context ctx) {
        final String tenant = auth.tenantAdmin(ctx);
        final JsonNode body = body(ctx);
        final Instant now = clock.instant();
        final Instant version = body.hasNonNull("effectiveFrom") ? instant(body.get("effectiveFrom")) : now;
        final TenantSettings settings = TenantSettings.newBuilder().setTenantId(tenant).setVersion(version)
            .setCategories(categories(body.get("categories")))
            .setInstructions(optionalText(body, "instructions"))
            .setDisabledCategories(strings(body.get("disabledCategories"), "disabledCategories"))
            .setRetentionDays(optionalDays(body, "retentionDays", "retentionDays"))
            .setDailyTokenBudget(optionalLong(body, "dailyTokenBudget", TenantPolicy.MAX_DAILY_TOKEN_BUDGET))
            .setUpdatedBy(ApiAccess.actor(ctx)).setUpdatedAt(now).build();
        final List<String> problems = new ArrayList<>(TenantPolicy.problems(settings));
        if (version.isBefore(Instant.EPOCH)) {
            problems.add("effectiveFrom must not be before 1970-01-01T00:00:00Z");
        } else if (version.isAfter(TenantSettingsTable.LATEST_VERSION)) {
            // a version is keyed by its 13-digit epoch ms: a later one was a 500 (README trial, effectiveFrom 9999)
            problems.add("effectiveFrom must not be after " + TenantSettingsTable.LATEST_VERSION + ", was " + version);
        }
        if (!problems.isEmpty()) {
            throw ApiProblem.badRequest(String.join("; ", problems));
        }
        tenants.publish(settings);
        ctx.status(202).json(TenantViews.Settings.of(settings, tenants.history().versions(tenant)));
    }

    /** {@code GET /v1/tenants/{tenant}/settings[?asOf=T]}. */
    void get(final Context ctx) {
        final String tenant = auth.tenantAdmin(ctx);
        final Instant asOf = ApiRequests.instantParam(ctx, QueryParam.TENANT_AS_OF);
        final TenantSettingsHistory history = tenants.history();
        final int versions = history.versions(tenant);
        ctx.json((asOf == null ? history.latest(tenant) : history.at(tenant, asOf))
            .map(s -> TenantViews.Settings.of(s, versions))
            .orElseGet(() -> TenantViews.Settings.none(tenant, versions)));
    }

    /** {@code GET /v1/tenants/{tenant}/usage[?days=30]}: the cost ledger of the last days (UTC), today included. */
    void usage(final Context ctx) {
        final String tenant = auth.tenantAdmin(ctx);
        final int days = ApiRequests.intParam(ctx, QueryParam.USAGE_DAYS, 30, 1, 366);
        final LocalDate today = LocalDate.now(clock.withZone(ZoneOffset.UTC));
        final Long budget = tenants.history().latest(tenant).map(TenantSettings::getDailyTokenBudget).orElse(null);
        final LocalDate from = today.minusDays(days - 1L);
        ctx.json(TenantViews.Usage.of(tenant, tenants.usage().days(tenant, from, today),
            tenants.usage().agents(tenant, from, today), from, today, budget));
    }

    private static JsonNode body(final Context ctx) {
        final String raw = ctx.body();
        if (raw.isBlank()) {
            throw ApiProblem.badRequest("a JSON body is required, e.g. {\"categories\": [{\"name\": \"medications\", "
                + "\"description\": \"…\", \"keywords\": [\"mg\"]}]}");
        }
        // strict: UTF-8, one JSON object, each field once (dev.engram.runtime.JsonBodies)
        final JsonNode node = dev.engram.runtime.JsonBodies.object(ctx.bodyAsBytes());
        unknownFields(node, FIELDS, "");
        return node;
    }

    private static void unknownFields(final JsonNode node, final Set<String> known, final String where) {
        for (final Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            final String name = names.next();
            if (!known.contains(name)) {
                throw ApiProblem.badRequest("unknown field " + where + name + " (known: " + new java.util.TreeSet<>(known)
                    + ")");
            }
        }
    }

    private static List<CustomCategory> categories(final JsonNode node) {
        final List<CustomCategory> out = new ArrayList<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isArray()) {
            throw ApiProblem.badRequest("categories must be an array");
        }
        for (final JsonNode c : node) {
            if (!c.isObject()) {
                throw ApiProblem.badRequest("each category must be an object with name, description, keywords, ttlDays");
            }
            unknownFields(c, CATEGORY_FIELDS, "categories[].");
            out.add(CustomCategory.newBuilder().setName(requiredText(c, "name"))
                .setDescription(requiredText(c, "description"))
                .setKeywords(strings(c.get("keywords"), "keywords"))
                .setTtlDays(optionalDays(c, "ttlDays", "categories[].ttlDays")).build());
        }
        return out;
    }

    private static List<String> strings(final JsonNode node, final String field) {
        final List<String> out = new ArrayList<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isArray()) {
            throw ApiProblem.badRequest(field + " must be an array of strings");
        }
        for (final JsonNode item : node) {
            if (!item.isTextual()) {
                throw ApiProblem.badRequest(field + " must be an array of strings");
            }
            out.add(item.asText());
        }
        return out;
    }

    private static String requiredText(final JsonNode node, final String field) {
        final JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            throw ApiProblem.badRequest("categories[]." + field + " must be a non-blank string");
        }
        return value.asText().strip();
    }

    private static String optionalText(final JsonNode node, final String field) {
        final JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw ApiProblem.badRequest(field + " must be a string");
        }
        return value.asText().isBlank() ? null : value.asText().strip();
    }

    /**
     * @return the field, a number of days (its range 0..{@link TenantPolicy#MAX_DAYS} checked by
     *     {@link TenantPolicy#problems}), null when absent or null
     * @throws ApiProblem 400 naming that range when it is not a whole number or does not fit an int
     */
    private static Integer optionalDays(final JsonNode node, final String field, final String label) {
        final java.math.BigInteger value = wholeNumber(node, field, label, TenantPolicy.MAX_DAYS);
        if (value != null && value.bitLength() >= Integer.SIZE) {
            throw outOfRange(label, TenantPolicy.MAX_DAYS, value);
        }
        return value == null ? null : value.intValue();
    }

    private static Long optionalLong(final JsonNode node, final String field, final long max) {
        final java.math.BigInteger value = wholeNumber(node, field, field, max);
        if (value != null && value.bitLength() >= Long.SIZE) {
            throw outOfRange(field, max, value);
        }
        return value == null ? null : value.longValue();
    }

    /**
     * @return the field's whole number (any size: one too large for the Avro field is named with its range by the
     *     caller, and one within it is checked by {@link TenantPolicy#problems} with every other problem), null when
     *     absent or null
     * @throws ApiProblem 400 naming the field and its range when the value is not a whole number
     */
    private static java.math.BigInteger wholeNumber(final JsonNode node, final String field, final String label,
                                                    final long max) {
        final JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isIntegralNumber()) {
            throw ApiProblem.badRequest(label + " must be a whole number within 0.." + max + ", was " + value);
        }
        return value.bigIntegerValue();
    }

    private static ApiProblem outOfRange(final String label, final long max, final java.math.BigInteger value) {
        return ApiProblem.badRequest(label + " must be within 0.." + max + ", was " + value);
    }

    private static Instant instant(final JsonNode node) {
        try {
            return Instant.parse(node.asText().strip());
        } catch (DateTimeParseException e) {
            throw ApiProblem.badRequest("effectiveFrom must be an ISO-8601 instant such as 2025-03-01T00:00:00Z: "
                + node.asText());
        }
    }
}
