package dev.engram.topology;

import java.util.Properties;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.crypto.PersonalSerdes;
import dev.engram.scoring.SearchIndexes;
import dev.engram.streams.PipelineConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import dev.engram.profile.ProfileProjection;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * The retriever's read model: materializes {@code memory-updated} into the retriever's own state
 * stores, which the HTTP API queries with Interactive Queries.
 *
 * <ul>
 *   <li>inputs: {@code MEMORY_UPDATED}, key {@code tenant/user} (String), value MemoryUpdated; and
 *       {@code MEMORY_ACCESS} (the retriever's own hits, same key, co-partitioned), value MemoryAccessed;</li>
 *   <li>processor {@code materialize-memories} ({@link MaterializeMemoriesProcessor}) owning
 *       <ul>
 *         <li>{@link StoreNames#RETRIEVER_MEMORIES}: {@code <user key>\0<memory id>} → Memory, the latest
 *             state of every memory of every status except DELETED (a delete removes the entry);
 *             an ERASED event removes all of the user's entries;</li>
 *         <li>{@link StoreNames#RETRIEVER_HISTORY}: every version of every memory, for the history view;</li>
 *         <li>{@link StoreNames#RETRIEVER_PROFILES}: user key → UserProfile, folded with
 *             {@link ProfileProjection#apply} (the consolidator's fold, so both agree);</li>
 *         <li>{@link StoreNames#RETRIEVER_ERASURES}: user key → erasure time (ms), so replayed events of an
 *             erased user are dropped.</li>
 *       </ul></li>
 *   <li>processor {@code count-memory-access} ({@link CountMemoryAccessProcessor}) folding the hits into
 *       {@link StoreNames#RETRIEVER_ACCESS} ({@code <user key>\0<memory id>} → hits and latest access time), joined
 *       with the memories at read time: an access never rewrites a memory;</li>
 *   <li>no output topic; all five stores are changelogged (restored on restart, standby-able).</li>
 * </ul>
 * Per-user stores are keyed so that one {@code prefixScan(userKey.storePrefix())} returns exactly
 * one user's memories: the tenant and user scope is applied inside the store read.
 */
public final class RetrievalTopology {

    /** Source node reading memory-updated. */
    public static final String SOURCE = "read-memory-updated";
    /** The processor that owns the four stores. */
    public static final String PROCESSOR = "materialize-memories";
    /** Source node reading memory-access (the retriever's own hits). */
    public static final String ACCESS_SOURCE = "read-memory-access";
    /** The processor folding the hits into {@link StoreNames#RETRIEVER_ACCESS}. */
    public static final String ACCESS_PROCESSOR = "count-memory-access";

    private RetrievalTopology() {
    }

    /**
     * @param config the Engram config (not used yet: the read model has no tunables)
     * @return the topology, keeping search structures nobody queries (tests of the stores alone)
     */
    public static Topology build(final EngramConfig config) {
        return build(config, new SearchIndexes());
    }

    /**
     * @param config the Engram config (not used yet: the read model has no tunables)
     * @param indexes the search structures the processor keeps in step with the memory store (the
     *     retriever's request path reads them)
     * @return the topology
     */
    public static Topology build(final EngramConfig config, final SearchIndexes indexes) {
        final Topology topology = new Topology();
        topology.addSource(SOURCE, Topic.MEMORY_UPDATED.keyDeserializer(), Topic.MEMORY_UPDATED.valueDeserializer(config),
            Topic.MEMORY_UPDATED.name());
        topology.addProcessor(PROCESSOR, () -> new MaterializeMemoriesProcessor(indexes), SOURCE);
        topology.addSource(ACCESS_SOURCE, Topic.MEMORY_ACCESS.keyDeserializer(), Topic.MEMORY_ACCESS.valueDeserializer(config),
            Topic.MEMORY_ACCESS.name());
        topology.addProcessor(ACCESS_PROCESSOR, () -> new CountMemoryAccessProcessor(indexes), ACCESS_SOURCE);
        // a memory and its user's profile are rewritten by every event of theirs (a profile by each of the user's
        // events, a memory by each reinforcement, archive, merge …): cached, as the consolidator's stores are, so a commit
        // interval's versions of one key reach RocksDB and the changelog once. Without it a replay of memory-updated
        // (bin/engram rebuild) wrote 2.7 times as many changelog bytes as it read, most of them these two stores'
        // intermediate versions. Reads (the processor's, interactive queries) go through the cache: what is served is
        // the same
        topology.addStateStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
            org.apache.kafka.streams.state.Stores.persistentKeyValueStore(StoreNames.RETRIEVER_MEMORIES),
            Serdes.String(), PersonalSerdes.store(Memory.class, config, Topic.DATA_KEYS.name())).withCachingEnabled(),
            PROCESSOR);
        topology.addStateStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
            org.apache.kafka.streams.state.Stores.persistentKeyValueStore(StoreNames.RETRIEVER_PROFILES),
            Serdes.String(), PersonalSerdes.store(UserProfile.class, config, Topic.DATA_KEYS.name())).withCachingEnabled(),
            PROCESSOR);
        topology.addStateStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
            org.apache.kafka.streams.state.Stores.persistentKeyValueStore(StoreNames.RETRIEVER_HISTORY),
            Serdes.String(), PersonalSerdes.store(MemoryUpdated.class, config, Topic.DATA_KEYS.name())), PROCESSOR);
        topology.addStateStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
            org.apache.kafka.streams.state.Stores.persistentKeyValueStore(StoreNames.RETRIEVER_ERASURES),
            Serdes.String(), Serdes.Long()), PROCESSOR, ACCESS_PROCESSOR);
        // ids and counts, rewritten on every hit: cached, so a commit interval's hits of a memory reach the changelog once
        topology.addStateStore(org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
            org.apache.kafka.streams.state.Stores.persistentKeyValueStore(StoreNames.RETRIEVER_ACCESS),
            Serdes.String(), AccessCountsSerde.serde()).withCachingEnabled(), PROCESSOR, ACCESS_PROCESSOR);
        return topology;
    }

    /**
     * Streams properties of the retriever: {@link StreamsSettings#forApp} plus
     * {@code application.server} = {@code retriever.http.host:retriever.http.port}, which other
     * instances use to forward a request to the owner of a user.
     *
     * @param config the Engram config; give the bound port when the configured one is 0
     * @return the properties
     */
    public static Properties config(final EngramConfig config) {
        final Properties props = StreamsSettings.forApp(config, AppIds.RETRIEVER);
        props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, config.getString(PipelineConfig.RETRIEVER_HTTP_HOST)
            + ":" + config.getInt(PipelineConfig.RETRIEVER_HTTP_PORT));
        return props;
    }
}
