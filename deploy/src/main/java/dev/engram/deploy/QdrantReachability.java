package dev.engram.deploy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Optional;

import dev.engram.config.EngramConfig;
import dev.engram.qdrant.QdrantConfig;

/**
 * The demo's check that Qdrant answers before anything starts ({@code --vector-index qdrant}): a TCP connection to
 * {@code qdrant.host:qdrant.port} within a deadline. Without it the consolidator retried an absent Qdrant in place
 * for every record and the demo sat at "memories 0 created … lag 83" with a warning every 5 s.
 */
final class QdrantReachability {

    /** How long the connection may take. */
    static final Duration TIMEOUT = Duration.ofSeconds(3);

    private QdrantReachability() {
    }

    /**
     * Prints where the demo's Qdrant is, when the vector index is Qdrant.
     *
     * @param config the demo's configuration
     * @param out the demo's console
     */
    static void describe(final EngramConfig config, final java.io.PrintStream out) {
        if (QdrantConfig.VECTOR_INDEX_QDRANT.equals(config.getString(QdrantConfig.VECTOR_INDEX))) {
            out.printf("Vector index: Qdrant at %s:%d (collection alias %s, one collection per embedding model; TLS %s)%n",
                config.getString(QdrantConfig.QDRANT_HOST), config.getInt(QdrantConfig.QDRANT_PORT),
                config.getString(QdrantConfig.QDRANT_COLLECTION), config.getBoolean(QdrantConfig.QDRANT_TLS) ? "on" : "off");
        }
    }

    /**
     * @param config the demo's configuration
     * @param err where the problem is printed
     * @return whether the demo must stop: Qdrant is its vector index and it cannot be reached ({@link #problem})
     */
    static boolean unreachable(final EngramConfig config, final java.io.PrintStream err) {
        final Optional<String> problem = problem(config);
        problem.ifPresent(err::println);
        return problem.isPresent();
    }

    /**
     * @param config the demo's configuration
     * @return why the demo cannot start (naming host and port and what to do), empty when the vector index is the
     *     embedded one or Qdrant accepts a connection
     */
    static Optional<String> problem(final EngramConfig config) {
        if (!QdrantConfig.VECTOR_INDEX_QDRANT.equals(config.getString(QdrantConfig.VECTOR_INDEX))) {
            return Optional.empty();
        }
        final String host = config.getString(QdrantConfig.QDRANT_HOST);
        final int port = config.getInt(QdrantConfig.QDRANT_PORT);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), (int) TIMEOUT.toMillis());
            return Optional.empty();
        } catch (IOException | IllegalArgumentException e) {
            return Optional.of("Qdrant is not reachable at " + host + ":" + port + " (gRPC; " + e.getMessage() + "). "
                + "Start it (docker run -d -p 6333:6333 -p 6334:6334 qdrant/qdrant:v1.18.0), give its gRPC address with "
                + "--qdrant-host/--qdrant-port, or run the demo without --vector-index qdrant (the embedded index).");
        }
    }
}
