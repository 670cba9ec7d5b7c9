package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import dev.engram.config.EngramConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoCommandTest {

    @Test
    void shouldSetTheQdrantSettingsWhenTheVectorIndexFlagsAreGiven() {
        final DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs("--vector-index", "qdrant", "--qdrant-host", "qdrant.internal", "--qdrant-port", "6339");

        final EngramConfig config = EngramConfig.load(null, Map.of("ENGRAM_QDRANT_HOST", "from-env"),
            demo.vectorIndexOverrides());
        assertThat(config.getString(EngramConfig.VECTOR_INDEX)).isEqualTo("qdrant");
        assertThat(config.getString(EngramConfig.QDRANT_HOST)).isEqualTo("qdrant.internal");
        assertThat(config.getInt(EngramConfig.QDRANT_PORT)).isEqualTo(6339);
        assertThat(config.getBoolean(EngramConfig.QDRANT_TLS)).isFalse();
    }

    @Test
    void shouldKeepTheEmbeddedDefaultWhenNoFlagIsGiven() {
        final DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs("--once");
        assertThat(demo.vectorIndexOverrides()).isEmpty();
        assertThat(EngramConfig.load(null, Map.of(), demo.vectorIndexOverrides()).getString(EngramConfig.VECTOR_INDEX))
            .isEqualTo("embedded");
    }

    @Test
    void shouldRefuseAnUnknownVectorIndexWhenConfigIsLoaded() {
        final DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs("--vector-index", "faiss");
        assertThatThrownBy(() -> EngramConfig.load(null, Map.of(), demo.vectorIndexOverrides()))
            .isInstanceOf(ConfigException.class).hasMessageContaining("vector.index");
    }
}
