package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import dev.engram.config.EngramConfig;
import dev.engram.topics.AppIds;
import dev.engram.topology.StreamsSettings;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * A deployment that runs an app under its own {@code kafka.application.id} is rebuilt under that id: the rebuild used
 * to reset (and wait for the members of) the built-in group, {@code engram-retriever}, while the app ran as another
 * (fresh-user trial, 2026-12-05).
 */
class RebuildApplicationIdTest {

    @Test
    void shouldResetTheGroupTheAppRunsUnder() {
        final EngramConfig custom = EngramConfig.load(null, Map.of(), Map.of("kafka.application.id", "engram-retriever-eu"));

        assertThat(Rebuild.App.RETRIEVER.applicationId(custom)).isEqualTo("engram-retriever-eu")
            .isEqualTo(StreamsSettings.forApp(custom, AppIds.RETRIEVER).getProperty(StreamsConfig.APPLICATION_ID_CONFIG));
        assertThat(Rebuild.App.RETRIEVER.applicationId(EngramConfig.defaults())).isEqualTo(AppIds.RETRIEVER);
    }

    @Test
    void shouldRefuseTwoAppsAtOnceUnderOneApplicationId() {
        final EngramConfig custom = EngramConfig.load(null, Map.of(), Map.of("kafka.application.id", "engram-consolidator-eu"));

        assertThatThrownBy(() -> new Rebuild(custom, Rebuild.App.CONSOLIDATOR, null, false, true, false, Path.of("."),
            Duration.ofMinutes(1), new PrintStream(PrintStream.nullOutputStream())))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kafka.application.id");
    }
}
