package dev.engram.store;

import java.util.ArrayList;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndex;
import dev.engram.testing.VectorIndexContract;
import dev.engram.serde.AvroSerdes;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/** The {@link VectorIndexContract} on the embedded index over an in-memory store. */
class StoreVectorIndexContractTest extends VectorIndexContract {

    @Override
    protected Subject subject() {
        final KeyValueStore<String, Memory> store = Stores.keyValueStoreBuilder(
            Stores.inMemoryKeyValueStore("memories-by-user-store"), Serdes.String(), AvroSerdes.serde(Memory.class))
            .withLoggingDisabled().build();
        store.init(new MockProcessorContext<String, Memory>().getStateStoreContext(), store);
        final StoreVectorIndex index = new StoreVectorIndex(store);
        return new Subject() {
            @Override
            public VectorIndex index() {
                return index;
            }

            @Override
            public void write(final Memory memory) {
                store.put(new UserKey(memory.getTenantId(), memory.getUserId()).storeKey(memory.getMemoryId()), memory);
                index.upsert(memory);
            }

            @Override
            public void remove(final UserKey user, final String memoryId) {
                store.delete(user.storeKey(memoryId));
                index.delete(user, memoryId);
            }

            @Override
            public void removeUser(final UserKey user) {
                final List<String> keys = new ArrayList<>();
                try (KeyValueIterator<String, Memory> it = store.prefixScan(user.storePrefix(), Serdes.String().serializer())) {
                    it.forEachRemaining((KeyValue<String, Memory> kv) -> keys.add(kv.key));
                }
                keys.forEach(store::delete);
                index.deleteUser(user);
            }

            @Override
            public void close() {
                store.close();
            }
        };
    }
}
