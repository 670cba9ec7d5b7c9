package dev.engram.ops;

import java.io.IOException;
import java.io.PrintStream;
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
import dev.engram.serde.AvroSerdes;
import dev.engram.stack.MemoryState;
import dev.engram.topics.Topic;
import dev.engram.topology.StoreNames;
import dev.engram.config.EngramConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The memory state of every user, as a downstream consumer sees it: {@code memory-updated} folded
 * per user by {@link MemoryState} (the latest state of each memory id wins, a deletion removes the
 * memory, an ERASED event the user, as in the retriever's read model). Memories whose state is DELETED
 * are left out of {@link #of} too, so a snapshot of a read model compares the same way.
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
        return fromTopic(clientProperties, fromOffsets, timeout, Topic.MEMORY_UPDATED.valueDeserializer(EngramConfig.plain()));
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
        return between(clientProperties, fromOffsets, null, timeout, decoder);
    }

    /**
     * As {@link #fromTopic(Map, Map, Duration, Deserializer)}, up to the given end offsets: the state as it was when
     * they were taken, so the snapshot may be read while more is appended (a rebuild's before, beside the rebuilt apps).
     *
     * @param clientProperties consumer properties with at least {@code bootstrap.servers}
     * @param fromOffsets where to start per partition, or null
     * @param untilOffsets where to stop per partition (exclusive), or null (the last stable offsets at the call)
     * @param timeout how long reading may take at most
     * @param decoder the MemoryUpdated deserializer
     * @return the snapshot
     */
    static MemorySnapshot between(final Map<String, Object> clientProperties, final Map<TopicPartition, Long> fromOffsets,
                                  final Map<TopicPartition, Long> untilOffsets, final Duration timeout,
                                  final Deserializer<MemoryUpdated> decoder) {
        final MemoryState state = MemoryState.read(clientProperties, fromOffsets, untilOffsets, timeout, decoder);
        return of(state.events(), state.memories());
    }

    /**
     * Reads a retriever's read model through interactive queries ({@code retriever-memories-store}; one instance holds
     * every partition).
     *
     * @param retriever the retriever's running Streams client
     * @return the snapshot (events 0)
     */
    static MemorySnapshot ofReadModel(final KafkaStreams retriever) {
        final ReadOnlyKeyValueStore<String, Memory> store = retriever.store(StoreQueryParameters.fromNameAndType(
            StoreNames.RETRIEVER_MEMORIES, QueryableStoreTypes.<String, Memory>keyValueStore()));
        final Map<String, List<Memory>> byUser = new HashMap<>();
        try (KeyValueIterator<String, Memory> it = store.all()) {
            while (it.hasNext()) {
                final KeyValue<String, Memory> entry = it.next();
                if (entry.value == null) {
                    continue; // its user's data key is erased
                }
                final int split = entry.key.indexOf('\0');
                byUser.computeIfAbsent(split < 0 ? entry.key : entry.key.substring(0, split), u -> new ArrayList<>())
                    .add(entry.value);
            }
        }
        return of(0, byUser);
    }

    /**
     * @param events events folded
     * @param memories user key → memories (any order, any status)
     * @return the snapshot (DELETED memories and users left without memories are dropped)
     */
    public static MemorySnapshot of(final long events, final Map<String, ? extends Collection<Memory>> memories) {
        final Serializer<Memory> encoder = AvroSerdes.serde(Memory.class).serializer();
        // users are hashed on the common pool (the encoder is thread-safe): a rebuild waits for its state after
        final SortedMap<String, UserState> users = new java.util.concurrent.ConcurrentSkipListMap<>();
        memories.entrySet().parallelStream().forEach(entry -> {
            final TreeMap<String, Memory> sorted = new TreeMap<>();
            entry.getValue().stream().filter(m -> m.getStatus() != MemoryStatus.DELETED)
                .forEach(m -> sorted.put(m.getMemoryId(), m));
            if (sorted.isEmpty()) {
                return;
            }
            final MessageDigest digest = sha256();
            int active = 0;
            int archived = 0;
            for (final Memory memory : sorted.values()) {
                digest.update(encoder.serialize(Topic.MEMORY_UPDATED.name(), memory));
                if (memory.getStatus() == MemoryStatus.ACTIVE) {
                    active++;
                } else if (memory.getStatus() == MemoryStatus.ARCHIVED) {
                    archived++;
                }
            }
            users.put(entry.getKey(), new UserState(active, archived, sorted.size(),
                HexFormat.of().formatHex(digest.digest())));
        });
        return new MemorySnapshot(events, new TreeMap<>(users));
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

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /**
     * Prints the verify verdict.
     *
     * @param out where
     * @param differences {@link #diff}
     */
    static void printDiff(final PrintStream out, final List<String> differences) {
        if (differences.isEmpty()) {
            out.println("verify: no differences");
        } else {
            out.printf("verify: %d user(s) differ%n", differences.size());
            differences.forEach(d -> out.println("  " + d));
        }
    }
}
