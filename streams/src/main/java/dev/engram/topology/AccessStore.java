package dev.engram.topology;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.engram.avro.MemoryAccessed;
import dev.engram.core.UserKey;
import dev.engram.scoring.AccessCounts;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One app's fold of {@code memory-access} ({@link StoreNames#ACCESS} in the consolidator, {@link StoreNames#RETRIEVER_ACCESS}
 * in the retriever): {@code <user key>\0<memory id>} → {@link AccessCounts}. Both apps fold the same records by the
 * same rule, so both hold the same counts however the records interleave with their other input:
 *
 * <ul>
 *   <li>a record adds, per memory it lists, one hit per request that returned it, and moves the memory's latest access
 *       to the record's {@code accessedAt} if later (a sum and a maximum: commutative, so a replay gives the same
 *       counts);</li>
 *   <li>a record of an erased user stamped at or before the erasure is dropped (the erasure ledger), and erasing a
 *       user deletes the user's counts: an erasure in flight or a replay of old hits never brings counts back;</li>
 *   <li>a memory that is deleted (DELETED) loses its counts, so the store holds no more entries than memories that
 *       were hit and still exist.</li>
 * </ul>
 * The hits of a memory that does not exist (yet, or any more) are kept: the join happens where the memory is read.
 * Not thread-safe: one per processor instance.
 */
final class AccessStore {

    private static final Logger LOG = LoggerFactory.getLogger(AccessStore.class);

    private final KeyValueStore<String, AccessCounts> store;

    /** @param store the app's access store */
    AccessStore(final KeyValueStore<String, AccessCounts> store) {
        this.store = store;
    }

    /**
     * The user a {@code memory-access} record is of, or null (logged) when its key is not a user key or names
     * another user than its value.
     *
     * @param record a record of {@code memory-access}
     * @param where where it was read, for the log
     * @return its user, or null to skip it
     */
    static UserKey userOf(final Record<String, MemoryAccessed> record, final String where) {
        final MemoryAccessed access = record.value();
        final UserKey user;
        try {
            user = UserKey.parse(record.key());
        } catch (IllegalArgumentException | NullPointerException e) {
            LOG.warn("memory-access record without a valid user key at {}: skipped", where);
            return null;
        }
        if (access == null || !user.equals(new UserKey(access.getTenantId(), access.getUserId()))) {
            LOG.warn("memory-access record for another user than its key {}: skipped", user);
            return null;
        }
        return user;
    }

    /**
     * Folds one record of the user's hits.
     *
     * @param user the record's user ({@link #userOf})
     * @param access the record
     * @param erasedAt the user's erasure time (ms) from the app's erasure ledger, or null
     * @return memory id → its counts after the record, in order of first listing; empty when the record was dropped
     *     (erased user) or listed nothing
     */
    Map<String, AccessCounts> fold(final UserKey user, final MemoryAccessed access, final Long erasedAt) {
        final long at = access.getAccessedAt().toEpochMilli();
        if (erasedAt != null && at <= erasedAt) {
            return Map.of();
        }
        // a record lists a memory once per request that returned it (the retriever sends one record per user and
        // batch of requests): one store write per memory, its count raised by its hits
        final Map<String, Integer> hits = new LinkedHashMap<>();
        for (final String memoryId : access.getMemoryIds()) {
            hits.merge(memoryId, 1, Integer::sum);
        }
        final Map<String, AccessCounts> out = new LinkedHashMap<>();
        for (final Map.Entry<String, Integer> hit : hits.entrySet()) {
            final String key = user.storeKey(hit.getKey());
            final AccessCounts before = store.get(key);
            final AccessCounts after = (before == null ? AccessCounts.NONE : before).plus(hit.getValue(), at);
            store.put(key, after);
            out.put(hit.getKey(), after);
        }
        return out;
    }

    /**
     * @param user a user
     * @return the user's counts by memory id (a lookup that reads the store; valid while the processor runs)
     */
    AccessCounts.Lookup of(final UserKey user) {
        return memoryId -> {
            final AccessCounts counts = store.get(user.storeKey(memoryId));
            return counts == null ? AccessCounts.NONE : counts;
        };
    }

    /**
     * @param user a user
     * @param memoryId a memory
     * @return its counts, {@link AccessCounts#NONE} when never hit
     */
    AccessCounts get(final UserKey user, final String memoryId) {
        final AccessCounts counts = store.get(user.storeKey(memoryId));
        return counts == null ? AccessCounts.NONE : counts;
    }

    /**
     * @param user a user
     * @return every memory of the user that was hit, memory id → counts (one prefix scan)
     */
    Map<String, AccessCounts> all(final UserKey user) {
        final Map<String, AccessCounts> out = new LinkedHashMap<>();
        try (KeyValueIterator<String, AccessCounts> it = store.prefixScan(user.storePrefix(),
                ConsolidateMemoriesProcessor.PREFIX_SERIALIZER)) {
            while (it.hasNext()) {
                final KeyValue<String, AccessCounts> entry = it.next();
                if (entry.value != null) {
                    out.put(entry.key.substring(user.storePrefix().length()), entry.value);
                }
            }
        }
        return out;
    }

    /**
     * Forgets a deleted memory's counts.
     *
     * @param user its user
     * @param memoryId the memory
     */
    void forget(final UserKey user, final String memoryId) {
        store.delete(user.storeKey(memoryId));
    }

    /**
     * Forgets every count of an erased user.
     *
     * @param user the user
     * @return entries deleted
     */
    int erase(final UserKey user) {
        final List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, AccessCounts> it = store.prefixScan(user.storePrefix(),
                ConsolidateMemoriesProcessor.PREFIX_SERIALIZER)) {
            it.forEachRemaining(kv -> keys.add(kv.key));
        }
        keys.forEach(store::delete);
        return keys.size();
    }
}
