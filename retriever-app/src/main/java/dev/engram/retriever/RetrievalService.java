package dev.engram.retriever;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UserProfile;
import dev.engram.core.UserKey;
import dev.engram.runtime.ApiProblem;
import dev.engram.scoring.AccessCounts;
import dev.engram.scoring.SearchIndexes;
import dev.engram.scoring.UserMemoryIndex;
import dev.engram.topology.MaterializeMemoriesProcessor;
import dev.engram.topology.StoreNames;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.StreamsNotStartedException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads the retriever's stores with Interactive Queries. The one code path through which memories are
 * read: every read names one {@link UserKey} and is a prefix scan of that user's keys
 * ({@code tenant/user\0}), so no request can reach another user's memories (case-05).
 *
 * <p>Ownership: a user's memories live on the instance that owns the user's partition of
 * {@code memory-updated} (partitioned by the user key). {@link #remoteOwner(UserKey)} tells whether
 * another instance owns it, so the HTTP layer can forward (confluentinc/kafka-streams-examples'
 * "this host, or forward to the owner"). StoreNames not queryable yet (starting, rebalancing, restoring)
 * → {@link ApiProblem} 503 with Retry-After; so is "unknown" ({@link #unknown}) until the instance has read its
 * backlog of {@code memory-updated} once after its start ({@link CatchUp}).
 */
public final class RetrievalService {

    /** Seconds a client should wait before retrying while stores are not queryable. */
    public static final long RETRY_AFTER_SECONDS = 1;

    private final Supplier<KafkaStreams> streams;
    private final Supplier<HostInfo> self;
    private final SearchIndexes indexes;
    private final CatchUp catchUp;

    /**
     * @param streams the running Kafka Streams client (null until started)
     * @param self this instance's {@code application.server} (null until the HTTP port is bound)
     * @param indexes the search structures the retrieval topology keeps for the owned partitions
     * @param catchUp whether this instance has read its backlog once since it started
     */
    RetrievalService(final Supplier<KafkaStreams> streams, final Supplier<HostInfo> self,
                     final SearchIndexes indexes, final CatchUp catchUp) {
        this.streams = streams;
        this.self = self;
        this.indexes = indexes;
        this.catchUp = catchUp;
    }

    /** @return true once this instance has read {@code memory-updated} up to where it ended at the start */
    public boolean caughtUp() {
        return catchUp.caughtUp();
    }

    /**
     * The answer for a user or memory this instance does not hold: 404 once it has caught up and the user's
     * partition is loaded here; otherwise it cannot tell "unknown" from "not read yet", so 503 with Retry-After.
     * Three such windows: after the start, until the backlog of {@code memory-updated} is read ({@link CatchUp});
     * after the user's partition moved here, until what its old owner had not processed is read ({@link
     * CatchUp#partitionCaughtUp}); and while the user's partition is being restored (a rebalance, or a task Kafka Streams closed as corrupted under
     * exactly-once and restores from its changelog while the client stays RUNNING): the stores then silently leave
     * the partition out, so a store lookup finds nothing for a user it holds.
     *
     * @param user the user the lookup was for
     * @param detail the 404's detail, e.g. {@code No memory m-1 for this user}
     * @return the problem to throw
     */
    public ApiProblem unknown(final UserKey user, final String detail) {
        if (!catchUp.caughtUp()) {
            final long behind = catchUp.behind();
            return ApiProblem.unavailable("This retriever instance is still reading memory-updated after its start"
                + (behind > 0 ? " (" + behind + " events behind)" : "") + "; retry shortly.", RETRY_AFTER_SECONDS);
        }
        final int partition = loadedPartition(user);
        if (partition < 0) {
            return notReady();
        }
        if (!catchUp.partitionCaughtUp(partition)) {
            return catchUp.lagOf(partition).map(lag -> ApiProblem.unavailable("This retriever instance is behind on "
                + "memory-updated for this user: " + lag + "; it cannot tell an unknown user from one not read yet; "
                + "retry shortly.", RETRY_AFTER_SECONDS)).orElseGet(RetrievalService::notReady);
        }
        return ApiProblem.notFound(detail);
    }

    /** @return the user's partition when it is owned and loaded here (its stores and search index complete), else -1 */
    private int loadedPartition(final UserKey user) {
        final KafkaStreams client = streams.get();
        if (client == null) {
            return -1;
        }
        final KeyQueryMetadata metadata;
        try {
            metadata = client.queryMetadataForKey(StoreNames.RETRIEVER_MEMORIES, user.wire(), Serdes.String().serializer());
        } catch (StreamsNotStartedException | IllegalStateException e) {
            return -1;
        }
        return metadata != null && !KeyQueryMetadata.NOT_AVAILABLE.equals(metadata)
            && indexes.isLoaded(metadata.partition()) ? metadata.partition() : -1;
    }

    /**
     * The user's kept search structures, on the instance that owns the user (call after
     * {@link #remoteOwner} said this one does).
     *
     * @param user a user
     * @return the user's index; empty when the user has no memory here
     * @throws ApiProblem 503 while the user's partition is not loaded (restoring, rebalancing)
     */
    public Optional<UserMemoryIndex> searchIndex(final UserKey user) {
        final KeyQueryMetadata metadata;
        try {
            metadata = client().queryMetadataForKey(StoreNames.RETRIEVER_MEMORIES, user.wire(), Serdes.String().serializer());
        } catch (StreamsNotStartedException | IllegalStateException e) {
            throw notReady();
        }
        if (metadata == null || KeyQueryMetadata.NOT_AVAILABLE.equals(metadata) || !indexes.isLoaded(metadata.partition())) {
            throw notReady();
        }
        return indexes.get(user);
    }

    /**
     * @param user a user
     * @return the instance that owns the user if it is not this one; empty when this one does
     * @throws ApiProblem 503 when ownership is not known yet (rebalancing, not started)
     */
    public Optional<HostInfo> remoteOwner(final UserKey user) {
        final KafkaStreams client = client();
        final KeyQueryMetadata metadata;
        try {
            metadata = client.queryMetadataForKey(StoreNames.RETRIEVER_MEMORIES, user.wire(), Serdes.String().serializer());
        } catch (StreamsNotStartedException | IllegalStateException e) {
            throw notReady();
        }
        if (metadata == null || KeyQueryMetadata.NOT_AVAILABLE.equals(metadata)
            || metadata.activeHost() == null || HostInfo.unavailable().equals(metadata.activeHost())) {
            throw notReady();
        }
        final HostInfo me = self.get();
        return me == null || metadata.activeHost().equals(me) ? Optional.empty() : Optional.of(metadata.activeHost());
    }

    /**
     * @param user a user
     * @return all of the user's memories in this instance's store (every stored status), in key order
     * @throws ApiProblem 503 when the store is not queryable
     */
    public List<Memory> memories(final UserKey user) {
        final List<Memory> out = new ArrayList<>();
        final Map<String, AccessCounts> hits = hits(user);
        try (KeyValueIterator<String, Memory> it = this.<Memory>store(StoreNames.RETRIEVER_MEMORIES)
            .prefixScan(user.storePrefix(), Serdes.String().serializer())) {
            // null: an entry whose data key is already erased (its ERASED event is on the way)
            it.forEachRemaining(kv -> addPresent(out, kv.value == null ? null
                : hits.getOrDefault(kv.value.getMemoryId(), AccessCounts.NONE).applyTo(kv.value)));
        } catch (InvalidStateStoreException e) {
            throw notReady();
        }
        return out;
    }

    /**
     * @param user a user
     * @param memoryId a memory id
     * @return the memory, if this user has it, its counters joined with its retrieval hits
     */
    public Optional<Memory> memory(final UserKey user, final String memoryId) {
        try {
            final Memory memory = this.<Memory>store(StoreNames.RETRIEVER_MEMORIES).get(user.storeKey(memoryId));
            if (memory == null) {
                return Optional.empty();
            }
            final AccessCounts hits = this.<AccessCounts>store(StoreNames.RETRIEVER_ACCESS).get(user.storeKey(memoryId));
            return Optional.of(hits == null ? memory : hits.applyTo(memory));
        } catch (InvalidStateStoreException e) {
            throw notReady();
        }
    }

    /** The user's retrieval hits by memory id ({@link StoreNames#RETRIEVER_ACCESS}: joined with the memories read). */
    private Map<String, AccessCounts> hits(final UserKey user) {
        final Map<String, AccessCounts> out = new java.util.HashMap<>();
        try (KeyValueIterator<String, AccessCounts> it = this.<AccessCounts>store(StoreNames.RETRIEVER_ACCESS)
            .prefixScan(user.storePrefix(), Serdes.String().serializer())) {
            it.forEachRemaining(kv -> {
                if (kv.value != null) {
                    out.put(kv.key.substring(user.storePrefix().length()), kv.value);
                }
            });
        } catch (InvalidStateStoreException e) {
            throw notReady();
        }
        return out;
    }

    /**
     * @param user a user
     * @param memoryId a memory id
     * @return the memory's versions (memory-updated events, embedding stripped), oldest first (the latest
     *     ACCESSED version, the only one kept, at its event time among the others); empty when this user has no
     *     such memory
     */
    public List<MemoryUpdated> history(final UserKey user, final String memoryId) {
        final List<MemoryUpdated> out = new ArrayList<>();
        try (KeyValueIterator<String, MemoryUpdated> it = this.<MemoryUpdated>store(StoreNames.RETRIEVER_HISTORY)
            .prefixScan(MaterializeMemoriesProcessor.historyPrefix(user, memoryId), Serdes.String().serializer())) {
            it.forEachRemaining(kv -> addPresent(out, kv.value));
        } catch (InvalidStateStoreException e) {
            throw notReady();
        }
        // the keys order every version by event time but the access version, kept under one key: a stable sort
        out.sort(java.util.Comparator.comparing(MemoryUpdated::getEventTime));
        return out;
    }

    private static <T> void addPresent(final List<T> out, final T value) {
        if (value != null) {
            out.add(value);
        }
    }

    /**
     * @param user a user
     * @return the user's profile, empty for a user the retriever has never seen (or erased)
     */
    public Optional<UserProfile> profile(final UserKey user) {
        try {
            return Optional.ofNullable(this.<UserProfile>store(StoreNames.RETRIEVER_PROFILES).get(user.wire()));
        } catch (InvalidStateStoreException e) {
            throw notReady();
        }
    }

    /**
     * What this instance's read model holds of one user, for the erasure check.
     *
     * @param user a user
     * @return store name → entries under the user's keys (readable and unreadable: an entry whose data key is
     *     erased still counts until its ERASED event removes it), and {@code erasedAt} (ms) when the ledger has it
     */
    public Map<String, Long> held(final UserKey user) {
        final Map<String, Long> out = new java.util.LinkedHashMap<>();
        try {
            for (final String name : List.of(StoreNames.RETRIEVER_MEMORIES, StoreNames.RETRIEVER_HISTORY, StoreNames.RETRIEVER_ACCESS)) {
                long count = 0;
                try (KeyValueIterator<String, Object> it = this.<Object>store(name)
                    .prefixScan(user.storePrefix(), Serdes.String().serializer())) {
                    while (it.hasNext()) {
                        it.next();
                        count++;
                    }
                }
                out.put(name, count);
            }
            out.put(StoreNames.RETRIEVER_PROFILES, this.<UserProfile>store(StoreNames.RETRIEVER_PROFILES).get(user.wire()) == null ? 0L : 1L);
            final Long erasedAt = this.<Long>store(StoreNames.RETRIEVER_ERASURES).get(user.wire());
            if (erasedAt != null) {
                out.put("erasedAt", erasedAt);
            }
        } catch (InvalidStateStoreException e) {
            throw notReady();
        }
        return out;
    }

    private <V> ReadOnlyKeyValueStore<String, V> store(final String name) {
        try {
            return client().store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<String, V>keyValueStore()));
        } catch (InvalidStateStoreException | IllegalStateException e) {
            throw notReady();
        }
    }

    private KafkaStreams client() {
        final KafkaStreams client = streams.get();
        if (client == null) {
            throw notReady();
        }
        return client;
    }

    private static ApiProblem notReady() {
        return ApiProblem.unavailable("The memory store is not ready yet (starting or rebalancing); retry shortly.",
            RETRY_AFTER_SECONDS);
    }
}
