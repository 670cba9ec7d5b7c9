package dev.engram.topology;

import java.util.ArrayList;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.avro.UserProfile;
import dev.engram.core.UserKey;
import dev.engram.scoring.AccessCounts;
import dev.engram.scoring.MemoryCopies;
import dev.engram.scoring.SearchIndexes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.engram.profile.ProfileProjection;

/**
 * {@code materialize-memories}: folds one MemoryUpdated into the retriever's stores
 * ({@link StoreNames#RETRIEVER_MEMORIES}, {@link StoreNames#RETRIEVER_PROFILES}); forwards nothing.
 *
 * <ul>
 *   <li>ERASED: every entry under the user's prefix and the profile are deleted;</li>
 *   <li>DELETED (or a state with status DELETED): the memory's entry is deleted, so its content is
 *       no longer served; the profile is updated;</li>
 *   <li>anything else: the memory's entry becomes {@code event.memory} (the full state after) and the
 *       profile is folded with {@link ProfileProjection#apply} given the previous state.</li>
 * </ul>
 * Every event is also kept as a version in {@link StoreNames#RETRIEVER_HISTORY} (operation, values,
 * cause, event time; the embedding stripped), which serves {@code GET …/memories/{id}/history}; a
 * DELETED memory's versions and an ERASED user's versions are removed with it, and so are their retrieval hits in
 * {@link StoreNames#RETRIEVER_ACCESS} (folded by {@link CountMemoryAccessProcessor}). Of a memory's ACCESSED events (the
 * consolidator wrote them before access moved out of {@code memory-updated}) only the latest is kept (one key per
 * memory, overwritten).
 *
 * <p>Erasure ledger ({@link StoreNames#RETRIEVER_ERASURES}, user key → erasure time): an ERASED event records its
 * event time; any later-processed event of that user whose event time is at or before it is dropped, so
 * a replay of {@code memory-updated} (or events the consolidator re-emits from replayed candidates)
 * never brings the user back into the read model. Memories said after the erasure are kept.
 * The user is taken from the event's tenant and user (the record key must agree); an event without a
 * valid user is logged and skipped (memory-updated is written by the consolidator only).
 *
 * <p>Search structures ({@link SearchIndexes}): every change is applied to the user's index too. On
 * {@link #init} (after Kafka Streams restored the task's stores) the task's partition is rebuilt from its
 * local {@link StoreNames#RETRIEVER_MEMORIES} and {@link StoreNames#RETRIEVER_ACCESS}; on {@link #close} it is dropped, so the index covers exactly the
 * partitions this instance runs as active tasks.
 */
public final class MaterializeMemoriesProcessor implements Processor<String, MemoryUpdated, Void, Void> {

    private static final Logger LOG = LoggerFactory.getLogger(MaterializeMemoriesProcessor.class);

    /** The history key's last part for a memory's latest ACCESSED version (each access replaces it). */
    public static final String ACCESS_VERSION = "access";

    private KeyValueStore<String, Memory> memories;
    private KeyValueStore<String, UserProfile> profiles;
    private KeyValueStore<String, MemoryUpdated> history;
    private KeyValueStore<String, Long> erasures;
    private KeyValueStore<String, AccessCounts> accessCounts;
    private AccessStore access;
    private final SearchIndexes indexes;
    private int partition;
    private IdleCommit idleCommit;

    /** @param indexes the search structures to keep in step with the memory store */
    public MaterializeMemoriesProcessor(final SearchIndexes indexes) {
        this.indexes = indexes;
    }

    @Override
    public void init(final ProcessorContext<Void, Void> context) {
        this.memories = context.getStateStore(StoreNames.RETRIEVER_MEMORIES);
        this.profiles = context.getStateStore(StoreNames.RETRIEVER_PROFILES);
        this.history = context.getStateStore(StoreNames.RETRIEVER_HISTORY);
        this.erasures = context.getStateStore(StoreNames.RETRIEVER_ERASURES);
        this.accessCounts = context.getStateStore(StoreNames.RETRIEVER_ACCESS);
        this.access = new AccessStore(accessCounts);
        this.partition = context.taskId().partition();
        this.idleCommit = new IdleCommit(context);
        indexes.beginLoad(partition);
        int count = 0;
        try (KeyValueIterator<String, Memory> it = memories.all()) {
            while (it.hasNext()) {
                final Memory m = it.next().value;
                if (m != null) {
                    indexes.put(partition, new UserKey(m.getTenantId(), m.getUserId()), m);
                    count++;
                }
            }
        }
        int hit = 0;
        try (KeyValueIterator<String, AccessCounts> it = accessCounts.all()) {
            while (it.hasNext()) {
                final KeyValue<String, AccessCounts> entry = it.next();
                final int separator = entry.key.indexOf(UserKey.STORE_SEPARATOR);
                if (entry.value != null && separator > 0) {
                    indexes.access(partition, UserKey.parse(entry.key.substring(0, separator)),
                        entry.key.substring(separator + 1), entry.value);
                    hit++;
                }
            }
        }
        indexes.loaded(partition);
        LOG.info("Search index of partition {} rebuilt from the memory store: {} memories, {} with hits", partition,
            count, hit);
    }

    @Override
    public void close() {
        indexes.dropPartition(partition);
    }

    /**
     * @param user the user
     * @param memoryId the memory
     * @return the prefix of the memory's versions in {@link StoreNames#RETRIEVER_HISTORY}
     */
    public static String historyPrefix(final UserKey user, final String memoryId) {
        return user.storeKey(memoryId) + UserKey.STORE_SEPARATOR;
    }

    private static String historyKey(final UserKey user, final MemoryUpdated event) {
        if (event.getOperation() == UpdateOperation.ACCESSED) {
            return historyPrefix(user, event.getMemoryId()) + ACCESS_VERSION;
        }
        final long millis = event.getEventTime().toEpochMilli();
        // zero-padded to 13 digits (String.format's "%013d" without its parsing, once per access of a memory)
        final String time = millis < 0 ? String.format("%013d", millis) : Long.toString(millis);
        return historyPrefix(user, event.getMemoryId()) + "0".repeat(Math.max(0, 13 - time.length())) + time
            + UserKey.STORE_SEPARATOR + event.getEventId();
    }

    /**
     * Folds one event. The task's stores and offsets are committed as soon as its input has been quiet a moment
     * ({@link IdleCommit}), not only every {@code commit.interval.ms}: committed offsets are how a retriever (its
     * {@code CatchUp}) and a rebuild ({@code bin/engram rebuild}) tell that it has read its backlog, and a replay's last
     * records waited up to the interval (1 s in a rebuild) for it.
     */
    @Override
    public void process(final Record<String, MemoryUpdated> record) {
        idleCommit.output();
        try {
            materialize(record);
        } finally {
            idleCommit.processed();
        }
    }

    private void materialize(final Record<String, MemoryUpdated> record) {
        final MemoryUpdated event = record.value();
        if (event == null) {
            return;
        }
        final UserKey user;
        try {
            user = new UserKey(event.getTenantId(), event.getUserId());
        } catch (IllegalArgumentException e) {
            LOG.warn("Skipping memory-updated event {} without a valid user: {}", event.getEventId(), e.getMessage());
            return;
        }
        final long at = event.getEventTime().toEpochMilli();
        final Long erasedAt = erasures.get(user.wire());
        if (event.getOperation() == UpdateOperation.ERASED) {
            erase(user);
            erasures.put(user.wire(), erasedAt == null ? at : Math.max(at, erasedAt));
            return;
        }
        if (erasedAt != null && at <= erasedAt) {
            return;
        }
        if (event.getOperation() == UpdateOperation.SETTINGS_CHANGED) {
            profiles.put(user.wire(), ProfileProjection.apply(profiles.get(user.wire()), null, event));
            return;
        }
        final String storeKey = user.storeKey(event.getMemoryId());
        // what the profile fold needs of the previous state (status, key, id), from the index of this loaded
        // partition, which holds every stored memory: no decode of the stored record and its embedding per event
        final Memory previous = indexes.isLoaded(partition) ? indexes.memory(user, event.getMemoryId())
            : memories.get(storeKey);
        final Memory after = event.getMemory();
        if (after == null || after.getStatus() == MemoryStatus.DELETED
            || event.getOperation() == UpdateOperation.DELETED) {
            memories.delete(storeKey);
            access.forget(user, event.getMemoryId());
            indexes.remove(user, event.getMemoryId());
            deleteAll(history, historyPrefix(user, event.getMemoryId()));
        } else {
            memories.put(storeKey, after);
            indexes.put(partition, user, after);
            history.put(historyKey(user, event), withMemory(event, MemoryCopies.withoutEmbedding(after)));
        }
        final UserProfile profile = ProfileProjection.apply(profiles.get(user.wire()), previous, event);
        if (profile == null) {
            profiles.delete(user.wire());
        } else {
            profiles.put(user.wire(), profile);
        }
    }

    /**
     * The event carrying another memory, made without first deep-copying the memory it carried (Avro's builder
     * copies every field, the embedding's floats boxed one by one): the carried memory is set aside meanwhile.
     */
    private static MemoryUpdated withMemory(final MemoryUpdated event, final Memory memory) {
        final Memory carried = event.getMemory();
        event.setMemory(memory);
        try {
            return MemoryUpdated.newBuilder(event).build();
        } finally {
            event.setMemory(carried);
        }
    }

    private void erase(final UserKey user) {
        indexes.erase(partition, user);
        deleteAll(memories, user.storePrefix());
        deleteAll(history, user.storePrefix());
        access.erase(user);
        profiles.delete(user.wire());
    }

    private static <V> void deleteAll(final KeyValueStore<String, V> store, final String prefix) {
        final List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, V> it = store.prefixScan(prefix,
            org.apache.kafka.common.serialization.Serdes.String().serializer())) {
            while (it.hasNext()) {
                final KeyValue<String, V> entry = it.next();
                keys.add(entry.key);
            }
        }
        keys.forEach(store::delete);
    }
}
