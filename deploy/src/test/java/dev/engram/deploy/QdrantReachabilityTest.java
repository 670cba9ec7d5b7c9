package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import dev.engram.config.EngramConfig;
import dev.engram.qdrant.QdrantConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QdrantReachabilityTest {

    private static int closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static EngramConfig qdrantAt(final int port) {
        return EngramConfig.load(null, Map.of(), Map.of(QdrantConfig.VECTOR_INDEX, QdrantConfig.VECTOR_INDEX_QDRANT,
            QdrantConfig.QDRANT_HOST, "localhost", QdrantConfig.QDRANT_PORT, port));
    }

    @Test
    void shouldNameHostAndPortWhenNothingListensThere() throws Exception {
        final int port = closedPort();

        assertThat(QdrantReachability.problem(qdrantAt(port))).hasValueSatisfying(problem -> assertThat(problem)
            .contains("Qdrant is not reachable at localhost:" + port, "--qdrant-port"));
    }

    @Test
    void shouldPassWhenQdrantListensOrTheIndexIsEmbedded() throws Exception {
        try (ServerSocket listening = new ServerSocket(0)) {
            assertThat(QdrantReachability.problem(qdrantAt(listening.getLocalPort()))).isEmpty();
        }
        assertThat(QdrantReachability.problem(EngramConfig.defaults())).isEmpty();
    }

    @Test
    void shouldExitBeforeStartingAnythingWhenTheDemoCannotReachQdrant(@TempDir final Path tmp) throws Exception {
        final Path run = tmp.resolve("demo");
        Files.createDirectories(run);
        Files.writeString(run.resolve("marker"), "x");

        final CliRun result = CliRun.engram("demo", "--once", "--port", "0", "--run-dir", run.toString(),
            "--vector-index", "qdrant", "--qdrant-host", "localhost", "--qdrant-port", Integer.toString(closedPort()));

        assertThat(result.exit()).isEqualTo(1);
        assertThat(result.out()).doesNotContain("Starting the Kafka broker");
        assertThat(run.resolve("marker")).exists();
    }
}
