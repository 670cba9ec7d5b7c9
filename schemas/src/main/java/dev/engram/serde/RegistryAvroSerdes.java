package dev.engram.serde;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Serdes writing the Confluent Schema Registry wire format: byte {@code 0x00} (magic), the schema id as a
 * 4-byte big-endian int, then the Avro binary body (Confluent docs, "Wire format"). The writer schema is the
 * generated class's schema, registered under {@code <topic>-value} (TopicNameStrategy) on first use; a
 * subject without a compatibility level of its own is set to {@code BACKWARD} then, so the registry refuses
 * a schema change that the current readers could not resolve (a level set by the operator is kept).
 *
 * <p>Reading: a record in the wire format is decoded with the writer schema fetched by id (cached) and
 * resolved to the class's schema (Avro schema resolution: added fields take their defaults, removed ones are
 * skipped). A record in single-object encoding (marker {@code C3 01}) is still read, through
 * {@link AvroSerdes}: topics written before {@code serde.format} was switched stay readable. Anything else is
 * a {@link SerializationException}, never a silent {@code null}; a {@code null} payload (tombstone) is null.
 *
 * <p>Thread-safe; one Serde per record class is cached.
 */
public final class RegistryAvroSerdes implements RecordSerdes {

    /** The Confluent wire format's first byte. */
    public static final byte MAGIC_BYTE = 0;
    /** Compatibility set on a subject that has no level of its own. */
    public static final String COMPATIBILITY = "BACKWARD";
    private static final int HEADER_BYTES = 5;

    private final SchemaRegistryClient registry;
    private final Map<Class<?>, Serde<?>> cache = new ConcurrentHashMap<>();
    private final Set<String> configuredSubjects = ConcurrentHashMap.newKeySet();

    /** @param registry the registry schemas are registered in and fetched from */
    public RegistryAvroSerdes(final SchemaRegistryClient registry) {
        this.registry = registry;
    }

    /** @return the registry client */
    public SchemaRegistryClient registry() {
        return registry;
    }

    /**
     * @param topic a topic name
     * @return its value subject under the TopicNameStrategy
     */
    public static String valueSubject(final String topic) {
        return topic + "-value";
    }

    /**
     * Registers a record class's schema under {@code <topic>-value} as the first write of that record would (the whole
     * schema, nested types inlined; the subject's compatibility set to {@value #COMPATIBILITY} if it has none), so a
     * deployment can register before anything is written and a reader can fetch the schema before the first record.
     *
     * @param topic the topic
     * @param type the generated class of its values
     * @return the schema id
     * @throws SerializationException if the registry refuses it (e.g. incompatible with the subject's latest)
     */
    public int registerValueSchema(final String topic, final Class<? extends SpecificRecordBase> type) {
        return register(topic, SpecificData.getForClass(type).getSchema(type), type);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends SpecificRecordBase> Serde<T> serde(final Class<T> type) {
        AvroSerdes.trustGeneratedRecords();
        return (Serde<T>) cache.computeIfAbsent(type, this::create);
    }

    private <T extends SpecificRecordBase> Serde<T> create(final Class<?> rawType) {
        @SuppressWarnings("unchecked")
        final Class<T> type = (Class<T>) rawType;
        // the generated class's own model carries its logical-type conversions (Instant for timestamp-millis)
        final SpecificData model = SpecificData.getForClass(type);
        final Schema schema = model.getSchema(type);
        final SpecificDatumWriter<T> writer = new SpecificDatumWriter<>(schema, model);
        final Map<Integer, DatumReader<T>> readers = new ConcurrentHashMap<>();
        final Deserializer<T> singleObject = AvroSerdes.serde(type).deserializer();
        final Serializer<T> serializer = (topic, record) -> {
            if (record == null) {
                return null;
            }
            final int id = register(topic, schema, type);
            try {
                final ByteArrayOutputStream out = new ByteArrayOutputStream(256);
                out.write(MAGIC_BYTE);
                out.write(ByteBuffer.allocate(4).putInt(id).array());
                final BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
                writer.write(record, encoder);
                encoder.flush();
                return out.toByteArray();
            } catch (IOException | RuntimeException e) {
                throw new SerializationException("Cannot serialize " + type.getSimpleName() + " for topic " + topic
                    + ": " + e.getMessage(), e);
            }
        };
        final Deserializer<T> deserializer = (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            if (bytes.length >= 2 && bytes[0] == (byte) 0xC3 && bytes[1] == (byte) 0x01) {
                return singleObject.deserialize(topic, bytes);
            }
            if (bytes.length < HEADER_BYTES || bytes[0] != MAGIC_BYTE) {
                throw new SerializationException("Cannot deserialize " + type.getSimpleName() + " from topic " + topic
                    + " (" + bytes.length + " bytes): neither the schema registry wire format (magic byte 0) nor "
                    + "single-object encoding (C3 01)");
            }
            final int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
            try {
                final DatumReader<T> reader = readers.computeIfAbsent(id,
                    key -> new SpecificDatumReader<>(registry.schemaById(key), schema, model));
                return reader.read(null, DecoderFactory.get().binaryDecoder(bytes, HEADER_BYTES,
                    bytes.length - HEADER_BYTES, null));
            } catch (SchemaRegistryException e) {
                throw new SerializationException("Cannot deserialize " + type.getSimpleName() + " from topic " + topic
                    + ": writer schema " + id + " unavailable: " + e.getMessage(), e);
            } catch (IOException | AvroRuntimeException e) {
                throw new SerializationException("Cannot deserialize " + type.getSimpleName() + " from topic " + topic
                    + " (" + bytes.length + " bytes, schema " + id + "): " + e.getMessage(), e);
            } catch (RuntimeException e) {
                // a corrupt body can surface as any runtime error inside Avro's decoder
                throw new SerializationException("Corrupt " + type.getSimpleName() + " payload from topic " + topic
                    + " (" + bytes.length + " bytes, schema " + id + "): " + e, e);
            }
        };
        return Serdes.serdeFrom(serializer, deserializer);
    }

    private int register(final String topic, final Schema schema, final Class<?> type) {
        final String subject = valueSubject(topic);
        try {
            if (configuredSubjects.add(subject) && registry.subjectCompatibility(subject).isEmpty()) {
                registry.setSubjectCompatibility(subject, COMPATIBILITY);
            }
            return registry.register(subject, schema);
        } catch (SchemaRegistryException e) {
            configuredSubjects.remove(subject);
            throw new SerializationException("Cannot register the " + type.getSimpleName() + " schema under subject "
                + subject + ": " + e.getMessage(), e);
        }
    }
}
