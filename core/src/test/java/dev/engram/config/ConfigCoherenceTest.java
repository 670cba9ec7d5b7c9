package dev.engram.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import dev.engram.config.ConfigCoherence.Finding;
import dev.engram.config.ConfigCoherence.Severity;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class ConfigCoherenceTest {

    private static List<Finding> check(final Map<String, ?> overrides) {
        return ConfigCoherence.check(EngramConfig.defaults().with(overrides));
    }

    @Test
    void shouldFindTheDefaultsCoherent() {
        assertThat(ConfigCoherence.check(EngramConfig.defaults())).isEmpty();
        assertThat(ConfigCoherence.check(EngramConfig.defaults().with(Map.of(EngramConfig.LLM_BASE_URL, "http://localhost:11434/v1"))))
            .as("the LLM defaults fit the extractor's transaction timeout").isEmpty();
    }

    @Test
    void shouldWarnThatStaleNeverFiresWhenItsThresholdIsAtOrBelowTheStorageFloor() {
        // the old defaults: nothing under 0.3 is stored and STALE needed importance < 0.3
        final List<Finding> old = check(Map.of(EngramConfig.STALE_MAX_IMPORTANCE, 0.3));
        assertThat(old).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.keys()).containsExactly("lifecycle.stale.max.importance", "memory.min.importance");
            assertThat(f.text()).contains("STALE never fires");
        });
        assertThat(check(Map.of(EngramConfig.MIN_IMPORTANCE, 0.5))).extracting(Finding::keys)
            .containsExactly(List.of("lifecycle.stale.max.importance", "memory.min.importance"));
        assertThat(check(Map.of(EngramConfig.STALE_MAX_IMPORTANCE, 0.0))).as("0 turns staleness off").isEmpty();
        assertThat(check(Map.of(EngramConfig.STALE_MAX_ACCESS_COUNT, 0))).extracting(Finding::keys)
            .containsExactly(List.of("lifecycle.stale.max.access.count"));
    }

    @Test
    void shouldRefuseADefaultKAboveTheLargestKAndARegistryFormatWithoutARegistry() {
        final EngramConfig both = EngramConfig.defaults().with(Map.of(EngramConfig.DEFAULT_K, 50, EngramConfig.MAX_K, 20,
            EngramConfig.SERDE_FORMAT, "registry", EngramConfig.STALE_MAX_IMPORTANCE, 0.2));
        assertThat(ConfigCoherence.check(both)).extracting(Finding::severity)
            .containsExactly(Severity.REFUSE, Severity.REFUSE, Severity.WARN);
        assertThatThrownBy(() -> ConfigCoherence.enforce(both, "test")).isInstanceOf(ConfigException.class)
            .hasMessageContaining("retrieval.default.k, retrieval.max.k:")
            .hasMessageContaining("serde.format, schema.registry.url:")
            .hasMessageNotContaining("lifecycle.stale");
        assertThat(check(Map.of(EngramConfig.SERDE_FORMAT, "registry", EngramConfig.SCHEMA_REGISTRY_URL, "http://registry:8081")))
            .isEmpty();
    }

    @Test
    void shouldWarnAboutAnEmptyJudgeBandAndALifecyclePassSlowerThanItsRules() {
        assertThat(check(Map.of(EngramConfig.JUDGE_THRESHOLD, 0.95))).extracting(Finding::keys)
            .containsExactly(List.of("dedup.judge.threshold", "dedup.reinforce.threshold"));
        // a weekly pass: the 30-day context TTL is fine, its INFERRED half (15 days) too; a 10-day one is not
        assertThat(check(Map.of(EngramConfig.LIFECYCLE_INTERVAL_MS, 7 * 86_400_000L))).isEmpty();
        assertThat(check(Map.of(EngramConfig.LIFECYCLE_INTERVAL_MS, 20 * 86_400_000L))).singleElement()
            .satisfies(f -> assertThat(f.keys()).containsExactly("lifecycle.interval.ms", "lifecycle.ttl.context.days",
                "lifecycle.ttl.inferred.factor"));
        assertThat(check(Map.of(EngramConfig.LIFECYCLE_INTERVAL_MS, 100 * 86_400_000L))).singleElement()
            .satisfies(f -> assertThat(f.keys()).containsExactly("lifecycle.interval.ms", "lifecycle.stale.days",
                "lifecycle.ttl.role.days", "lifecycle.ttl.context.days", "lifecycle.ttl.inferred.factor"));
        assertThat(check(Map.of(EngramConfig.TTL_INFERRED_FACTOR, 0.0))).extracting(Finding::keys)
            .containsExactly(List.of("lifecycle.ttl.inferred.factor", "lifecycle.ttl.role.days", "lifecycle.ttl.context.days"));
    }

    @Test
    void shouldWarnWhenAMessageAtTheCharacterLimitCannotFitARecord() {
        assertThat(check(Map.of(EngramConfig.MAX_RECORD_BYTES, 65_536))).singleElement()
            .satisfies(f -> assertThat(f.text()).startsWith("input.max.message.chars, input.max.record.bytes:")
                .contains("100000").contains("65536"));
    }

    @Test
    void shouldWarnWhenOneLlmCallWithItsRetriesOutlastsTheExtractorsTransaction() {
        // 5 × 60 s + 0.5 s × (2^4 − 1) = 307.5 s > 300 s
        final Map<String, Object> slow = Map.of(EngramConfig.LLM_BASE_URL, "http://localhost:11434/v1",
            EngramConfig.LLM_TIMEOUT_MS, 60_000, EngramConfig.LLM_MAX_ATTEMPTS, 5);
        assertThat(check(slow)).singleElement().satisfies(f -> {
            assertThat(f.keys()).containsExactly("llm.max.attempts", "llm.timeout.ms", "llm.backoff.ms",
                "kafka.producer.transaction.timeout.ms");
            assertThat(f.message()).contains("307500 ms").contains("300000 ms");
        });
        final Map<String, Object> longer = new java.util.HashMap<>(slow);
        longer.put("kafka.producer.transaction.timeout.ms", "600000");
        assertThat(check(longer)).isEmpty();
        assertThat(check(Map.of(EngramConfig.LLM_TIMEOUT_MS, 60_000, EngramConfig.LLM_MAX_ATTEMPTS, 5)))
            .as("no LLM configured: nothing to time out").isEmpty();
    }
}
