package dev.engram.crypto;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.google.crypto.tink.Aead;
import com.google.crypto.tink.DeterministicAead;
import com.google.crypto.tink.KeysetHandle;
import com.google.crypto.tink.RegistryConfiguration;
import com.google.crypto.tink.TinkProtoKeysetFormat;
import com.google.crypto.tink.daead.DeterministicAeadConfig;
import com.google.crypto.tink.daead.PredefinedDeterministicAeadParameters;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The users' data keys, kept on the compacted topic {@code engram-data-keys}, and the envelope that
 * seals a record with them (envelope encryption, "crypto-shredding").
 *
 * <p><b>Keys.</b> One Tink keyset per user key ({@code tenant/user}) with one AES-256-SIV key (RFC 5297,
 * deterministic AEAD: the same plaintext under the same key and associated data gives the same
 * ciphertext, so replays and rebuilds write byte-identical records without nonce bookkeeping). The
 * keyset is stored on the topic encrypted with the key-encryption key ({@link Kek}, AES-256-GCM) and the
 * user key as associated data, so a wrapped key cannot be moved to another user. The KEK is never
 * written anywhere. Each record of the key topic carries the id of the key it wraps in the header
 * {@value #KEY_ID_HEADER}, in clear (no secret: every envelope carries it too), for tools without the KEK
 * ({@code verify-erasure}). A user's key is created on the first record written about them and tombstoned by
 * the consolidator when it erases them; every record sealed with it becomes unreadable everywhere, in
 * backups and mirrors of the topics too.
 *
 * <p><b>One key per user, whoever creates it.</b> Each process reads the whole topic ({@code
 * read_committed}) on a background thread ({@link dev.engram.kafka.TopicFollower}). A process that needs a key it has
 * not seen writes a proposal and waits until its reader has passed the proposal's offset; the first value
 * after the user's last tombstone wins (all of a user's proposals are on one partition, so every reader
 * agrees), and a process whose proposal lost writes the winner again, so the latest value (the one
 * compaction keeps) is the winner.
 *
 * <p><b>Envelope</b> (the bytes of a sealed record): {@code E5 01}, the user key's UTF-8 length as an
 * unsigned 16-bit big-endian integer, the user key, then Tink's ciphertext (a 5-byte prefix: {@code 01}
 * and the 4-byte key id, then the 16-byte SIV and the ciphertext); associated data = the user key. The
 * user key is in clear, as it already is in every record's Kafka key. Bytes that do not start with the
 * marker are returned as they are, so records written before encryption was turned on still read.
 *
 * <p>Thread-safe. Errors: {@link ErasedDataException} when a record's key is gone (erased user, or a
 * key from before an erasure); {@link SerializationException} when a key is present but the record does
 * not authenticate, or the topic cannot be reached within {@value #TIMEOUT_MS} ms.
 */
public final class DataKeys implements AutoCloseable {

    /** First envelope byte; no Avro single-object encoding (C3 01) or JSON starts with it. */
    public static final byte MAGIC = (byte) 0xE5;
    /** Envelope version. */
    public static final byte VERSION = 1;
    /** Header of a key topic record: the id of the key it wraps, in clear ({@link #keyIdOf(Headers)}). */
    public static final String KEY_ID_HEADER = "engram.data.key.id";
    /** How long a lookup waits for the key topic (ms). */
    public static final long TIMEOUT_MS = 30_000;
    private static final java.time.Duration WAIT = java.time.Duration.ofMillis(TIMEOUT_MS);

    private static final Logger LOG = LoggerFactory.getLogger(DataKeys.class);
    private static final int TINK_PREFIX = 5;

    /** A user's live key. */
    private record Live(int keyId, DeterministicAead aead, byte[] wrapped) {
    }

    private final String topic;
    private final Aead kek;
    private final KafkaProducer<String, byte[]> producer;
    private final Map<String, Live> live = new ConcurrentHashMap<>();
    /** User key → key ids known to be gone (read a tombstone after them, or absent at a checked end offset). */
    private final Map<String, Set<Integer>> gone = new ConcurrentHashMap<>();
    /** Users whose current key this process cannot unwrap (another KEK): never replaced by a key of its own. */
    private final Set<String> unusable = ConcurrentHashMap.newKeySet();
    private final dev.engram.kafka.TopicFollower follower;

    static {
        try {
            DeterministicAeadConfig.register();
        } catch (GeneralSecurityException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Connects and starts reading the key topic from its beginning.
     *
     * @param kafka Kafka client settings (at least {@code bootstrap.servers})
     * @param topic the compacted key topic, normally {@code engram-data-keys}
     * @param kek the key-encryption key
     */
    public DataKeys(final Map<String, Object> kafka, final String topic, final Aead kek) {
        this.topic = topic;
        this.kek = kek;
        final Map<String, Object> common = dev.engram.config.KafkaConnection.of(kafka);
        final Map<String, Object> producerProps = new HashMap<>(common);
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        producer = new KafkaProducer<>(producerProps, new StringSerializer(), new ByteArraySerializer());
        follower = new dev.engram.kafka.TopicFollower(common, topic, "engram-data-keys-reader", this::apply,
            SerializationException::new);
    }


    /**
     * Seals a record of one user, creating the user's key on first use.
     *
     * @param userKey the record's user key ({@code tenant/user})
     * @param plaintext the serialized record
     * @return the envelope bytes
     * @throws SerializationException if no key can be had within {@value #TIMEOUT_MS} ms
     */
    public byte[] seal(final String userKey, final byte[] plaintext) {
        final Live key = liveOrCreate(userKey);
        final byte[] user = userKey.getBytes(StandardCharsets.UTF_8);
        final byte[] ciphertext;
        try {
            ciphertext = key.aead().encryptDeterministically(plaintext, user);
        } catch (GeneralSecurityException e) {
            throw new SerializationException("Cannot encrypt a record of " + userKey + ": " + e.getMessage(), e);
        }
        return ByteBuffer.allocate(4 + user.length + ciphertext.length).put(MAGIC).put(VERSION)
            .putShort((short) user.length).put(user).put(ciphertext).array();
    }

    /**
     * @param bytes a value as read from a topic or a store
     * @return whether it is a sealed envelope
     */
    public static boolean sealed(final byte[] bytes) {
        return bytes != null && bytes.length > 4 && bytes[0] == MAGIC && bytes[1] == VERSION;
    }

    /**
     * @param envelope sealed bytes
     * @return the user key written in the envelope
     * @throws SerializationException if the envelope is malformed
     */
    public static String userKeyOf(final byte[] envelope) {
        final int length = ((envelope[2] & 0xff) << 8) | (envelope[3] & 0xff);
        if (4 + length + TINK_PREFIX > envelope.length) {
            throw new SerializationException("Truncated envelope (" + envelope.length + " bytes)");
        }
        return new String(envelope, 4, length, StandardCharsets.UTF_8);
    }

    /**
     * @param envelope sealed bytes ({@link #sealed})
     * @return the id of the data key the record was sealed with (Tink's key id, in clear after the user key)
     * @throws SerializationException if the envelope is malformed
     */
    public static int keyIdOf(final byte[] envelope) {
        final int offset = 4 + userKeyOf(envelope).getBytes(StandardCharsets.UTF_8).length;
        return ByteBuffer.wrap(envelope, offset + 1, 4).getInt();
    }

    /**
     * The id of the data key a value of the key topic wraps, read without the key-encryption key: every key this class
     * writes carries it in clear in the header {@value #KEY_ID_HEADER} (4 bytes, big-endian), as every record sealed
     * with it does in its envelope ({@link #keyIdOf}), so a tool without the KEK can tell a record sealed with a
     * user's live key from one sealed with a key erased before it (Tink's own writer leaves the key ids out).
     *
     * @param headers the headers of a key topic record
     * @return the key id, or empty for a key written before the header was
     */
    public static OptionalInt keyIdOf(final Headers headers) {
        final Header header = headers.lastHeader(KEY_ID_HEADER);
        return header == null || header.value() == null || header.value().length != 4 ? OptionalInt.empty()
            : OptionalInt.of(ByteBuffer.wrap(header.value()).getInt());
    }

    /**
     * Opens a record.
     *
     * @param bytes sealed bytes, or plaintext written before encryption was on (returned as is)
     * @return the serialized record
     * @throws ErasedDataException if the record's key is gone
     * @throws SerializationException if the key is present but the record does not authenticate
     */
    public byte[] open(final byte[] bytes) {
        if (!sealed(bytes)) {
            return bytes;
        }
        final String userKey = userKeyOf(bytes);
        final int offset = 4 + userKey.getBytes(StandardCharsets.UTF_8).length;
        final int keyId = keyIdOf(bytes);
        final Live key = liveFor(userKey, keyId);
        final byte[] ciphertext = java.util.Arrays.copyOfRange(bytes, offset, bytes.length);
        try {
            return key.aead().decryptDeterministically(ciphertext, userKey.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new SerializationException("A record of " + userKey + " does not authenticate under its data key "
                + Integer.toUnsignedString(keyId, 16) + " (corrupt or forged)", e);
        }
    }

    /**
     * @param userKey a user key
     * @return whether this process holds a live data key for the user, after catching up with the topic
     */
    public boolean hasKey(final String userKey) {
        follower.awaitEnd(WAIT);
        return live.containsKey(userKey);
    }

    /** @return the key topic's name */
    public String topic() {
        return topic;
    }

    private Live liveFor(final String userKey, final int keyId) {
        Live key = live.get(userKey);
        if (key != null && key.keyId() == keyId) {
            return key;
        }
        if (gone.getOrDefault(userKey, Set.of()).contains(keyId)) {
            throw new ErasedDataException(userKey);
        }
        // Not seen (yet): another process may have just created it, or this reader may lag a re-creation.
        follower.awaitEnd(WAIT);
        key = live.get(userKey);
        if (key != null && key.keyId() == keyId) {
            return key;
        }
        gone.computeIfAbsent(userKey, k -> ConcurrentHashMap.newKeySet()).add(keyId);
        throw new ErasedDataException(userKey);
    }

    private Live liveOrCreate(final String userKey) {
        final Live known = live.get(userKey);
        if (known != null) {
            return known;
        }
        synchronized (this) {
            follower.awaitEnd(WAIT);
            final Live current = live.get(userKey);
            if (current != null) {
                return current;
            }
            refuseUnusable(userKey);
            final byte[] proposal;
            final int proposalId;
            try {
                final KeysetHandle handle = KeysetHandle.generateNew(PredefinedDeterministicAeadParameters.AES256_SIV);
                proposalId = handle.getPrimary().getId();
                proposal = TinkProtoKeysetFormat.serializeEncryptedKeyset(handle, kek,
                    userKey.getBytes(StandardCharsets.UTF_8));
            } catch (GeneralSecurityException e) {
                throw new SerializationException("Cannot create a data key: " + e.getMessage(), e);
            }
            final RecordMetadata written = send(userKey, proposal, proposalId);
            follower.awaitPosition(written.partition(), written.offset() + 1, WAIT);
            refuseUnusable(userKey);
            final Live winner = live.get(userKey);
            if (winner == null) {
                throw new SerializationException("The data key of " + userKey + " was erased while being created");
            }
            if (!java.util.Arrays.equals(winner.wrapped(), proposal)) {
                // Another process created the user's key first: write the winner again so that the value
                // compaction keeps is the one every record is sealed with.
                send(userKey, winner.wrapped(), winner.keyId());
            }
            return winner;
        }
    }

    private void refuseUnusable(final String userKey) {
        if (unusable.contains(userKey)) {
            throw new SerializationException("The data key of " + userKey + " on " + topic + " is wrapped by another "
                + "key-encryption key: check crypto.kek / crypto.kek.file (this process never creates a second key)");
        }
    }

    private RecordMetadata send(final String userKey, final byte[] value, final int keyId) {
        final ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, userKey, value);
        record.headers().add(KEY_ID_HEADER, ByteBuffer.allocate(4).putInt(keyId).array());
        try {
            return producer.send(record).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SerializationException("Interrupted while writing a data key", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new SerializationException("Cannot write a data key to " + topic + ": " + e.getMessage(), e);
        }
    }

    private void apply(final String userKey, final byte[] wrapped) {
        if (userKey == null) {
            return;
        }
        if (wrapped == null) {
            unusable.remove(userKey);
            final Live erased = live.remove(userKey);
            if (erased != null) {
                gone.computeIfAbsent(userKey, k -> ConcurrentHashMap.newKeySet()).add(erased.keyId());
            }
            return;
        }
        if (live.containsKey(userKey) || unusable.contains(userKey)) {
            return; // a later proposal (lost a race) or the winner written again
        }
        try {
            final KeysetHandle handle = TinkProtoKeysetFormat.parseEncryptedKeyset(wrapped, kek,
                userKey.getBytes(StandardCharsets.UTF_8));
            live.put(userKey, new Live(handle.getPrimary().getId(),
                handle.getPrimitive(RegistryConfiguration.get(), DeterministicAead.class), wrapped));
        } catch (GeneralSecurityException e) {
            // Wrapped by another KEK (a misconfigured instance) or damaged: never use it, never log it.
            unusable.add(userKey);
            LOG.error("A data key on {} cannot be unwrapped with this key-encryption key ({}); check crypto.kek",
                topic, e.getClass().getSimpleName());
        }
    }

    /**
     * @return the user keys this process holds live data keys for (for verification tools)
     */
    public Set<String> users() {
        follower.awaitEnd(WAIT);
        return Set.copyOf(live.keySet());
    }

    /**
     * @param userKey a user key
     * @return the live key id of the user, if any (after catching up with the topic)
     */
    public Optional<Integer> keyId(final String userKey) {
        follower.awaitEnd(WAIT);
        return Optional.ofNullable(live.get(userKey)).map(Live::keyId);
    }

    @Override
    public void close() {
        follower.close();
        producer.close(Duration.ofSeconds(5));
    }
}
