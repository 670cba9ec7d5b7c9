package dev.engram.scoring;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.engram.avro.Memory;
import dev.engram.core.UserKey;

/**
 * The retriever's search structures for the users of the partitions this instance owns: one
 * {@link UserMemoryIndex} per user, a derived view of {@code retriever-memories-store}.
 *
 * <p>Life cycle, driven by the materializing processor of each task (one task per input partition):
 * when a task starts (after Kafka Streams has restored its stores from the changelog), it
 * {@link #beginLoad begins} its partition, re-adds every memory of its local store and
 * {@link #loaded marks} the partition loaded; every {@code memory-updated} then goes through
 * {@link #put} / {@link #remove} / {@link #erase}, and every fold of {@code memory-access} through {@link #access};
 * when the task closes (revoked, migrated, shut down) the
 * partition's users are {@link #dropPartition dropped}. So the view answers for owned, loaded partitions
 * only and is never a second source of truth: a restart, rebalance or rebuild restores it from the store.
 *
 * <p>Thread-safe: the stream threads write, request threads read.
 */
public final class SearchIndexes {

    private final ConcurrentHashMap<UserKey, UserMemoryIndex> byUser = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, Set<UserKey>> usersByPartition = new ConcurrentHashMap<>();
    private final Set<Integer> loaded = ConcurrentHashMap.newKeySet();
    private final boolean kept;

    /** Search structures kept for every owned partition (what a serving retriever needs). */
    public SearchIndexes() {
        this(true);
    }

    private SearchIndexes(final boolean kept) {
        this.kept = kept;
    }

    /**
     * Search structures that are never built: {@link #put} and {@link #access} keep nothing and no partition is ever
     * {@link #isLoaded loaded}, so the materializing processor reads a memory's previous state from its store. For a
     * read model that serves no query: {@code bin/engram rebuild} rebuilding a retriever's stores, where indexing every
     * memory's text (a third of its stream threads' time) was thrown away with the process.
     *
     * @return structures that hold nothing
     */
    public static SearchIndexes none() {
        return new SearchIndexes(false);
    }

    /**
     * Starts (re)building a partition: drops what was held for it; not {@link #isLoaded} until
     * {@link #loaded}.
     *
     * @param partition the task's input partition
     */
    public void beginLoad(final int partition) {
        dropPartition(partition);
    }

    /**
     * @param partition a partition whose memories have all been re-added since {@link #beginLoad}
     */
    public void loaded(final int partition) {
        if (kept) {
            loaded.add(partition);
        }
    }

    /**
     * @param partition an input partition
     * @return whether its users' indexes are complete (owned and loaded)
     */
    public boolean isLoaded(final int partition) {
        return loaded.contains(partition);
    }

    /**
     * Forgets a partition's users (its task closed).
     *
     * @param partition the partition
     */
    public void dropPartition(final int partition) {
        loaded.remove(partition);
        final Set<UserKey> users = usersByPartition.remove(partition);
        if (users != null) {
            users.forEach(byUser::remove);
        }
    }

    /**
     * @param partition the partition of the user's events
     * @param user the user
     * @param memory the memory's state after an event (any status but DELETED)
     */
    public void put(final int partition, final UserKey user, final Memory memory) {
        if (kept) {
            index(partition, user).put(memory);
        }
    }

    private UserMemoryIndex index(final int partition, final UserKey user) {
        return byUser.computeIfAbsent(user, u -> {
            usersByPartition.computeIfAbsent(partition, p -> ConcurrentHashMap.newKeySet()).add(u);
            return new UserMemoryIndex();
        });
    }

    /**
     * A memory's retrieval hits changed (or were restored): ranking and answers join them with the memory from now on.
     *
     * @param partition the partition of the user's events
     * @param user the user
     * @param memoryId the memory (held now or not: the counts wait for it)
     * @param counts its hits so far
     */
    public void access(final int partition, final UserKey user, final String memoryId, final AccessCounts counts) {
        if (kept) {
            index(partition, user).access(memoryId, counts);
        }
    }

    /**
     * @param user the user
     * @param memoryId a deleted memory
     */
    public void remove(final UserKey user, final String memoryId) {
        final UserMemoryIndex index = byUser.get(user);
        if (index != null) {
            index.remove(memoryId);
        }
    }

    /**
     * @param partition the user's partition
     * @param user an erased user: every structure is dropped
     */
    public void erase(final int partition, final UserKey user) {
        byUser.remove(user);
        final Set<UserKey> users = usersByPartition.get(partition);
        if (users != null) {
            users.remove(user);
        }
    }

    /**
     * @param user a user
     * @return the user's index; empty when this instance holds no memory of the user
     */
    public Optional<UserMemoryIndex> get(final UserKey user) {
        return Optional.ofNullable(byUser.get(user));
    }

    /**
     * The state a memory has in the store, read from the index (which holds every stored memory of a loaded
     * partition) instead of decoding the stored record with its embedding.
     *
     * @param user the user
     * @param memoryId a memory id
     * @return the memory without its embedding, or null when the user's index does not hold it
     */
    public Memory memory(final UserKey user, final String memoryId) {
        final UserMemoryIndex index = byUser.get(user);
        return index == null ? null : index.memory(memoryId);
    }

    /** @return users held, over all partitions */
    public int users() {
        return byUser.size();
    }
}
