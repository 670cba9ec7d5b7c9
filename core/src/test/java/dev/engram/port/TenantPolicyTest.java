package dev.engram.port;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.CustomCategory;
import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.avro.TenantSettings;
import dev.engram.serde.AvroSerdes;
import org.junit.jupiter.api.Test;

/** A tenant's settings as the extractor applies them, and the problems a settings version is refused for. */
class TenantPolicyTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    static {
        AvroSerdes.trustGeneratedRecords(); // Avro builds the records' defaults only from trusted packages
    }

    private static TenantSettings.Builder settings() {
        return TenantSettings.newBuilder().setTenantId("acme").setVersion(T0).setUpdatedAt(T0);
    }

    private static ExtractedMemory fact(final FactCategory category, final String custom) {
        return new ExtractedMemory(MemoryType.SEMANTIC, category, "k", "v", null, "content", false, 0.5, 0.9,
            MemorySource.EXPLICIT, List.of(0), T0, null, null, custom);
    }

    @Test
    void shouldDropDisabledBuiltInFactsAndTimeCustomOnesByTheirCategoryWhenSettingsAreGiven() {
        final TenantPolicy policy = TenantPolicy.of(settings()
            .setCategories(List.of(new CustomCategory("medications", "pills", List.of(" Aspirin ", "aspirin", ""), 30)))
            .setDisabledCategories(List.of("personal", "not_a_category")).setRetentionDays(365).build());

        assertThat(policy.isDefault()).isFalse();
        assertThat(policy.keeps(fact(FactCategory.PERSONAL, null))).isFalse();
        assertThat(policy.keeps(fact(FactCategory.ROLE, null))).isTrue();
        assertThat(policy.keeps(fact(null, "medications"))).isTrue();
        assertThat(policy.ttlDays(fact(null, "medications"))).isEqualTo(30);
        assertThat(policy.ttlDays(fact(FactCategory.ROLE, null))).as("the tenant's retention").isEqualTo(365);
        assertThat(policy.category("medications").orElseThrow().keywords()).containsExactly("aspirin");
    }

    @Test
    void shouldChangeNothingWhenTheTenantHasNoSettings() {
        final TenantPolicy none = TenantPolicy.none("acme");

        assertThat(none.isDefault()).isTrue();
        assertThat(none.keeps(fact(FactCategory.PERSONAL, null))).isTrue();
        assertThat(none.ttlDays(fact(FactCategory.ROLE, null))).isNull();
        assertThat(TenantPolicy.of(settings().build()).isDefault()).isTrue();
    }

    @Test
    void shouldNameEveryProblemOfAnInvalidSettingsVersion() {
        final TenantSettings bad = settings()
            .setCategories(List.of(new CustomCategory("Meds", "pills", List.of(), null),
                new CustomCategory("role", "jobs", List.of(), null),
                new CustomCategory("pets", "", List.of(), -1)))
            .setDisabledCategories(List.of("hobbies")).setDailyTokenBudget(-5L).build();

        assertThat(TenantPolicy.problems(bad)).anyMatch(p -> p.contains("\"Meds\" must be snake_case"))
            .anyMatch(p -> p.contains("\"role\" is a built-in category"))
            .anyMatch(p -> p.contains("category \"pets\" needs a description"))
            .anyMatch(p -> p.contains("category \"pets\" ttlDays must be within 0.."))
            .anyMatch(p -> p.startsWith("disabledCategories: \"hobbies\" is not a built-in category"))
            .contains("dailyTokenBudget must be at least 0").hasSize(6);
        assertThat(TenantPolicy.problems(settings().build())).isEmpty();
        assertThat(TenantPolicy.problems(settings().setDailyTokenBudget(TenantPolicy.MAX_DAILY_TOKEN_BUDGET).build()))
            .isEmpty();
        assertThat(TenantPolicy.problems(settings().setDailyTokenBudget(TenantPolicy.MAX_DAILY_TOKEN_BUDGET + 1).build()))
            .containsExactly("dailyTokenBudget must be at most 1000000000000 (tokens per UTC day)");
        assertThat(TenantPolicy.builtIn(" Personal ")).contains(FactCategory.PERSONAL);
    }
}
