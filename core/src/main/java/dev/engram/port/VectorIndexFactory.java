package dev.engram.port;

import dev.engram.avro.Memory;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Opens the {@link VectorIndex} a consolidation task searches. Called once per task when its
 * processor is initialised, with that task's memories store.
 *
 * <p>The embedded factory returns an index over the store itself (exact cosine, so the store is the
 * index and read-your-own-writes holds by construction); a Qdrant factory ignores the store and
 * returns a client-backed index that the processor keeps up to date through
 * {@link VectorIndex#upsert(Memory)}.
 */
@FunctionalInterface
public interface VectorIndexFactory {

    /**
     * @param memoriesStore the task's {@code memories-by-user-store}: {@code <user key>\0<memory id>}
     *     → Memory, every status
     * @return the index the task searches; never null
     */
    VectorIndex open(ReadOnlyKeyValueStore<String, Memory> memoriesStore);
}
