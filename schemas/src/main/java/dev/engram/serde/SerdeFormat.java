package dev.engram.serde;

import java.util.Arrays;
import java.util.Locale;

/**
 * How Engram's Avro records are framed on its topics ({@code serde.format}).
 *
 * <ul>
 *   <li>{@link #SINGLE_OBJECT} ({@code single-object}, the default): Avro single-object encoding, marker
 *       {@code C3 01}, the 8-byte CRC-64-AVRO fingerprint of the writer schema, the Avro binary body.
 *       No registry; writer schemas are resolved from the schemas shipped in Engram's jar.</li>
 *   <li>{@link #REGISTRY} ({@code registry}): the Confluent Schema Registry wire format, magic byte
 *       {@code 00}, the 4-byte big-endian schema id, the Avro binary body; schemas are registered under
 *       the subject {@code <topic>-value} (TopicNameStrategy), so any Avro consumer with a registry
 *       client reads them without Engram's classes.</li>
 * </ul>
 */
public enum SerdeFormat {
    /** Avro single-object encoding (no registry). */
    SINGLE_OBJECT("single-object"),
    /** Confluent Schema Registry wire format. */
    REGISTRY("registry");

    private final String configValue;

    SerdeFormat(final String configValue) {
        this.configValue = configValue;
    }

    /** @return the value of {@code serde.format} that selects this format */
    public String configValue() {
        return configValue;
    }

    /**
     * @param value {@code single-object} or {@code registry} (case-insensitive)
     * @return the format
     * @throws IllegalArgumentException for any other value
     */
    public static SerdeFormat parse(final String value) {
        final String wanted = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(f -> f.configValue.equals(wanted)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("serde.format must be single-object or registry, was " + value));
    }
}
