package dev.engram.serde;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.SchemaStore;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.avro.util.ClassSecurityValidator;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The one factory for the Serdes of Engram's Avro records.
 *
 * <p>Values are written with Avro <em>single-object encoding</em>: a 2-byte marker {@code C3 01},
 * the 8-byte CRC-64-AVRO fingerprint of the writer schema, then the Avro binary body (see the Avro
 * specification, "Single object encoding"). No schema registry is needed: a reader resolves a writer
 * schema by its fingerprint among the current schema and the historical schemas shipped under
 * {@code avro-history/} on the classpath (listed in {@code avro-history/index.txt}), so records
 * written by an older release still decode after a compatible schema change.
 *
 * <p>Errors: a payload that is not single-object encoded, whose writer schema is unknown, or whose
 * body is truncated or corrupt raises a {@link SerializationException}; it never yields a silent
 * {@code null}. A {@code null} payload (a tombstone) deserializes to {@code null}.
 *
 * <p>Serdes are immutable and thread-safe; one instance per record class is cached.
 */
public final class AvroSerdes {

    /** Package of the generated records; trusted by Avro's class allow-list (CVE-2024-47561). */
    public static final String RECORD_PACKAGE = "dev.engram.avro";

    private static final String HISTORY_INDEX = "avro-history/index.txt";
    private static final AtomicBoolean TRUSTED = new AtomicBoolean();
    private static final Map<Class<?>, Serde<?>> CACHE = new ConcurrentHashMap<>();
    private static final SchemaStore.Cache HISTORY = loadHistory();

    /** Single-object encoding: marker C3 01, then the writer schema's 8-byte fingerprint, little-endian. */
    private static final byte MARKER_0 = (byte) 0xC3;
    private static final byte MARKER_1 = (byte) 0x01;
    private static final int HEADER_BYTES = 10;

    private AvroSerdes() {
    }

    /** The writer schema fingerprint of a single-object encoded payload of at least {@value #HEADER_BYTES} bytes. */
    private static long fingerprint(final byte[] bytes) {
        long value = 0;
        for (int i = HEADER_BYTES - 1; i >= 2; i--) {
            value = value << 8 | bytes[i] & 0xFFL;
        }
        return value;
    }

    /**
     * Returns the Serde of one generated record class.
     *
     * @param type a class generated from {@code schemas/src/main/avro}
     * @param <T> the record type
     * @return a cached, thread-safe Serde writing single-object encoded bytes
     */
    @SuppressWarnings("unchecked")
    public static <T extends SpecificRecordBase> Serde<T> serde(final Class<T> type) {
        trustGeneratedRecords();
        return (Serde<T>) CACHE.computeIfAbsent(type, AvroSerdes::create);
    }

    /**
     * Extends Avro's global class allow-list with {@link #RECORD_PACKAGE}. Avro 1.12.2 refuses to
     * instantiate generated classes from untrusted packages ({@code SecurityException: Forbidden}).
     * Idempotent; keeps whatever was trusted before.
     */
    public static void trustGeneratedRecords() {
        if (!TRUSTED.compareAndSet(false, true)) {
            return;
        }
        final ClassSecurityValidator.ClassSecurityPredicate previous = ClassSecurityValidator.getGlobal();
        ClassSecurityValidator.setGlobal(clazz -> previous.isTrusted(clazz)
            || (clazz.getPackage() != null && RECORD_PACKAGE.equals(clazz.getPackage().getName())));
    }

    private static <T extends SpecificRecordBase> Serde<T> create(final Class<?> rawType) {
        @SuppressWarnings("unchecked")
        final Class<T> type = (Class<T>) rawType;
        // The generated class's own model (MODEL$) carries its logical-type conversions; a fresh
        // SpecificData does not, and then a nullable timestamp (union with Instant) cannot be written.
        final SpecificData model = SpecificData.getForClass(type);
        final Schema schema = model.getSchema(type);
        final BinaryMessageDecoder<T> decoder = new BinaryMessageDecoder<>(model, schema, HISTORY);
        // Records of the current schema (nearly all) are read straight from the array with Avro's buffered
        // decoder: BinaryMessageDecoder reads the body through a ByteArrayInputStream with Avro's direct decoder,
        // a synchronized read() per value, which was the consolidator's largest decode cost (JFR, bench ingest:
        // each memory carries 384 floats). Other writer schemas go through BinaryMessageDecoder's resolution.
        final long currentFingerprint = SchemaNormalization.parsingFingerprint64(schema);
        final SpecificDatumReader<T> currentReader = new SpecificDatumReader<>(schema, schema, model);
        // Written the same way round: the header, then the body through Avro's buffered encoder into a per-thread
        // array. BinaryMessageEncoder writes the body with Avro's direct encoder, a synchronized
        // ByteArrayOutputStream.write per value (384 per embedding), then copies the bytes twice; JFR of bench
        // retrieval put it at the top of the consolidator's and the retriever's samples. Same bytes.
        final byte[] header = header(currentFingerprint);
        final SpecificDatumWriter<T> writer = new SpecificDatumWriter<>(schema, model);
        final ThreadLocal<Output> outputs = ThreadLocal.withInitial(Output::new);
        final Serializer<T> serializer = (topic, record) -> {
            if (record == null) {
                return null;
            }
            final Output output = outputs.get();
            try {
                output.bytes.reset();
                output.bytes.write(header, 0, header.length);
                output.encoder = EncoderFactory.get().binaryEncoder(output.bytes, output.encoder);
                writer.write(record, output.encoder);
                output.encoder.flush();
                final byte[] bytes = output.bytes.toByteArray();
                if (bytes.length > Output.KEEP_BYTES) {
                    outputs.remove(); // do not hold a rare large record's buffer for the thread's life
                }
                return bytes;
            } catch (IOException | RuntimeException e) {
                throw new SerializationException("Cannot serialize " + type.getSimpleName()
                    + " for topic " + topic + ": " + e.getMessage(), e);
            }
        };
        final Deserializer<T> deserializer = (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            try {
                if (bytes.length >= HEADER_BYTES && bytes[0] == MARKER_0 && bytes[1] == MARKER_1
                    && fingerprint(bytes) == currentFingerprint) {
                    final BinaryDecoder body = DecoderFactory.get().binaryDecoder(bytes, HEADER_BYTES,
                        bytes.length - HEADER_BYTES, null);
                    return currentReader.read(null, body);
                }
                return decoder.decode(bytes);
            } catch (IOException | AvroRuntimeException e) {
                throw new SerializationException("Cannot deserialize " + type.getSimpleName()
                    + " from topic " + topic + " (" + bytes.length + " bytes): " + e.getMessage(), e);
            } catch (RuntimeException e) {
                // A corrupt body can surface as any runtime error inside Avro's decoder
                // (negative lengths, index out of bounds): never let it pass as a valid record.
                throw new SerializationException("Corrupt " + type.getSimpleName()
                    + " payload from topic " + topic + " (" + bytes.length + " bytes): " + e, e);
            }
        };
        return Serdes.serdeFrom(serializer, deserializer);
    }

    /**
     * @param fingerprint the writer schema's CRC-64-AVRO fingerprint
     * @return the single-object header: marker C3 01, then the fingerprint little-endian
     */
    static byte[] header(final long fingerprint) {
        final byte[] header = new byte[HEADER_BYTES];
        header[0] = MARKER_0;
        header[1] = MARKER_1;
        for (int i = 0; i < 8; i++) {
            header[2 + i] = (byte) (fingerprint >>> (8 * i));
        }
        return header;
    }

    /** One thread's serialization buffer and reusable encoder. */
    private static final class Output {
        static final int KEEP_BYTES = 1 << 20;
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(4096);
        BinaryEncoder encoder;
    }

    /** Historical writer schemas, registered once so older records still decode. */
    private static SchemaStore.Cache loadHistory() {
        final SchemaStore.Cache cache = new SchemaStore.Cache();
        for (final Schema schema : historicalSchemas()) {
            cache.addSchema(schema);
        }
        return cache;
    }

    /**
     * Reads the historical writer schemas shipped with this module.
     *
     * @return the schemas listed in {@code avro-history/index.txt}, oldest first
     * @throws UncheckedIOException if a listed file cannot be read
     */
    public static List<Schema> historicalSchemas() {
        final List<Schema> schemas = new ArrayList<>();
        final ClassLoader loader = AvroSerdes.class.getClassLoader();
        try (InputStream index = loader.getResourceAsStream(HISTORY_INDEX)) {
            if (index == null) {
                return schemas;
            }
            for (final String line : new String(index.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                final String name = line.strip();
                if (name.isEmpty() || name.startsWith("#")) {
                    continue;
                }
                try (InputStream in = loader.getResourceAsStream("avro-history/" + name)) {
                    if (in == null) {
                        throw new UncheckedIOException(new IOException("Missing historical schema avro-history/" + name));
                    }
                    schemas.add(new Schema.Parser().parse(in));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return schemas;
    }
}
