package dev.engram.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import dev.engram.config.ConfigGroup;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.domain.DomainConfig;
import dev.engram.extractor.ExtractorApp;
import dev.engram.retriever.RetrieverApp;
import dev.engram.streams.PipelineConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * Every app, and so the demo's {@link DemoApps}, checks the configuration as a whole before it starts
 * anything: an incoherent one is refused with the keys named (no broker is needed to see it: nothing
 * connects before the check).
 */
class AppConfigCoherenceTest {

    private static final EngramConfig INCOHERENT = EngramConfig.plain().with(Map.of(
        DomainConfig.DEFAULT_K, 50, DomainConfig.MAX_K, 20, CoreConfig.BOOTSTRAP_SERVERS, "127.0.0.1:1",
        PipelineConfig.EXTRACTOR_HTTP_PORT, 0, PipelineConfig.CONSOLIDATOR_HTTP_PORT, 0, PipelineConfig.RETRIEVER_HTTP_PORT, 0));

    @Test
    void shouldRefuseToStartEveryAppAndTheDemoWithAnIncoherentConfigNamingTheKeys() {
        assertThatThrownBy(() -> DemoApps.start(INCOHERENT)).isInstanceOf(ConfigException.class)
            .hasMessageContaining("retrieval.default.k, retrieval.max.k");
        assertThatThrownBy(() -> ExtractorApp.start(INCOHERENT)).isInstanceOf(ConfigException.class)
            .hasMessageContaining("retrieval.default.k, retrieval.max.k");
        assertThatThrownBy(() -> ConsolidatorApp.start(INCOHERENT)).isInstanceOf(ConfigException.class)
            .hasMessageContaining("retrieval.default.k, retrieval.max.k");
        assertThatThrownBy(() -> RetrieverApp.start(INCOHERENT)).isInstanceOf(ConfigException.class)
            .hasMessageContaining("retrieval.default.k, retrieval.max.k");
    }

    @Test
    void shouldComposeEveryGroupEachAppReadsWhenTheAppsRunTogether() {
        final List<String> composed = EngramConfig.groups().stream().map(ConfigGroup::name).toList();

        assertThat(composed).containsAll(ExtractorApp.CONFIG_GROUPS).containsAll(ConsolidatorApp.CONFIG_GROUPS)
            .containsAll(RetrieverApp.CONFIG_GROUPS).contains("stack");
        for (final List<String> groups : List.of(ExtractorApp.CONFIG_GROUPS, ConsolidatorApp.CONFIG_GROUPS,
            RetrieverApp.CONFIG_GROUPS)) {
            assertThat(groups).as("every app reads core's and the domain's settings").startsWith("core", "domain");
            for (final String group : groups) {
                assertThat(composed).as(group + " is a composed group's name").contains(group);
            }
        }
    }
}
