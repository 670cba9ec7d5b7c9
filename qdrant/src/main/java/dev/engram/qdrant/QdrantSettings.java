package dev.engram.qdrant;

import java.time.Duration;
import java.util.Objects;

import dev.engram.config.EngramConfig;
import org.apache.kafka.common.config.types.Password;

/**
 * Where and how to reach Qdrant.
 *
 * @param host gRPC host
 * @param port gRPC port (Qdrant: 6334)
 * @param tls whether the channel uses TLS (explicit: the client's {@code newBuilder(host)} defaults to TLS)
 * @param apiKey the {@code api-key} sent with every call, or null for none
 * @param collection the collection holding the memories
 * @param timeout the deadline of every call
 */
public record QdrantSettings(String host, int port, boolean tls, String apiKey, String collection, Duration timeout) {

    /** @throws NullPointerException or IllegalArgumentException on a missing or invalid part */
    public QdrantSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(collection, "collection");
        Objects.requireNonNull(timeout, "timeout");
        if (collection.isBlank() || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("collection must not be blank and timeout must be positive");
        }
        apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey;
    }

    /**
     * @param config {@code qdrant.host}, {@code qdrant.port}, {@code qdrant.tls}, {@code qdrant.api.key},
     *     {@code qdrant.collection}, {@code qdrant.timeout.ms}
     * @return the settings
     */
    public static QdrantSettings from(final EngramConfig config) {
        final Password key = config.getPassword(QdrantConfig.QDRANT_API_KEY);
        return new QdrantSettings(config.getString(QdrantConfig.QDRANT_HOST), config.getInt(QdrantConfig.QDRANT_PORT),
            config.getBoolean(QdrantConfig.QDRANT_TLS), key == null ? null : key.value(),
            config.getString(QdrantConfig.QDRANT_COLLECTION),
            Duration.ofMillis(config.getInt(QdrantConfig.QDRANT_TIMEOUT_MS)));
    }

    /** Never prints the API key. */
    @Override
    public String toString() {
        return "QdrantSettings[" + (tls ? "https" : "http") + "://" + host + ":" + port + ", collection=" + collection
            + ", timeout=" + timeout.toMillis() + " ms, apiKey=" + (apiKey == null ? "none" : "set") + "]";
    }
}
