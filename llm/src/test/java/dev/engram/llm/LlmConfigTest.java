package dev.engram.llm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import dev.engram.config.ConfigCoherence;
import dev.engram.config.ConfigFinding;
import dev.engram.config.EngramConfig;
import org.junit.jupiter.api.Test;

/** The LLM group's coherence check ({@link LlmConfig#check}), run through {@link ConfigCoherence}. */
class LlmConfigTest {

    private static List<ConfigFinding> check(final Map<String, ?> overrides) {
        return ConfigCoherence.check(EngramConfig.defaults().with(overrides));
    }

    @Test
    void shouldFindTheLlmDefaultsCoherentWhenAServerIsConfigured() {
        assertThat(ConfigCoherence.check(EngramConfig.defaults().with(Map.of(LlmConfig.LLM_BASE_URL, "http://localhost:11434/v1"))))
            .as("the LLM defaults fit the extractor's transaction timeout").isEmpty();
    }

    @Test
    void shouldWarnWhenOneLlmCallWithItsRetriesOutlastsTheExtractorsTransaction() {
        // 5 × 60 s + 0.5 s × (2^4 − 1) = 307.5 s > 300 s
        final Map<String, Object> slow = Map.of(LlmConfig.LLM_BASE_URL, "http://localhost:11434/v1",
            LlmConfig.LLM_TIMEOUT_MS, 60_000, LlmConfig.LLM_MAX_ATTEMPTS, 5);
        assertThat(check(slow)).singleElement().satisfies(f -> {
            assertThat(f.keys()).containsExactly("llm.max.attempts", "llm.timeout.ms", "llm.backoff.ms",
                "kafka.producer.transaction.timeout.ms");
            assertThat(f.message()).contains("307500 ms").contains("300000 ms");
        });
        final Map<String, Object> longer = new java.util.HashMap<>(slow);
        longer.put("kafka.producer.transaction.timeout.ms", "600000");
        assertThat(check(longer)).isEmpty();
        assertThat(check(Map.of(LlmConfig.LLM_TIMEOUT_MS, 60_000, LlmConfig.LLM_MAX_ATTEMPTS, 5)))
            .as("no LLM configured: nothing to time out").isEmpty();
    }
}
