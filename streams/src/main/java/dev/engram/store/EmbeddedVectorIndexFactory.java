package dev.engram.store;

import dev.engram.avro.Memory;
import dev.engram.port.VectorIndex;
import dev.engram.port.VectorIndexFactory;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/** The embedded default: a {@link StoreVectorIndex} over the consolidation task's memories store. */
public final class EmbeddedVectorIndexFactory implements VectorIndexFactory {

    /**
     * @param memoriesStore the task's memories store
     * @return an exact-cosine index over it
     */
    @Override
    public VectorIndex open(final ReadOnlyKeyValueStore<String, Memory> memoriesStore) {
        return new StoreVectorIndex(memoriesStore);
    }
}
