package dev.engram.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a setting comes from (file, environment, overrides) and what the config derives from its keys. */
class EngramConfigTest {

    @Test
    void shouldLetOverridesWinOverTheEnvironmentAndTheEnvironmentOverTheFileWhenLoading(@TempDir final Path dir)
        throws IOException {
        final Path file = dir.resolve("engram.properties");
        Files.writeString(file, "sample.size = 5 \nsample.mode=slow\nsample.limit=0.25\n");

        final EngramConfig config = EngramConfig.load(file,
            Map.of("ENGRAM_SAMPLE_SIZE", "6", "ENGRAM_SAMPLE_LIMIT", "0.75", "PATH", "/bin", "SAMPLE_MODE", "fast"),
            Map.of(SampleGroup.SIZE, 7));

        assertThat(config.getInt(SampleGroup.SIZE)).as("override over environment over file").isEqualTo(7);
        assertThat(config.getDouble(SampleGroup.LIMIT)).as("environment over file").isEqualTo(0.75);
        assertThat(config.getString(SampleGroup.MODE)).as("file value, stripped; unprefixed variables ignored")
            .isEqualTo("slow");
        assertThat(config.originals()).doesNotContainKey("path");
    }

    @Test
    void shouldNameTheVariableOrFileThatSetABadValueBesideItsKeyWhenLoading(@TempDir final Path dir) throws IOException {
        final Path file = dir.resolve("engram.properties");
        Files.writeString(file, "sample.limit=2\n");

        assertThatThrownBy(() -> EngramConfig.load(null, Map.of("ENGRAM_SAMPLE_SIZE", "abc"), Map.of()))
            .isInstanceOf(org.apache.kafka.common.config.ConfigException.class)
            .hasMessage("Invalid value abc for configuration sample.size: Not a number of type INT "
                + "(set by the environment variable ENGRAM_SAMPLE_SIZE)");
        assertThatThrownBy(() -> EngramConfig.load(null, Map.of("ENGRAM_SAMPLE_SIZE", "0"), Map.of()))
            .hasMessageContaining("sample.size").hasMessageEndingWith("(set by the environment variable ENGRAM_SAMPLE_SIZE)");
        assertThatThrownBy(() -> EngramConfig.load(file, Map.of(), Map.of()))
            .hasMessageContaining("sample.limit").hasMessageEndingWith("(set in " + file + ")");
        assertThatThrownBy(() -> EngramConfig.load(null, Map.of(), Map.of(SampleGroup.SIZE, "abc")))
            .as("an override (a command-line flag) is named by its key alone, as before")
            .hasMessage("Invalid value abc for configuration sample.size: Not a number of type INT");
        assertThat(EngramConfig.load(file, Map.of("ENGRAM_SAMPLE_LIMIT", "0.5"), Map.of()).getDouble(SampleGroup.LIMIT))
            .as("a bad file value the environment replaces is not refused").isEqualTo(0.5);
    }

    @Test
    void shouldFailNamingTheFileWhenItCannotBeRead(@TempDir final Path dir) {
        final Path missing = dir.resolve("absent.properties");

        assertThatThrownBy(() -> EngramConfig.load(missing, Map.of(), Map.of())).isInstanceOf(UncheckedIOException.class)
            .hasMessageContaining(missing.toString());
    }

    @Test
    void shouldMapEnvironmentNamesAsKafkasDockerImagesDo() {
        assertThat(EngramConfig.fromEnvironmentName("RETRIEVER_HTTP_PORT")).isEqualTo("retriever.http.port");
        assertThat(EngramConfig.fromEnvironmentName("KAFKA_SASL__JAAS___CONFIG")).isEqualTo("kafka.sasl_jaas-config");
        assertThat(EngramConfig.load(null, Map.of("ENGRAM_KAFKA_BOOTSTRAP_SERVERS", "broker:9093"), Map.of())
            .getString(CoreConfig.BOOTSTRAP_SERVERS)).isEqualTo("broker:9093");
    }

    @Test
    void shouldRefuseAMisspeltSettingNamingItAndTheSettingItMeansWhenLoadingTheEnvironment() {
        assertThatThrownBy(() -> EngramConfig.load(null, Map.of("ENGRAM_SAMPLE_SIEZ", "6"), Map.of()))
            .isInstanceOf(org.apache.kafka.common.config.ConfigException.class)
            .hasMessageContaining("ENGRAM_SAMPLE_SIEZ (sample.siez) is no setting")
            .hasMessageContaining("did you mean ENGRAM_SAMPLE_SIZE (sample.size)?");
        assertThatThrownBy(() -> EngramConfig.load(null, Map.of("ENGRAM_KAFKA_BOOTSTRAP_SERVER", "broker:9093"), Map.of()))
            .as("a kafka.* key passes through, but not a misspelling of a declared one")
            .hasMessageContaining("did you mean ENGRAM_KAFKA_BOOTSTRAP_SERVERS (kafka.bootstrap.servers)?");
    }

    @Test
    void shouldRefuseAMisspeltKeyOfTheConfigFileAsItRefusesTheVariableNamingTheFileAndTheSettingItMeans(
        @TempDir final Path dir) throws IOException {
        // README trial: retriever.http.prot=9000 in a --config file was accepted silently, ENGRAM_RETRIEVER_HTTP_PROT not
        final Path file = dir.resolve("engram.properties");
        Files.writeString(file, "sample.siez=6\nsample.mode=slow\n");
        assertThatThrownBy(() -> EngramConfig.load(file, Map.of(), Map.of()))
            .isInstanceOf(org.apache.kafka.common.config.ConfigException.class)
            .hasMessageContaining("In the config file " + file + ": sample.siez is no setting; did you mean sample.size?")
            .hasMessageNotContaining("\n");
        Files.writeString(file, "kafka.bootstrap.server=broker:9093\n");
        assertThatThrownBy(() -> EngramConfig.load(file, Map.of(), Map.of()))
            .hasMessageContaining("did you mean kafka.bootstrap.servers?");
        // far from every setting, or a Kafka client's own: loaded as a variable would be
        Files.writeString(file, "sample.size=6\nwhatever.this.is=1\nkafka.linger.ms=5\n");
        assertThat(EngramConfig.load(file, Map.of(), Map.of()).getInt(SampleGroup.SIZE)).isEqualTo(6);
    }

    @Test
    void shouldKeepLoadingWhenAnEngramVariableIsFarFromEverySettingOrIsNoSettingByDesign() {
        // Kubernetes injects these into every pod of a namespace with a Service named engram-retriever
        final EngramConfig config = EngramConfig.load(null, Map.of("ENGRAM_RETRIEVER_SERVICE_HOST", "10.0.0.7",
            "ENGRAM_RETRIEVER_PORT", "tcp://10.0.0.7:8080", "ENGRAM_LOG_LEVEL", "INFO", "ENGRAM_API_KEY", "k",
            "ENGRAM_SAMPLE_SIZE", "6", "ENGRAM_KAFKA_ACKS", "all"), Map.of());

        assertThat(config.getInt(SampleGroup.SIZE)).isEqualTo(6);
        assertThat(config.kafkaProperties()).containsEntry("acks", "all");
        assertThat(config.originals()).as("the variables Engram reads elsewhere are no settings")
            .doesNotContainKeys("log.level", "api.key");
    }

    @Test
    void shouldNameEachSettingsVariableAsTheInverseOfTheMapping() {
        for (final String key : EngramConfig.DEFINITION.names()) {
            assertThat(EngramConfig.fromEnvironmentName(EnvironmentSettings.variable(key))).isEqualTo(key);
        }
        assertThat(EnvironmentSettings.variable("kafka.sasl_jaas-config")).isEqualTo("ENGRAM_KAFKA_SASL__JAAS___CONFIG");
        assertThat(EnvironmentSettings.distance("retriever.http.prot", "retriever.http.port")).as("a swap").isEqualTo(1);
        assertThat(EnvironmentSettings.distance("retriever.port", "retriever.http.port")).isEqualTo(5);
    }

    @Test
    void shouldHandKafkaItsPrefixedSettingsWithTheBootstrapServersWhenAsked() {
        final EngramConfig config = new EngramConfig(Map.of("kafka.bootstrap.servers", "a:1,b:2",
            "kafka.security.protocol", "SSL", "sample.size", 3));

        assertThat(config.kafkaProperties()).containsOnly(Map.entry("bootstrap.servers", "a:1,b:2"),
            Map.entry("security.protocol", "SSL"));
    }

    @Test
    void shouldKeepEveryOtherSettingWhenACopyReplacesSome() {
        final EngramConfig base = new EngramConfig(Map.of(SampleGroup.SIZE, 3, "kafka.acks", "all"));

        final EngramConfig copy = base.with(Map.of(SampleGroup.MODE, "slow"));

        assertThat(copy.getInt(SampleGroup.SIZE)).isEqualTo(3);
        assertThat(copy.getString(SampleGroup.MODE)).isEqualTo("slow");
        assertThat(copy.kafkaProperties()).containsEntry("acks", "all");
        assertThat(base.getString(SampleGroup.MODE)).as("the original is unchanged").isEqualTo("fast");
        assertThatThrownBy(() -> base.with(Map.of(SampleGroup.SIZE, -1)))
            .hasMessageContaining("sample.size");
    }

    @Test
    void shouldSizeTopicsAndProducersOneMebibyteAboveTheLargestRecordWhenItIsConfigured() {
        assertThat(EngramConfig.defaults().maxMessageBytes()).isEqualTo(4 * 1024 * 1024 + 1024 * 1024);
        assertThat(new EngramConfig(Map.of(CoreConfig.MAX_RECORD_BYTES, 2048)).maxMessageBytes())
            .isEqualTo(2048 + CoreConfig.RECORD_HEADROOM_BYTES);
        assertThatThrownBy(() -> new EngramConfig(Map.of(CoreConfig.MAX_RECORD_BYTES, 100)))
            .hasMessageContaining("input.max.record.bytes");
    }

    @Test
    void shouldTurnOnlyCryptoShreddingOffWhenThePlainDefaultsAreAsked() {
        assertThat(EngramConfig.plain().originals()).containsOnly(Map.entry("crypto.enabled", false));
        assertThat(EngramConfig.defaults().originals()).isEmpty();
    }

    @Test
    void shouldNameTheClosestSettingOnlyWhenItIsANearMissWhenAVariableIsIgnored() {
        assertThat(EnvironmentSettings.hint("foo", java.util.Optional.of("llm.model")))
            .isEqualTo("; the settings are listed in docs/configuration.md");
        assertThat(EnvironmentSettings.hint("retriever.http.prtt", java.util.Optional.of("retriever.http.port")))
            .isEqualTo("; the closest setting is ENGRAM_RETRIEVER_HTTP_PORT (retriever.http.port)");
        assertThat(EnvironmentSettings.hint("foo", java.util.Optional.empty()))
            .isEqualTo("; the settings are listed in docs/configuration.md");
    }
}
