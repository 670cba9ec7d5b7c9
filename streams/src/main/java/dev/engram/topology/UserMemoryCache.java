package dev.engram.topology;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.engram.avro.Memory;
import dev.engram.core.UserKey;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * One consolidator task's decoded copy of {@link StoreNames#MEMORIES}, per user: what a prefix scan of the user's
 * store keys returns, in the same order, without reading and decoding every memory again for every candidate.
 * JFR of {@code bench ingest} put the store scan and Avro decode of the user's memories (each with its
 * 384-float embedding) at most of the candidate path once the lifecycle merge was fixed; a LoCoMo user holds
 * ~500 memories by the end.
 *
 * <p>A derived view, never a second source of truth: filled from the store on a user's first read, updated by
 * every write the task's processors make to the store ({@link #written}, {@link #forget}), and dropped with the
 * task. Kafka Streams initializes a task's processors after its stores are restored and writes to an active
 * task's stores only through its processors, so the copy cannot miss a change; a new incarnation of the task
 * (rebalance, recovery) starts empty. Both processors of the task ({@code consolidate-memories},
 * {@code maintain-memory-lifecycle}) share one cache through {@link Registry}.
 *
 * <p>It also knows which users the store holds ({@link #users}): one scan of the store on the first call, then every
 * write, so the daily lifecycle pass reads each user's decoded memories here ({@link #memoriesForPass}) instead of
 * scanning and decoding the task's whole store every pass (JFR of {@code bench ingest}: the pass runs at nearly every
 * LoCoMo session, as each crosses a day of stream time).
 *
 * <p>Bounded: at most {@link #MAX_MEMORIES} memories over all cached users; the least recently read user is
 * dropped first. The pass never evicts: a user it reads from the store is kept only while there is room, so a task
 * holding more than the bound does not turn every pass into a round of evictions of the candidates' users. Memories are immutable once written (every change builds a new record), so sharing the
 * decoded objects is safe; {@link #memories} returns a fresh list. Not thread-safe: a task runs on one thread.
 */
final class UserMemoryCache {

    /** Memories kept decoded per task (~9 KB each with a 384-float embedding: ~90 MB at most). */
    static final int MAX_MEMORIES = 10_000;

    /** The store's key order: RocksDB and the Streams cache order keys by their serialized (UTF-8) bytes. */
    private static final Comparator<String> STORE_ORDER = Comparator.comparing(
        (String key) -> Bytes.wrap(key.getBytes(StandardCharsets.UTF_8)));

    private final int maxMemories;
    private final LinkedHashMap<String, TreeMap<String, Memory>> users = new LinkedHashMap<>(16, 0.75f, true);
    private int size;
    /** The users with an entry in the store, in store order; null until {@link #users} first scanned the store. */
    private TreeSet<String> known;

    UserMemoryCache(final int maxMemories) {
        this.maxMemories = maxMemories;
    }

    /**
     * @param user the user's wire key
     * @param scan reads the user's entries from the store in store order (key, memory), on a miss
     * @return the user's memories in store-key order (a new list the caller may keep)
     */
    List<Memory> memories(final String user, final Supplier<List<Map.Entry<String, Memory>>> scan) {
        TreeMap<String, Memory> cached = users.get(user);
        if (cached == null) {
            cached = new TreeMap<>(STORE_ORDER);
            for (final Map.Entry<String, Memory> entry : scan.get()) {
                cached.put(entry.getKey(), entry.getValue());
            }
            users.put(user, cached);
            size += cached.size();
            evict(user);
        }
        return new ArrayList<>(cached.values());
    }

    /**
     * A user's memories for the lifecycle pass: as {@link #memories}, but a user read from the store is kept only if
     * that evicts no one (the pass reads every user of the task in turn: evicting for it would empty the cache of the
     * users the candidates need when the task holds more than the bound).
     *
     * @param user the user's wire key
     * @param scan reads the user's entries from the store in store order (key, memory), on a miss
     * @return the user's memories in store-key order (a new list the caller may keep)
     */
    List<Memory> memoriesForPass(final String user, final Supplier<List<Map.Entry<String, Memory>>> scan) {
        final TreeMap<String, Memory> cached = users.get(user);
        if (cached != null) {
            return new ArrayList<>(cached.values());
        }
        final List<Map.Entry<String, Memory>> entries = scan.get();
        final List<Memory> out = new ArrayList<>(entries.size());
        final TreeMap<String, Memory> read = new TreeMap<>(STORE_ORDER);
        for (final Map.Entry<String, Memory> entry : entries) {
            read.put(entry.getKey(), entry.getValue());
        }
        out.addAll(read.values());
        if (size + read.size() <= maxMemories) {
            users.put(user, read);
            size += read.size();
        }
        return out;
    }

    /**
     * The users the store holds an entry of: on the first call from one scan of the store, after it kept up by
     * {@link #written} and {@link #forget} (a user whose entries were all deleted one by one may stay listed: its
     * memories are then an empty list).
     *
     * @param scan the wire keys of the users with an entry in the store (any order, repeats allowed), read on the
     *     first call only
     * @return the users in store order (by the UTF-8 bytes of their store prefix, the order of a scan of the whole
     *     store), a new list
     */
    List<String> users(final Supplier<Iterable<String>> scan) {
        if (known == null) {
            known = new TreeSet<>(Comparator.comparing((String user) -> user + UserKey.STORE_SEPARATOR, STORE_ORDER));
            scan.get().forEach(known::add);
        }
        return new ArrayList<>(known);
    }

    /**
     * One memory, from the cache when its user is cached (which holds every entry of the user's: absent there is
     * absent in the store), else from the store (without filling the cache).
     *
     * @param storeKey the memory's key ({@link UserKey#storeKey})
     * @param store reads one key from the store
     * @return the memory, or null when the store has none
     */
    Memory get(final String storeKey, final java.util.function.Function<String, Memory> store) {
        final int separator = storeKey.indexOf(UserKey.STORE_SEPARATOR);
        final TreeMap<String, Memory> cached = separator < 0 ? null : users.get(storeKey.substring(0, separator));
        return cached == null ? store.apply(storeKey) : cached.get(storeKey);
    }

    /**
     * Records a write to the store, to be called with every put and delete of {@link StoreNames#MEMORIES}.
     *
     * @param storeKey the key written ({@link UserKey#storeKey})
     * @param memory the value written, or null for a delete
     */
    void written(final String storeKey, final Memory memory) {
        final int separator = storeKey.indexOf(UserKey.STORE_SEPARATOR);
        if (separator < 0) {
            return;
        }
        final String user = storeKey.substring(0, separator);
        if (known != null && memory != null) {
            known.add(user);
        }
        final TreeMap<String, Memory> cached = users.get(user);
        if (cached == null) {
            return; // not cached: the next read scans the store, which has the write
        }
        final Memory previous = memory == null ? cached.remove(storeKey) : cached.put(storeKey, memory);
        size += (memory == null ? 0 : 1) - (previous == null ? 0 : 1);
    }

    /** @param user a user's wire key whose entries were all removed from the store (erasure) */
    void forget(final String user) {
        if (known != null) {
            known.remove(user);
        }
        final TreeMap<String, Memory> cached = users.remove(user);
        if (cached != null) {
            size -= cached.size();
        }
    }

    /** @return memories held, over all users */
    int size() {
        return size;
    }

    private void evict(final String keep) {
        final Iterator<Map.Entry<String, TreeMap<String, Memory>>> eldest = users.entrySet().iterator();
        while (size > maxMemories && eldest.hasNext()) {
            final Map.Entry<String, TreeMap<String, Memory>> entry = eldest.next();
            if (!entry.getKey().equals(keep)) {
                size -= entry.getValue().size();
                eldest.remove();
            }
        }
    }

    /**
     * The caches of one topology's tasks: the two processors of a task get the same cache; the first processor
     * initialized after both had joined starts the task's next incarnation with an empty one (whether or not the
     * previous incarnation's processors were closed).
     */
    static final class Registry {
        private static final int PROCESSORS = 2;
        private final Map<String, Shared> tasks = new ConcurrentHashMap<>();
        private final int maxMemories;

        /** @param maxMemories the bound of each task's cache */
        Registry(final int maxMemories) {
            this.maxMemories = maxMemories;
        }

        /**
         * @param context the initializing processor's context
         * @return the cache of its task incarnation
         */
        UserMemoryCache join(final ProcessorContext<?, ?> context) {
            return tasks.compute(taskKey(context), (k, current) -> {
                final Shared shared = current == null || current.joined >= PROCESSORS
                    ? new Shared(new UserMemoryCache(maxMemories)) : current;
                shared.joined++;
                return shared;
            }).cache;
        }

        /**
         * @param context the closing processor's context
         * @param cache the cache it joined
         */
        void leave(final ProcessorContext<?, ?> context, final UserMemoryCache cache) {
            tasks.computeIfPresent(taskKey(context), (k, shared) -> shared.cache == cache && ++shared.left >= PROCESSORS ? null : shared);
        }

        /**
         * @param context a processor's context
         * @return its task incarnation's key: taskId alone is not unique when one Topology runs in several drivers or
         *     clients of one JVM, so with the state directory
         */
        static String taskKey(final ProcessorContext<?, ?> context) {
            return context.taskId() + "@" + context.stateDir().getAbsolutePath();
        }

        private static final class Shared {
            private final UserMemoryCache cache;
            private int joined;
            private int left;

            Shared(final UserMemoryCache cache) {
                this.cache = cache;
            }
        }
    }
}
