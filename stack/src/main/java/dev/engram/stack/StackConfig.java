package dev.engram.stack;

import dev.engram.config.ConfigFields;
import dev.engram.config.ConfigFields.Importance;
import dev.engram.config.ConfigFields.Type;
import dev.engram.config.ConfigFields.ValidString;
import dev.engram.config.ConfigGroup;

/**
 * The settings the local stack owns ({@link ConfigGroup} {@code stack}): how {@code bin/engram ingest} and the demo
 * publish conversations. Registered as a service, composed onto the core definition by {@code EngramConfig}; the keys
 * are this class's constants.
 */
public final class StackConfig implements ConfigGroup {

    /** Compression codec of the records {@code bin/engram ingest} and the demo publish to conversations-completed. */
    public static final String INGEST_COMPRESSION = "ingest.compression.type";

    /** Called by the service loader ({@code META-INF/services/dev.engram.config.ConfigGroup}). */
    public StackConfig() {
        // the keys are constants; the declaration is {@link #define}
    }

    @Override
    public String name() {
        return "stack";
    }

    @Override
    public void define(final ConfigFields fields) {
        fields
            .define(INGEST_COMPRESSION, Type.STRING, "gzip", ValidString.in("none", "gzip", "snappy", "lz4", "zstd"),
                Importance.LOW, "Compression of the records bin/engram ingest and the demo publish to conversations-completed "
                    + "(the producer's compression.type). gzip and none are read by every Kafka client, kafkajs included; "
                    + "snappy, lz4 and zstd are read by the Java client, librdkafka's (Python, Go, .NET, kcat), franz-go and "
                    + "sarama, but kafkajs needs a codec package for each. Consumers decompress whatever the producer chose.");
    }
}
