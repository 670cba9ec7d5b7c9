package dev.engram.serde;

import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.common.serialization.Serde;

/**
 * The Serdes of Engram's records on its topics, in one wire format ({@link SerdeFormat}). This is the one
 * seam where the format is chosen: topologies, producers and consumers ask it for the value Serde of a
 * topic's record class and never name a format themselves.
 *
 * <p>The topic passed to {@code serialize(topic, record)} matters for {@link SerdeFormat#REGISTRY} (it names
 * the subject {@code <topic>-value}); state stores keep {@link AvroSerdes#serde(Class)} (single-object, no
 * registry round trip for internal changelogs).
 */
@FunctionalInterface
public interface RecordSerdes {

    /**
     * @param type a class generated from {@code schemas/src/main/avro}
     * @param <T> the record type
     * @return a thread-safe Serde of that record in this format
     */
    <T extends SpecificRecordBase> Serde<T> serde(Class<T> type);

    /** @return the single-object Serdes of {@link AvroSerdes} (the embedded default) */
    static RecordSerdes singleObject() {
        return AvroSerdes::serde;
    }

    /**
     * @param format the wire format
     * @param registryUrl base URL of a Confluent-compatible schema registry; used only by {@link SerdeFormat#REGISTRY}
     * @param basicAuthUserInfo {@code user:password} for HTTP Basic authentication to the registry, or null/blank
     * @return the Serdes of that format
     * @throws IllegalArgumentException if the registry format is chosen without a URL
     */
    static RecordSerdes of(final SerdeFormat format, final String registryUrl, final String basicAuthUserInfo) {
        if (format == SerdeFormat.SINGLE_OBJECT) {
            return singleObject();
        }
        if (registryUrl == null || registryUrl.isBlank()) {
            throw new IllegalArgumentException("serde.format=registry needs schema.registry.url");
        }
        return new RegistryAvroSerdes(new SchemaRegistryClient(registryUrl, basicAuthUserInfo));
    }
}
