package dev.engram.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import dev.engram.config.ConfigCoherence;
import dev.engram.config.ConfigFinding;
import dev.engram.config.ConfigFinding.Severity;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import org.junit.jupiter.api.Test;

/** The domain group's coherence checks ({@link DomainConfig#check}), run through {@link ConfigCoherence}. */
class DomainConfigTest {

    private static List<ConfigFinding> check(final Map<String, ?> overrides) {
        return ConfigCoherence.check(EngramConfig.defaults().with(overrides));
    }

    @Test
    void shouldFindTheDefaultsCoherentWhenNothingIsSet() {
        assertThat(new DomainConfig().check(EngramConfig.defaults())).isEmpty();
    }

    @Test
    void shouldWarnThatStaleNeverFiresWhenItsThresholdIsAtOrBelowTheStorageFloor() {
        // the old defaults: nothing under 0.3 is stored and STALE needed importance < 0.3
        final List<ConfigFinding> old = check(Map.of(DomainConfig.STALE_MAX_IMPORTANCE, 0.3));
        assertThat(old).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.keys()).containsExactly("lifecycle.stale.max.importance", "memory.min.importance");
            assertThat(f.text()).contains("STALE never fires");
        });
        assertThat(check(Map.of(DomainConfig.MIN_IMPORTANCE, 0.5))).extracting(ConfigFinding::keys)
            .containsExactly(List.of("lifecycle.stale.max.importance", "memory.min.importance"));
        assertThat(check(Map.of(DomainConfig.STALE_MAX_IMPORTANCE, 0.0))).as("0 turns staleness off").isEmpty();
        assertThat(check(Map.of(DomainConfig.STALE_MAX_ACCESS_COUNT, 0))).extracting(ConfigFinding::keys)
            .containsExactly(List.of("lifecycle.stale.max.access.count"));
    }

    @Test
    void shouldWarnAboutAnEmptyJudgeBandAndALifecyclePassSlowerThanItsRules() {
        assertThat(check(Map.of(DomainConfig.JUDGE_THRESHOLD, 0.95))).extracting(ConfigFinding::keys)
            .containsExactly(List.of("dedup.judge.threshold", "dedup.reinforce.threshold"));
        // a weekly pass: the 30-day context TTL is fine, its INFERRED half (15 days) too; a 10-day one is not
        assertThat(check(Map.of(DomainConfig.LIFECYCLE_INTERVAL_MS, 7 * 86_400_000L))).isEmpty();
        assertThat(check(Map.of(DomainConfig.LIFECYCLE_INTERVAL_MS, 20 * 86_400_000L))).singleElement()
            .satisfies(f -> assertThat(f.keys()).containsExactly("lifecycle.interval.ms", "lifecycle.ttl.context.days",
                "lifecycle.ttl.inferred.factor"));
        assertThat(check(Map.of(DomainConfig.LIFECYCLE_INTERVAL_MS, 100 * 86_400_000L))).singleElement()
            .satisfies(f -> assertThat(f.keys()).containsExactly("lifecycle.interval.ms", "lifecycle.stale.days",
                "lifecycle.ttl.role.days", "lifecycle.ttl.context.days", "lifecycle.ttl.inferred.factor"));
        assertThat(check(Map.of(DomainConfig.TTL_INFERRED_FACTOR, 0.0))).extracting(ConfigFinding::keys)
            .containsExactly(List.of("lifecycle.ttl.inferred.factor", "lifecycle.ttl.role.days", "lifecycle.ttl.context.days"));
    }

    @Test
    void shouldWarnWhenAMessageAtTheCharacterLimitCannotFitARecord() {
        assertThat(check(Map.of(CoreConfig.MAX_RECORD_BYTES, 65_536))).singleElement()
            .satisfies(f -> assertThat(f.text()).startsWith("input.max.message.chars, input.max.record.bytes:")
                .contains("100000").contains("65536"));
    }

    @Test
    void shouldRefuseADefaultKAboveTheLargestKWhenBothAreSet() {
        assertThat(check(Map.of(DomainConfig.DEFAULT_K, 50, DomainConfig.MAX_K, 20))).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.REFUSE);
            assertThat(f.text()).startsWith("retrieval.default.k, retrieval.max.k: the default k (50)");
        });
        assertThat(check(Map.of(DomainConfig.DEFAULT_K, 20, DomainConfig.MAX_K, 20))).isEmpty();
    }
}
