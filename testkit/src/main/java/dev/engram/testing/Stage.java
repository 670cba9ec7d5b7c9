package dev.engram.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.UserProfile;
import dev.engram.core.UserKey;
import dev.engram.scoring.AccessCounts;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The memories, profiles and access (retrieval hits) state stores of one app of a {@link PipelineHarness}: the
 * consolidator's ({@link PipelineHarness#consolidator()}) or the retriever's read model
 * ({@link PipelineHarness#retriever()}). Every read goes to the live store of the app's TopologyTestDriver.
 */
public final class Stage {
    private final Supplier<TopologyTestDriver> driver;
    private final String memoriesStore;
    private final String profilesStore;
    private final String accessStore;

    Stage(final Supplier<TopologyTestDriver> driver, final String memoriesStore, final String profilesStore,
              final String accessStore) {
        this.driver = driver;
        this.memoriesStore = memoriesStore;
        this.profilesStore = profilesStore;
        this.accessStore = accessStore;
    }

    /**
     * @param user {@code tenant/user}
     * @param memoryId memory id
     * @return the memory's retrieval hits in this stage's access store, {@link AccessCounts#NONE} for none
     */
    public AccessCounts hits(final String user, final String memoryId) {
        final AccessCounts counts = driver.get().<String, AccessCounts>getKeyValueStore(accessStore)
            .get(UserKey.parse(user).storeKey(memoryId));
        return counts == null ? AccessCounts.NONE : counts;
    }

    /**
     * @param user {@code tenant/user}
     * @param memoryId memory id
     * @return that memory as a reader sees it (its counters joined with its hits), or null
     */
    public Memory joined(final String user, final String memoryId) {
        final Memory memory = memory(user, memoryId);
        return memory == null ? null : hits(user, memoryId).applyTo(memory);
    }

    /**
     * @param user {@code tenant/user}
     * @return the user's memories, every status, in store-key order
     */
    public List<Memory> memories(final String user) {
        final List<Memory> out = new ArrayList<>();
        try (KeyValueIterator<String, Memory> it = memories().prefixScan(UserKey.parse(user).storePrefix(),
            new StringSerializer())) {
            it.forEachRemaining(kv -> out.add(kv.value));
        }
        return out;
    }

    /**
     * @param user {@code tenant/user}
     * @return the user's ACTIVE memories
     */
    public List<Memory> active(final String user) {
        return memories(user).stream().filter(m -> m.getStatus() == MemoryStatus.ACTIVE).toList();
    }

    /**
     * @param user {@code tenant/user}
     * @param memoryId memory id
     * @return that memory, or null
     */
    public Memory memory(final String user, final String memoryId) {
        return memories().get(UserKey.parse(user).storeKey(memoryId));
    }

    /**
     * @param user {@code tenant/user}
     * @return the user's profile, or null
     */
    public UserProfile profile(final String user) {
        return profiles().get(UserKey.parse(user).wire());
    }

    /** @return the whole memories store, store key → memory, sorted (a snapshot for equality) */
    public Map<String, Memory> memoriesStore() {
        return all(memories());
    }

    /** @return the whole profiles store, user key → profile, sorted */
    public Map<String, UserProfile> profilesStore() {
        return all(profiles());
    }

    private KeyValueStore<String, Memory> memories() {
        return driver.get().getKeyValueStore(memoriesStore);
    }

    private KeyValueStore<String, UserProfile> profiles() {
        return driver.get().getKeyValueStore(profilesStore);
    }

    private static <V> Map<String, V> all(final KeyValueStore<String, V> store) {
        final Map<String, V> out = new TreeMap<>();
        try (KeyValueIterator<String, V> it = store.all()) {
            it.forEachRemaining(kv -> out.put(kv.key, kv.value));
        }
        return out;
    }
}
