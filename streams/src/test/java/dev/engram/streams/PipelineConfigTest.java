package dev.engram.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import dev.engram.config.ConfigCoherence;
import dev.engram.config.ConfigFinding;
import dev.engram.config.ConfigFinding.Severity;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * The streams group's coherence check ({@link PipelineConfig#check}), and the groups' findings together: refusals of
 * two groups first, then the warnings.
 */
class PipelineConfigTest {

    private static List<ConfigFinding> check(final Map<String, ?> overrides) {
        return ConfigCoherence.check(EngramConfig.defaults().with(overrides));
    }

    @Test
    void shouldFindTheDefaultsCoherentWhenNothingIsSet() {
        assertThat(ConfigCoherence.check(EngramConfig.defaults())).isEmpty();
    }

    @Test
    void shouldRefuseADefaultKAboveTheLargestKAndARegistryFormatWithoutARegistry() {
        final EngramConfig both = EngramConfig.defaults().with(Map.of(DomainConfig.DEFAULT_K, 50, DomainConfig.MAX_K, 20,
            PipelineConfig.SERDE_FORMAT, "registry", DomainConfig.STALE_MAX_IMPORTANCE, 0.2));
        assertThat(ConfigCoherence.check(both)).extracting(ConfigFinding::severity)
            .containsExactly(Severity.REFUSE, Severity.REFUSE, Severity.WARN);
        assertThatThrownBy(() -> ConfigCoherence.enforce(both, "test")).isInstanceOf(ConfigException.class)
            .hasMessageContaining("retrieval.default.k, retrieval.max.k:")
            .hasMessageContaining("serde.format, schema.registry.url:")
            .hasMessageNotContaining("lifecycle.stale");
        assertThat(check(Map.of(PipelineConfig.SERDE_FORMAT, "registry", PipelineConfig.SCHEMA_REGISTRY_URL, "http://registry:8081")))
            .isEmpty();
    }

    @Test
    void shouldTurnCryptoShreddingOffInThePlainConfigWhenItsKeyIsThisGroups() {
        assertThat(EngramConfig.defaults().getBoolean(PipelineConfig.CRYPTO_ENABLED)).isTrue();
        assertThat(EngramConfig.plain().getBoolean(PipelineConfig.CRYPTO_ENABLED))
            .as("EngramConfig.plain() spells this group's key").isFalse();
        assertThat(EngramConfig.owner(PipelineConfig.CRYPTO_ENABLED)).contains("streams");
    }
}
