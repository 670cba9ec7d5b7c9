package dev.engram.config;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.CommonClientConfigs;

/**
 * What the background readers of a topic beside Kafka Streams (the data keys, the active embedding model) take
 * from an app's Kafka settings: where the cluster is and how to authenticate, nothing about groups or
 * serialization; and how they stop their reader thread.
 */
public final class KafkaConnection {

    /** The settings a plain client needs to reach and authenticate to the cluster. */
    public static final List<String> KEYS = List.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
        CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "sasl.mechanism", "sasl.jaas.config", "ssl.truststore.location",
        "ssl.truststore.password", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password");

    /**
     * The Kafka Streams property under which an app hands its Micrometer {@code MeterRegistry} (an object, not a
     * string) to the plugins Kafka Streams instantiates by class name, its exception handlers, so that what they count
     * ({@code engram.dead.letters}) is on the app's own {@code /metrics}; {@code StreamsRunner} sets it. Kafka's clients
     * ignore the unknown key.
     */
    public static final String METER_REGISTRY_CONFIG = "engram.meter.registry";

    private KafkaConnection() {
    }

    /**
     * @param kafka an app's Kafka settings ({@link EngramConfig#kafkaProperties()})
     * @return the {@link #KEYS} among them that are set
     */
    public static Map<String, Object> of(final Map<String, Object> kafka) {
        final Map<String, Object> out = new HashMap<>();
        for (final String key : KEYS) {
            if (kafka.get(key) != null) {
                out.put(key, kafka.get(key));
            }
        }
        return out;
    }

    /**
     * Waits up to 5 s for a reader thread that was told to stop (its consumer woken up); an interrupt of the
     * caller is kept.
     *
     * @param reader the thread
     */
    public static void join(final Thread reader) {
        try {
            reader.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
