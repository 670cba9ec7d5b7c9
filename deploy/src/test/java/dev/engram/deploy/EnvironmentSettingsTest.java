package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import dev.engram.config.EngramConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * {@code ENGRAM_} variables as {@code bin/engram} reads them, with every app's settings on the class path: a misspelt
 * setting stops the start with one line naming the setting it most likely means (the README trial's
 * {@code ENGRAM_RETRIEVER_HTTP_PROT} left the retriever on its default port without a word).
 */
class EnvironmentSettingsTest {

    @Test
    void shouldRefuseTheMisspeltPortNamingTheRetrieversPortWhenTheAppsLoadTheirSettings() {
        final Throwable refused = org.assertj.core.api.Assertions.catchThrowable(() ->
            EngramConfig.load(null, Map.of("ENGRAM_RETRIEVER_HTTP_PROT", "9000"), Map.of()));

        assertThat(refused).isInstanceOf(ConfigException.class)
            .hasMessage("ENGRAM_RETRIEVER_HTTP_PROT (retriever.http.prot) is no setting; did you mean "
                + "ENGRAM_RETRIEVER_HTTP_PORT (retriever.http.port)? (the settings and their variables: "
                + "docs/configuration.md)");
        assertThat(EngramCli.describe(refused)).as("what bin/engram prints before exiting 1")
            .startsWith("invalid setting: ENGRAM_RETRIEVER_HTTP_PROT");
    }

    @Test
    void shouldStartWhenKubernetesServiceLinksOfTheRetrieverAreInTheEnvironment() {
        // a Service named engram-retriever (deploy/k8s/retriever.yaml) puts these into every pod of the namespace
        assertThat(EngramConfig.load(null, Map.of("ENGRAM_RETRIEVER_PORT", "tcp://10.0.0.7:80",
            "ENGRAM_RETRIEVER_PORT_80_TCP_ADDR", "10.0.0.7", "ENGRAM_RETRIEVER_SERVICE_HOST", "10.0.0.7",
            "ENGRAM_RETRIEVER_SERVICE_PORT", "80", "ENGRAM_RETRIEVER_SERVICE_PORT_HTTP", "80"), Map.of())
            .getInt(dev.engram.streams.PipelineConfig.RETRIEVER_HTTP_PORT)).isEqualTo(8080);
    }
}
