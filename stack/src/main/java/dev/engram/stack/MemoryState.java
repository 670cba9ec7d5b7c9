package dev.engram.stack;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.core.UserKey;
import dev.engram.crypto.ErasedDataException;
import dev.engram.topics.Topic;
import dev.engram.config.EngramConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The memories every user holds, rebuilt from {@code memory-updated} the way the retriever's read
 * model ({@code MaterializeMemoriesProcessor}) folds it: the event carries the memory's full state
 * after the change, so per user key ({@code tenant/user}) and memory id the latest state wins; an event
 * without a memory, with a DELETED state or a DELETED operation removes the memory; an ERASED event
 * removes the user; a record that cannot be decrypted any more (crypto-shredding, {@link ErasedDataException})
 * is an erased user's and is skipped. The one rebuild of state from {@code memory-updated} for the ops
 * tools ({@code verify}, {@code rebuild}, {@code reembed}) and the benchmarks.
 *
 * <p>Read with {@link TopicScan}: {@code read_committed}, no group, from the given offsets (or the
 * beginning) to the end offsets taken at the start.
 *
 * @param events {@code memory-updated} records folded (tombstones and undecryptable records not counted)
 * @param memories user key → the latest state of each of its memories, in order of first appearance;
 *     users left without memories are absent
 */
public record MemoryState(long events, Map<String, List<Memory>> memories) {

    /**
     * Reads {@code memory-updated} from the beginning with the plain Avro decoder and folds it.
     *
     * @param clientProperties consumer properties with at least {@code bootstrap.servers}
     * @param timeout how long reading may take at most
     * @return the state
     * @throws IllegalStateException if the end is not reached within the timeout
     */
    public static MemoryState read(final Map<String, Object> clientProperties, final Duration timeout) {
        return read(clientProperties, null, timeout, Topic.MEMORY_UPDATED.valueDeserializer(EngramConfig.plain()));
    }

    /**
     * Reads {@code memory-updated} from the given offsets (or the beginning) up to its last stable
     * offsets at the time of the call and folds it.
     *
     * @param clientProperties consumer properties with at least {@code bootstrap.servers}
     * @param fromOffsets where to start per partition; partitions not in it start at the beginning;
     *     null = every partition from the beginning
     * @param timeout how long reading may take at most
     * @param decoder the MemoryUpdated deserializer (with {@code crypto.enabled} the sealing one of
     *     {@code PersonalSerdes.topic})
     * @return the state
     * @throws IllegalStateException if the end is not reached within the timeout
     */
    public static MemoryState read(final Map<String, Object> clientProperties,
                                   final Map<TopicPartition, Long> fromOffsets, final Duration timeout,
                                   final Deserializer<MemoryUpdated> decoder) {
        return read(clientProperties, fromOffsets, null, timeout, decoder);
    }

    /**
     * Reads {@code memory-updated} from the given offsets (or the beginning) up to the given end offsets and folds it:
     * the state as it was when those ends were taken, while more is appended ({@link TopicScan#between}).
     *
     * @param clientProperties consumer properties with at least {@code bootstrap.servers}
     * @param fromOffsets where to start per partition, or null (the beginning)
     * @param untilOffsets where to stop per partition (exclusive), or null (the last stable offsets at the call)
     * @param timeout how long reading may take at most
     * @param decoder the MemoryUpdated deserializer
     * @return the state
     * @throws IllegalStateException if the ends are not reached within the timeout
     */
    public static MemoryState read(final Map<String, Object> clientProperties,
                                   final Map<TopicPartition, Long> fromOffsets, final Map<TopicPartition, Long> untilOffsets,
                                   final Duration timeout, final Deserializer<MemoryUpdated> decoder) {
        final Fold fold = new Fold();
        final boolean complete = TopicScan.between(clientProperties, Topic.MEMORY_UPDATED.name(), fromOffsets, untilOffsets,
            timeout, record -> fold.add(decoder, record));
        if (!complete) {
            throw new IllegalStateException("memory-updated not read to its end within " + timeout);
        }
        return fold.state();
    }

    /**
     * Folds events given in topic order (per user), as {@link #read} does.
     *
     * @param events {@code memory-updated} values; null values (tombstones) are skipped
     * @return the state
     */
    public static MemoryState fold(final Iterable<MemoryUpdated> events) {
        final Fold fold = new Fold();
        events.forEach(fold::add);
        return fold.state();
    }

    /**
     * The memories by user id, for a benchmark that ingests one tenant.
     *
     * @return user id → memories
     * @throws IllegalStateException if the state holds more than one tenant (user ids could collide)
     */
    public Map<String, List<Memory>> byUserIdOfOneTenant() {
        final Set<String> tenants = new TreeSet<>();
        final Map<String, List<Memory>> out = new HashMap<>();
        memories.forEach((user, list) -> {
            final UserKey key = UserKey.parse(user);
            tenants.add(key.tenantId());
            out.put(key.userId(), list);
        });
        if (tenants.size() > 1) {
            throw new IllegalStateException("memories of several tenants " + tenants + "; expected one");
        }
        return out;
    }

    /** @return memories of every user */
    public long total() {
        return memories.values().stream().mapToLong(List::size).sum();
    }

    /** The fold: per user, memory id → latest state, in order of first appearance. Not thread-safe. */
    static final class Fold {
        private final Map<String, Map<String, Memory>> byUser = new LinkedHashMap<>();
        private long events;

        /** Decodes and folds one record; an erased user's record (unreadable by design) is gone from the fold. */
        void add(final Deserializer<MemoryUpdated> decoder, final ConsumerRecord<byte[], byte[]> record) {
            try {
                add(decoder.deserialize(record.topic(), record.headers(), record.value()));
            } catch (ErasedDataException e) {
                // skipped, as the retriever's read model skips it
            }
        }

        void add(final MemoryUpdated event) {
            if (event == null) {
                return;
            }
            events++;
            final String user = new UserKey(event.getTenantId(), event.getUserId()).wire();
            if (event.getOperation() == UpdateOperation.ERASED) {
                byUser.remove(user);
                return;
            }
            final Memory after = event.getMemory();
            if (after == null || after.getStatus() == MemoryStatus.DELETED
                || event.getOperation() == UpdateOperation.DELETED) {
                final Map<String, Memory> own = byUser.get(user);
                if (own != null) {
                    own.remove(event.getMemoryId());
                    if (own.isEmpty()) {
                        byUser.remove(user);
                    }
                }
                return;
            }
            byUser.computeIfAbsent(user, u -> new LinkedHashMap<>()).put(event.getMemoryId(), after);
        }

        MemoryState state() {
            final Map<String, List<Memory>> out = new LinkedHashMap<>();
            byUser.forEach((user, own) -> out.put(user, List.copyOf(own.values())));
            return new MemoryState(events, out);
        }
    }
}
