package dev.engram.ops;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;

import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemoryUpdated;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.crypto.DataKeys;
import dev.engram.crypto.ErasedDataException;
import dev.engram.crypto.Kek;
import dev.engram.port.VectorIndex;
import dev.engram.qdrant.QdrantConfig;
import dev.engram.qdrant.QdrantVectorIndex;
import dev.engram.qdrant.VectorIndexes;
import dev.engram.serde.AvroSerdes;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.AppIds;
import dev.engram.topics.Topic;
import dev.engram.topology.StoreNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Checks every place Engram keeps something about one user and reports what it finds:
 * <ul>
 *   <li><b>stores</b>: the latest value of each of the user's keys on every store changelog (what a
 *       restored store would hold: consolidator memories and profile, retriever read model, history and
 *       profile, extractor profile table); an entry counts when it is present and readable;</li>
 *   <li><b>profile topic</b>: the latest {@code user-profiles} record of the user (a tombstone is clean);</li>
 *   <li><b>history</b>: readable {@code memory-updated} records of the user other than the ERASED event;</li>
 *   <li><b>other topics</b>: readable records keyed by the user on every other Engram topic (candidates,
 *       contradictions, archives, commands other than ERASE; access and audit records hold ids only and are
 *       listed as kept by design);</li>
 *   <li><b>vector index</b>: with Qdrant, the user's points (any status); embedded, the index is the
 *       consolidator's memories store above;</li>
 *   <li><b>data key</b>: whether {@code engram-data-keys} holds a live key for the user.</li>
 * </ul>
 * "Readable" = plaintext, or sealed with a key that still exists: opened with the key-encryption key when it is
 * given, and without it judged by key id (a sealed record is readable exactly when the data key it names is the
 * user's live one on {@code engram-data-keys}; a record sealed with a key erased before the user got a new one is
 * not). {@code conversations-completed} (the
 * chat platform's topic) is reported separately: Engram does not own it.
 */
public final class ErasureCheck {

    /** One place and what it holds of the user. */
    public record Place(String name, long found, boolean byDesign, String detail) {
        /** @return whether the place holds nothing readable of the user (or only ids, by design) */
        public boolean clean() {
            return found == 0 || byDesign;
        }
    }

    private ErasureCheck() {
    }

    /**
     * @param config the deployment's config ({@code crypto.*}, {@code vector.index}, {@code qdrant.*})
     * @param user the user
     * @param timeout how long reading the topics may take
     * @return every place, in report order
     */
    public static List<Place> run(final EngramConfig config, final UserKey user, final Duration timeout) {
        final Map<String, Object> client = Map.of("bootstrap.servers", config.getString(CoreConfig.BOOTSTRAP_SERVERS));
        final boolean crypto = config.getBoolean(PipelineConfig.CRYPTO_ENABLED);
        // Without the key-encryption key (e.g. verify-erasure run against the default demo) a sealed record of the
        // user is readable exactly while the data key it was sealed with is live on the data keys topic: the key ids
        // of the record's envelope and of the key topic's record (in clear, DataKeys#keyIdOf) are compared instead.
        final boolean withKek = crypto && kekGiven(config);
        final Set<String> topics = new TreeSet<>();
        try (Admin admin = Admin.create(client)) {
            topics.addAll(admin.listTopics().names().get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while listing topics", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("Cannot list topics: " + e.getCause().getMessage(), e.getCause());
        }
        final List<Place> places = new ArrayList<>();
        try (DataKeys ring = withKek ? new DataKeys(client, Topic.DATA_KEYS.name(), Kek.from(config)) : null) {
            // read with crypto.enabled=false too: records sealed before it was turned off are still readable with the KEK
            final LiveKey onTopic = withKek || !topics.contains(Topic.DATA_KEYS.name()) ? LiveKey.NONE
                : liveKeyOnTopic(client, user, timeout);
            final boolean liveKey = withKek ? ring.hasKey(user.wire()) : onTopic.live();
            final Opener keys = new Opener(ring, onTopic);
            final Map<String, String> changelogs = new LinkedHashMap<>();
            changelogs.put("consolidator memories store", changelog(AppIds.CONSOLIDATOR, StoreNames.MEMORIES));
            changelogs.put("consolidator profile store", changelog(AppIds.CONSOLIDATOR, StoreNames.PROFILES));
            changelogs.put("consolidator access store", changelog(AppIds.CONSOLIDATOR, StoreNames.ACCESS));
            changelogs.put("retriever memories store", changelog(AppIds.RETRIEVER, StoreNames.RETRIEVER_MEMORIES));
            changelogs.put("retriever history store", changelog(AppIds.RETRIEVER, StoreNames.RETRIEVER_HISTORY));
            changelogs.put("retriever profile store", changelog(AppIds.RETRIEVER, StoreNames.RETRIEVER_PROFILES));
            changelogs.put("retriever access store", changelog(AppIds.RETRIEVER, StoreNames.RETRIEVER_ACCESS));
            changelogs.put("extractor profile store", changelog(AppIds.EXTRACTOR, StoreNames.EXTRACTOR_PROFILES));
            changelogs.put("extractor pending conversations", changelog(AppIds.EXTRACTOR, "extraction-pending-store"));
            for (final Map.Entry<String, String> e : changelogs.entrySet()) {
                if (topics.contains(e.getValue())) {
                    places.add(latestPerKey(e.getKey(), e.getValue(), client, user, keys, timeout,
                        !e.getValue().contains("extraction-pending")));
                } else {
                    places.add(new Place(e.getKey(), 0, false, e.getValue() + " does not exist"));
                }
            }
            places.add(latestPerKey("profile topic", Topic.USER_PROFILES.name(), client, user, keys, timeout, true));
            places.add(records("history (memory-updated)", Topic.MEMORY_UPDATED.name(), client, user, keys, timeout, false));
            for (final String topic : List.of(Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_CONTRADICTIONS.name(),
                Topic.MEMORY_ARCHIVED.name(), Topic.MEMORY_COMMANDS.name(), Topic.deadLetters(AppIds.CONSOLIDATOR).name())) {
                places.add(records(topic, topic, client, user, keys, timeout, false));
            }
            for (final String topic : List.of(Topic.MEMORY_ACCESS.name(), Topic.MEMORY_AUDIT.name())) {
                places.add(records(topic, topic, client, user, keys, timeout, true));
            }
            places.add(vectorIndex(config, user));
            places.add(crypto || liveKey ? new Place("data key (" + Topic.DATA_KEYS.name() + ")", liveKey ? 1 : 0, false,
                !liveKey ? "none (tombstoned or never created)" : ring == null ? "live key " + onTopic.describe()
                    + " (no key-encryption key given: a sealed record counts as readable when sealed with this key)"
                    : "live key " + Integer.toUnsignedString(ring.keyId(user.wire()).orElse(0), 16))
                : new Place("data key", 0, false, "crypto.enabled=false: no data keys; topics keep plaintext until retention"));
            final Place platform = records("conversations-completed (the chat platform's)", Topic.CONVERSATIONS_COMPLETED.name(),
                client, user, new Opener(null, LiveKey.NONE), timeout, true);
            places.add(new Place(platform.name(), platform.found(), true,
                platform.found() + " records keyed by the user; set its retention or seal it with the platform's own keys"));
        }
        return places;
    }

    private static String changelog(final String app, final String store) {
        return app + "-" + store + "-changelog";
    }

    private static boolean ofUser(final byte[] key, final UserKey user) {
        if (key == null) {
            return false;
        }
        final String k = new String(key, StandardCharsets.UTF_8);
        return k.equals(user.wire()) || k.startsWith(user.storePrefix());
    }

    /** Folds a compacted-style topic to the latest value per key and counts the user's readable ones. */
    private static Place latestPerKey(final String name, final String topic, final Map<String, Object> client,
                                      final UserKey user, final Opener keys, final Duration timeout,
                                      final boolean keyedByUser) {
        final Map<String, byte[]> latest = new HashMap<>();
        read(topic, client, timeout, r -> {
            final String key = r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8);
            if (keyedByUser ? ofUser(r.key(), user) : sealedFor(r.value(), user)) {
                latest.put(key, r.value());
            } else if (!keyedByUser && r.value() == null) {
                latest.remove(key);
            }
        });
        long readable = 0;
        long unreadable = 0;
        long removed = 0;
        for (final byte[] value : latest.values()) {
            if (value == null) {
                removed++;
                continue;
            }
            if (readable(value, keys)) {
                readable++;
            } else {
                unreadable++;
            }
        }
        return new Place(name, readable, false, readable + " readable entries" + (unreadable > 0
            ? ", " + unreadable + " sealed with an erased key (unreadable)" : "")
            + (removed > 0 ? ", " + removed + " removed (tombstoned)" : "") + " on " + topic);
    }

    private static boolean sealedFor(final byte[] value, final UserKey user) {
        return DataKeys.sealed(value) && DataKeys.userKeyOf(value).equals(user.wire());
    }

    /** Counts the user's readable records of an append-only topic. */
    private static Place records(final String name, final String topic, final Map<String, Object> client,
                                 final UserKey user, final Opener keys, final Duration timeout, final boolean byDesign) {
        final long[] counts = new long[3];
        read(topic, client, timeout, r -> {
            if (!ofUser(r.key(), user) || r.value() == null) {
                return;
            }
            if (!readable(r.value(), keys)) {
                counts[1]++;
            } else if (erasureItself(topic, r.value(), keys)) {
                counts[2]++;
            } else {
                counts[0]++;
            }
        });
        return new Place(name, counts[0], byDesign, counts[0] + " readable records" + (byDesign ? " (ids only, kept)" : "")
            + (counts[1] > 0 ? ", " + counts[1] + " sealed with an erased key (unreadable)" : "")
            + (counts[2] > 0 ? ", " + counts[2] + " erasure records (ids only, kept for the ledger)" : ""));
    }

    /**
     * The user's data key as the key topic holds it, read without the key-encryption key: the first wrapped key after
     * the user's last tombstone (the one every process uses, {@link DataKeys}), and its key id when it can be read.
     *
     * @param live whether the user has a live data key
     * @param keyId its key id; empty when none is live or the key was written without its id (an older release)
     */
    private record LiveKey(boolean live, OptionalInt keyId) {
        static final LiveKey NONE = new LiveKey(false, OptionalInt.empty());

        /** @return whether a record sealed for the user with the data key {@code sealedWith} is readable */
        boolean opens(final int sealedWith) {
            // a live key written without its id: every sealed record counts as readable, the cautious answer
            return live && (keyId.isEmpty() || keyId.getAsInt() == sealedWith);
        }

        String describe() {
            return keyId.isPresent() ? Integer.toUnsignedString(keyId.getAsInt(), 16) : "(id not recorded: an older key)";
        }
    }

    /**
     * Opens the user's sealed records: with the ring (the key-encryption key given), or, without it, by whether the
     * data key a record was sealed with is the user's live one (a sealed record is readable by whoever holds the KEK
     * exactly while its data key lives; one sealed with a key erased before the user's current key is not).
     */
    private record Opener(DataKeys ring, LiveKey onTopic) {
        /** @return the plaintext of a record; the record itself when it is not sealed or cannot be opened here */
        byte[] plain(final byte[] value) {
            return ring == null || !DataKeys.sealed(value) ? value : ring.open(value);
        }
    }

    private static boolean readable(final byte[] value, final Opener keys) {
        if (!DataKeys.sealed(value)) {
            return true;
        }
        if (keys.ring() == null) {
            try {
                return keys.onTopic().opens(DataKeys.keyIdOf(value));
            } catch (org.apache.kafka.common.errors.SerializationException truncated) {
                return false; // no key opens a malformed envelope
            }
        }
        try {
            keys.ring().open(value);
            return true;
        } catch (ErasedDataException e) {
            return false;
        }
    }

    /** @return whether {@code crypto.kek} or {@code crypto.kek.file} is set */
    private static boolean kekGiven(final EngramConfig config) {
        final String file = config.getString(PipelineConfig.CRYPTO_KEK_FILE);
        final org.apache.kafka.common.config.types.Password kek = config.getPassword(PipelineConfig.CRYPTO_KEK);
        return file != null && !file.isBlank() || kek != null && !kek.value().isBlank();
    }

    /** @return the user's live data key on the data keys topic: the first value after the user's last tombstone */
    private static LiveKey liveKeyOnTopic(final Map<String, Object> client, final UserKey user, final Duration timeout) {
        final LiveKey[] key = {LiveKey.NONE};
        read(Topic.DATA_KEYS.name(), client, timeout, r -> {
            if (r.key() != null && user.wire().equals(new String(r.key(), StandardCharsets.UTF_8))) {
                if (r.value() == null) {
                    key[0] = LiveKey.NONE;
                } else if (!key[0].live()) {
                    // a later value is a proposal that lost or the winner written again (DataKeys): the first wins
                    key[0] = new LiveKey(true, DataKeys.keyIdOf(r.headers()));
                }
            }
        });
        return key[0];
    }

    /** ERASE commands and ERASED events stay in clear by design: the ledger of a rebuild. */
    private static boolean erasureItself(final String topic, final byte[] value, final Opener keys) {
        try {
            final byte[] plain = keys.plain(value);
            if (Topic.MEMORY_COMMANDS.name().equals(topic)) {
                return AvroSerdes.serde(MemoryCommand.class).deserializer().deserialize(topic, plain).getKind()
                    == dev.engram.avro.CommandKind.ERASE;
            }
            if (Topic.MEMORY_UPDATED.name().equals(topic)) {
                return AvroSerdes.serde(MemoryUpdated.class).deserializer().deserialize(topic, plain).getOperation()
                    == dev.engram.avro.UpdateOperation.ERASED;
            }
        } catch (RuntimeException e) {
            return false;
        }
        return false;
    }

    private static Place vectorIndex(final EngramConfig config, final UserKey user) {
        if (!VectorIndexes.isQdrant(config)) {
            return new Place("vector index", 0, true,
                "embedded: the consolidator memories store above is the index");
        }
        final int dimensions = config.getInt(CoreConfig.EMBEDDING_DIMENSIONS);
        final Optional<QdrantVectorIndex> index = VectorIndexes.retrieverIndex(config, dimensions, new SimpleMeterRegistry());
        try (QdrantVectorIndex qdrant = index.orElseThrow()) {
            final float[] probe = new float[dimensions];
            java.util.Arrays.fill(probe, (float) (1 / Math.sqrt(dimensions)));
            final int found = qdrant.search(new VectorIndex.Query(user, probe, 10_000, false)).size();
            return new Place("vector index (Qdrant " + config.getString(QdrantConfig.QDRANT_COLLECTION) + ")", found, false,
                found + " points of the user");
        }
    }

    private static void read(final String topic, final Map<String, Object> client, final Duration timeout,
                             final java.util.function.Consumer<ConsumerRecord<byte[], byte[]>> each) {
        final Map<String, Object> props = new HashMap<>(client);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
            final List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            final long deadline = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(topic + " not read to its end within " + timeout);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(each);
            }
        }
    }
}
