package dev.engram.ops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.core.UserKey;
import dev.engram.serde.AvroSerdes;
import dev.engram.topology.Topics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The memory state of every user, as a downstream consumer sees it: {@code memory-updated} read with
 * a {@code read_committed} consumer (no group) and folded per user — the latest {@code memory} of each
 * memory id wins, an ERASED event removes the user. Memories whose state is DELETED are left out (the
 * retriever's read model drops them too).
 *
 * <p>Per user it keeps the counts by status and a content hash: SHA-256 over the Avro single-object
 * encoding of every memory of the user in memory-id order, so any difference in any field (content,
 * status, supersession, sources, embedding, counters) changes the hash. Replays are deterministic
 * (event time, deterministic ids), so a correct rebuild yields identical hashes.
 *
 * <p>Written to and read from JSON ({@link #write(Path)}, {@link #read(Path)}); compared with
 * {@link #diff(MemorySnapshot)}. Immutable.
 *
 * @param events {@code memory-updated} records folded (0 for a snapshot taken from a read model)
 * @param users user key ({@code tenant/user}) → its state, sorted
 */
public record MemorySnapshot(long events, SortedMap<String, UserState> users) {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
        .findAndRegisterModules();

    /**
     * One user's state.
     *
     * @param active ACTIVE memories
     * @param archived ARCHIVED memories
     * @param total memories (not DELETED)
     * @param contentHash hex SHA-256 over the user's memories (see the class comment)
     */
    public record UserState(int active, int archived, int total, String contentHash) {
    }

    /** @return memories of every user, not DELETED */
    public long totalMemories() {
        return users.values().stream().mapToLong(UserState::total).sum();
    }

    /** @return ACTIVE memories of every user */
    public long activeMemories() {
        return users.values().stream().mapToLong(UserState::active).sum();
    }

    /** @return ARCHIVED memories of every user */
    public long archivedMemories() {
        return users.values().stream().mapToLong(UserState::archived).sum();
    }

    /**
     * Reads {@code memory-updated} from the given offsets (or the beginning) up to its last stable
     * offsets at the time of the call and folds it.
     *
     * @param clientProperties consumer properties with at least {@code bootstrap.servers}
     * @param fromOffsets where to start per partition; partitions not in it start at the beginning;
     *     null = every partition from the beginning
     * @param timeout how long reading may take at most
     * @return the snapshot
     * @throws IllegalStateException if the end is not reached within the timeout
     */
    public static MemorySnapshot fromTopic(final Map<String, Object> clientProperties,
                                           final Map<TopicPartition, Long> fromOffsets, final Duration timeout) {
        return fromTopic(clientProperties, fromOffsets, timeout, AvroSerdes.serde(MemoryUpdated.class).deserializer());
    }

    /**
     * As {@link #fromTopic(Map, Map, Duration)} with the given decoder: with {@code crypto.enabled} the
     * sealing one of {@code PersonalSerdes.topic}; records of erased users are skipped.
     *
     * @param clientProperties consumer properties with at least {@code bootstrap.servers}
     * @param fromOffsets where to start per partition, or null
     * @param timeout how long reading may take at most
     * @param decoder the MemoryUpdated deserializer
     * @return the snapshot
     */
    public static MemorySnapshot fromTopic(final Map<String, Object> clientProperties,
                                           final Map<TopicPartition, Long> fromOffsets, final Duration timeout,
                                           final Deserializer<MemoryUpdated> decoder) {
        final Fold fold = fold(clientProperties, fromOffsets, timeout, decoder);
        return of(fold.events(), fold.memories());
    }

    /**
     * {@code memory-updated} folded per user.
     *
     * @param events records folded
     * @param memories user key → the latest state of each of its memories (every status)
     */
    record Fold(long events, Map<String, List<Memory>> memories) {
    }

    /** Reads and folds {@code memory-updated}; see {@link #fromTopic}. */
    static Fold fold(final Map<String, Object> clientProperties, final Map<TopicPartition, Long> fromOffsets,
                     final Duration timeout, final Deserializer<MemoryUpdated> decoder) {
        final Map<String, Memory> latest = new HashMap<>();
        final Map<String, List<String>> byUser = new HashMap<>();
        long events = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(clientProperties)) {
            final List<TopicPartition> partitions = partitions(consumer, Topics.MEMORY_UPDATED);
            consumer.assign(partitions);
            for (final TopicPartition tp : partitions) {
                final Long from = fromOffsets == null ? null : fromOffsets.get(tp);
                if (from == null) {
                    consumer.seekToBeginning(List.of(tp));
                } else {
                    consumer.seek(tp, from);
                }
            }
            final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            final long deadline = System.nanoTime() + timeout.toNanos();
            while (!reached(consumer, ends)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("memory-updated not read to its end within " + timeout);
                }
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    final MemoryUpdated event;
                    try {
                        event = decoder.deserialize(record.topic(), record.headers(), record.value());
                    } catch (dev.engram.crypto.ErasedDataException e) {
                        continue; // an erased user's record: unreadable by design, and gone from the fold
                    }
                    if (event == null) {
                        continue;
                    }
                    events++;
                    final String user = new UserKey(event.getTenantId(), event.getUserId()).wire();
                    if (event.getOperation() == UpdateOperation.ERASED) {
                        final List<String> ids = byUser.remove(user);
                        if (ids != null) {
                            ids.forEach(id -> latest.remove(user + '\0' + id));
                        }
                        continue;
                    }
                    final String storeKey = user + '\0' + event.getMemoryId();
                    if (event.getMemory() == null) {
                        latest.remove(storeKey);
                    } else if (latest.put(storeKey, event.getMemory()) == null) {
                        byUser.computeIfAbsent(user, u -> new ArrayList<>()).add(event.getMemoryId());
                    }
                }
            }
        }
        final Map<String, List<Memory>> memories = new HashMap<>();
        byUser.forEach((user, ids) -> ids.forEach(id -> {
            final Memory memory = latest.get(user + '\0' + id);
            if (memory != null) {
                memories.computeIfAbsent(user, u -> new ArrayList<>()).add(memory);
            }
        }));
        return new Fold(events, memories);
    }

    /**
     * @param events events folded
     * @param memories user key → memories (any order, any status)
     * @return the snapshot (DELETED memories and users left without memories are dropped)
     */
    public static MemorySnapshot of(final long events, final Map<String, ? extends Collection<Memory>> memories) {
        final Serializer<Memory> encoder = AvroSerdes.serde(Memory.class).serializer();
        final SortedMap<String, UserState> users = new TreeMap<>();
        memories.forEach((user, list) -> {
            final TreeMap<String, Memory> sorted = new TreeMap<>();
            list.stream().filter(m -> m.getStatus() != MemoryStatus.DELETED).forEach(m -> sorted.put(m.getMemoryId(), m));
            if (sorted.isEmpty()) {
                return;
            }
            final MessageDigest digest = sha256();
            int active = 0;
            int archived = 0;
            for (final Memory memory : sorted.values()) {
                digest.update(encoder.serialize(Topics.MEMORY_UPDATED, memory));
                if (memory.getStatus() == MemoryStatus.ACTIVE) {
                    active++;
                } else if (memory.getStatus() == MemoryStatus.ARCHIVED) {
                    archived++;
                }
            }
            users.put(user, new UserState(active, archived, sorted.size(), HexFormat.of().formatHex(digest.digest())));
        });
        return new MemorySnapshot(events, users);
    }

    /**
     * The differences, one line per user that differs (missing on one side, other counts, other hash).
     *
     * @param after the state after (this is the state before)
     * @return human-readable lines; empty when both hold the same memories
     */
    public List<String> diff(final MemorySnapshot after) {
        final List<String> out = new ArrayList<>();
        final TreeSet<String> all = new TreeSet<>(users.keySet());
        all.addAll(after.users.keySet());
        for (final String user : all) {
            final UserState b = users.get(user);
            final UserState a = after.users.get(user);
            if (b == null) {
                out.add(user + ": only after (" + a.total() + " memories)");
            } else if (a == null) {
                out.add(user + ": only before (" + b.total() + " memories)");
            } else if (!b.equals(a)) {
                out.add(String.format("%s: before %d active / %d archived, after %d active / %d archived%s", user,
                    b.active(), b.archived(), a.active(), a.archived(),
                    Objects.equals(b.contentHash(), a.contentHash()) ? "" : ", content differs"));
            }
        }
        return out;
    }

    /**
     * @param file where to write the JSON
     */
    public void write(final Path file) {
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            JSON.writeValue(file.toFile(), this);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }

    /**
     * @param file a file written by {@link #write(Path)}
     * @return the snapshot
     */
    public static MemorySnapshot read(final Path file) {
        try {
            return JSON.readValue(file.toFile(), MemorySnapshot.class);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the snapshot " + file, e);
        }
    }

    /** @return a one-line summary: users, memories, active, archived */
    public String summary() {
        return String.format("%d users, %d memories (%d active, %d archived)", users.size(), totalMemories(),
            activeMemories(), archivedMemories());
    }

    /**
     * @param clientProperties at least {@code bootstrap.servers}
     * @return a byte-array consumer reading committed records only, auto-commit off, 2000 records a poll
     */
    public static KafkaConsumer<byte[], byte[]> consumer(final Map<String, Object> clientProperties) {
        final Map<String, Object> props = new HashMap<>(clientProperties);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "engram-ops-snapshot");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * @param consumer any consumer
     * @param topic a topic name
     * @return every partition of {@code topic} (waits up to 30 s for the metadata)
     */
    public static List<TopicPartition> partitions(final KafkaConsumer<?, ?> consumer, final String topic) {
        return consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
    }

    /** @return whether the consumer's position reached {@code ends} on every partition */
    public static boolean reached(final KafkaConsumer<?, ?> consumer, final Map<TopicPartition, Long> ends) {
        for (final Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey(), Duration.ofSeconds(10)) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
