package dev.engram.crypto;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

import dev.engram.avro.CommandKind;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.serde.AvroSerdes;
import dev.engram.streams.PipelineConfig;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The encryption seam: Serdes that seal a record with its user's data key ({@link DataKeys}) after the
 * inner (Avro) serializer and open it before the inner deserializer. The format of the inner bytes is
 * none of this class's business, so a registry format or a schema change composes with it.
 *
 * <p>What is sealed: every record that holds something a user said or that is derived from it
 * (MemoryCandidate, MemoryUpdated, Memory, ContradictionDetected, MemoryArchived, MemoryCommand,
 * UserProfile, and the extractor's pending conversations), on topics and in state stores alike (a
 * store's changelog is a topic too). What stays in clear: the erasure itself ({@code ERASE} commands and
 * {@code ERASED} events carry ids only, and a rebuild must re-learn the erasure ledger from them after the
 * key is gone), audit records and access events (ids only), and Kafka record keys ({@code tenant/user}).
 *
 * <p>With {@code crypto.enabled=false} (an explicit choice: the default is true) every method returns the plain Serde (topics: the configured
 * {@code serde.format}, {@code TopicSerdes}; stores: {@link AvroSerdes}), whose reader refuses a sealed record with a
 * {@link SerializationException} saying what to do ({@link SealedTopics}).
 * Reading a record whose key is erased throws {@link ErasedDataException} from a topic Serde (the
 * Streams handler {@code ErasedRecordsHandler} skips and counts it) and yields {@code null} from a store
 * Serde (an erased user's entries read as absent).
 */
public final class PersonalSerdes {

    private static final Map<String, DataKeys> RINGS = new ConcurrentHashMap<>();

    private PersonalSerdes() {
    }

    /**
     * The process's data key ring for a config: one per (bootstrap servers, KEK), started on first use.
     *
     * @param config the Engram config
     * @param dataKeysTopic the compacted topic of the wrapped data keys ({@code Topic.DATA_KEYS})
     * @return the ring, or empty when {@code crypto.enabled=false}
     * @throws org.apache.kafka.common.config.ConfigException if enabled without a usable KEK
     */
    public static Optional<DataKeys> keys(final EngramConfig config, final String dataKeysTopic) {
        if (!config.getBoolean(PipelineConfig.CRYPTO_ENABLED)) {
            return Optional.empty();
        }
        final String id = config.getString(CoreConfig.BOOTSTRAP_SERVERS) + "|" + fingerprint(config);
        return Optional.of(RINGS.computeIfAbsent(id,
            k -> new DataKeys(config.kafkaProperties(), dataKeysTopic, Kek.from(config))));
    }

    /** Closes every ring this process opened (tests and tools that outlive their broker). */
    public static void closeAll() {
        RINGS.values().forEach(DataKeys::close);
        RINGS.clear();
    }

    private static String fingerprint(final EngramConfig config) {
        final String file = config.getString(PipelineConfig.CRYPTO_KEK_FILE);
        final String material = file != null && !file.isBlank() ? "file:" + file
            : config.getPassword(PipelineConfig.CRYPTO_KEK) == null ? "" : config.getPassword(PipelineConfig.CRYPTO_KEK).value();
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(material.getBytes(StandardCharsets.UTF_8)), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The Serde of a personal record type on a topic: erased records raise {@link ErasedDataException}.
     *
     * @param plain the topic's plaintext Serde (in the configured {@code serde.format})
     * @param config the Engram config
     * @param dataKeysTopic the compacted topic of the wrapped data keys
     * @param <T> a generated record type with {@code tenantId} and {@code userId} fields
     * @return a sealing Serde, or {@code plain} when encryption is off
     */
    public static <T extends SpecificRecordBase> Serde<T> topic(final Serde<T> plain, final EngramConfig config,
                                                               final String dataKeysTopic) {
        return sealed(plain, config, dataKeysTopic, false);
    }

    /**
     * The Serde of a personal record type in a state store: erased entries read as {@code null}.
     *
     * @param type a generated record class with {@code tenantId} and {@code userId} fields
     * @param config the Engram config
     * @param dataKeysTopic the compacted topic of the wrapped data keys
     * @param <T> the record type
     * @return a sealing Serde, or the plain single-object one when encryption is off
     */
    public static <T extends SpecificRecordBase> Serde<T> store(final Class<T> type, final EngramConfig config,
                                                               final String dataKeysTopic) {
        // stores are always single-object encoded, whatever the topics' serde.format
        return sealed(AvroSerdes.serde(type), config, dataKeysTopic, true);
    }

    private static <T extends SpecificRecordBase> Serde<T> sealed(final Serde<T> plain, final EngramConfig config,
                                                                 final String dataKeysTopic, final boolean erasedAsNull) {
        return keys(config, dataKeysTopic).map(keys -> sealing(plain, PersonalSerdes::userKeyOf, PersonalSerdes::personal,
            keys, erasedAsNull)).orElseGet(() -> refusingSealed(plain));
    }

    /**
     * The plain Serde of {@code crypto.enabled=false}, whose reader refuses a sealed record with what to do
     * ({@link SealedTopics#message}) instead of Avro's "unrecognized header": on a topic the record is then
     * dead-lettered with that reason, as any undecodable input.
     */
    private static <T> Serde<T> refusingSealed(final Serde<T> plain) {
        final Deserializer<T> reader = plain.deserializer();
        return Serdes.serdeFrom(plain.serializer(), (topic, bytes) -> {
            if (DataKeys.sealed(bytes)) {
                throw new SerializationException(SealedTopics.message(topic, DataKeys.userKeyOf(bytes)));
            }
            return reader.deserialize(topic, bytes);
        });
    }

    /**
     * Wraps any Serde.
     *
     * @param inner the Serde of the plaintext
     * @param userKeyOf the user key of a record, or null to leave that record in clear
     * @param personal which records are sealed (the others are written by {@code inner} alone)
     * @param keys the data keys
     * @param erasedAsNull true to read an erased record as {@code null} (stores), false to throw (topics)
     * @param <T> the record type
     * @return the sealing Serde
     */
    public static <T> Serde<T> sealing(final Serde<T> inner, final Function<T, String> userKeyOf,
                                       final Predicate<T> personal, final DataKeys keys, final boolean erasedAsNull) {
        final Serializer<T> plainWriter = inner.serializer();
        final Deserializer<T> plainReader = inner.deserializer();
        final Serializer<T> writer = (topic, record) -> {
            final byte[] plain = plainWriter.serialize(topic, record);
            if (record == null || plain == null || !personal.test(record)) {
                return plain;
            }
            final String user = userKeyOf.apply(record);
            return user == null ? plain : keys.seal(user, plain);
        };
        final Deserializer<T> reader = (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            try {
                return plainReader.deserialize(topic, keys.open(bytes));
            } catch (ErasedDataException e) {
                if (erasedAsNull) {
                    return null;
                }
                throw e;
            }
        };
        return Serdes.serdeFrom(writer, reader);
    }

    /**
     * @param record a generated record with {@code tenantId} and {@code userId}
     * @return its user key in wire form
     */
    static String userKeyOf(final SpecificRecordBase record) {
        final Object tenant = record.get("tenantId");
        final Object user = record.get("userId");
        return tenant == null || user == null ? null : new UserKey(tenant.toString(), user.toString()).wire();
    }

    /** The erasure itself stays readable after the key is gone: the ledger of a rebuild is learnt from it. */
    static boolean personal(final SpecificRecordBase record) {
        if (record instanceof MemoryCommand command) {
            return command.getKind() != CommandKind.ERASE;
        }
        if (record instanceof MemoryUpdated updated) {
            return updated.getOperation() != UpdateOperation.ERASED;
        }
        return true;
    }
}
