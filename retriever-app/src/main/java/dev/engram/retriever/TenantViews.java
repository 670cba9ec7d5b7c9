package dev.engram.retriever;

import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

import dev.engram.avro.CustomCategory;
import dev.engram.avro.TenantSettings;
import dev.engram.topology.UsageLedger;

/** The JSON bodies of the tenant admin routes ({@link TenantRoutes}); Jackson serializes records in declaration order. */
public final class TenantViews {

    private TenantViews() {
    }

    /**
     * A custom category.
     *
     * @param name snake_case name, e.g. {@code medications}
     * @param description what belongs in it
     * @param keywords the words that file a statement under it (offline extractor)
     * @param ttlDays days a fact of it lives after its last statement; null: the tenant's retention; 0: permanent
     */
    public record Category(String name, String description, List<String> keywords, Integer ttlDays) {
    }

    /**
     * One version of a tenant's settings.
     *
     * @param tenantId the tenant
     * @param version event time from which it is in force; null when the tenant has no settings
     * @param categories the tenant's own categories
     * @param instructions extra extraction instructions for the LLM, or null
     * @param disabledCategories built-in categories not remembered
     * @param retentionDays days a memory lives after its last statement, or null for the deployment's rules
     * @param dailyTokenBudget LLM tokens per UTC day, or null for no limit
     * @param updatedBy who wrote the version ({@code key:<id>} or {@code anonymous}), null when none
     * @param updatedAt when it was written (wall clock), null when none
     * @param versions how many versions the tenant has
     */
    public record Settings(String tenantId, Instant version, List<Category> categories, String instructions,
                           List<String> disabledCategories, Integer retentionDays, Long dailyTokenBudget,
                           String updatedBy, Instant updatedAt, int versions) {

        static Settings of(final TenantSettings s, final int versions) {
            return new Settings(s.getTenantId(), s.getVersion(), s.getCategories().stream().map(Settings::category).toList(),
                s.getInstructions(), List.copyOf(s.getDisabledCategories()), s.getRetentionDays(),
                s.getDailyTokenBudget(), s.getUpdatedBy(), s.getUpdatedAt(), versions);
        }

        static Settings none(final String tenantId, final int versions) {
            return new Settings(tenantId, null, List.of(), null, List.of(), null, null, null, null, versions);
        }

        private static Category category(final CustomCategory c) {
            return new Category(c.getName(), c.getDescription(), List.copyOf(c.getKeywords()), c.getTtlDays());
        }
    }

    /**
     * What a tenant spent on LLM extraction on one UTC day, or in total.
     *
     * @param day the UTC day, null for a total
     * @param calls LLM requests answered
     * @param promptTokens prompt tokens
     * @param completionTokens completion tokens
     * @param estimatedCostUsd estimated cost, US dollars ({@code llm.price.*.per.million})
     * @param conversations conversations extracted with the LLM
     */
    public record Spend(LocalDate day, long calls, long promptTokens, long completionTokens, double estimatedCostUsd,
                        long conversations) {

        static Spend of(final LocalDate day, final UsageLedger.Spend spend) {
            return new Spend(day, spend.calls(), spend.promptTokens(), spend.completionTokens(),
                Math.round(spend.estimatedCostUsd() * 1_000_000.0) / 1_000_000.0, spend.conversations());
        }
    }

    /**
     * Body of {@code GET /v1/tenants/{tenant}/usage}.
     *
     * @param tenantId the tenant
     * @param from the first day asked (UTC)
     * @param to today (UTC)
     * @param days the days with spend, oldest first
     * @param total the sum of those days
     * @param agents the same sum per agent ({@code agentId} of the conversations; {@code ""} for those without one)
     * @param tokensToday prompt + completion tokens of today
     * @param dailyTokenBudget the tenant's budget per day (its newest settings), null for none
     */
    public record Usage(String tenantId, LocalDate from, LocalDate to, List<Spend> days, Spend total,
                        Map<String, Spend> agents, long tokensToday, Long dailyTokenBudget) {

        /**
         * @param from the first day asked for ({@code days} before today, today counted): the window's start, whether
         *     or not it has spending (it was the first day with spending, so a tenant that spent only today read from =
         *     to = today whatever {@code days} was)
         */
        static Usage of(final String tenantId, final NavigableMap<LocalDate, UsageLedger.Spend> days,
                        final Map<String, UsageLedger.Spend> agents, final LocalDate from, final LocalDate today,
                        final Long budget) {
            UsageLedger.Spend total = UsageLedger.Spend.NONE;
            final List<Spend> out = new ArrayList<>();
            for (final Map.Entry<LocalDate, UsageLedger.Spend> day : days.entrySet()) {
                out.add(Spend.of(day.getKey(), day.getValue()));
                total = total.plus(day.getValue());
            }
            final Map<String, Spend> byAgent = new java.util.TreeMap<>();
            agents.forEach((agent, spend) -> byAgent.put(agent, Spend.of(null, spend)));
            return new Usage(tenantId, from, today, out, Spend.of(null, total), byAgent,
                days.getOrDefault(today, UsageLedger.Spend.NONE).tokens(), budget);
        }
    }
}
