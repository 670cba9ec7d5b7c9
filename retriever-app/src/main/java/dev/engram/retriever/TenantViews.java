package dev.engram.retriever;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.CustomCategory;
import dev.engram.avro.TenantSettings;

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
}
