package dev.engram.qdrant;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndex;
import dev.engram.port.VectorIndexFactory;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Opens the consolidator's per-task view of one shared {@link QdrantVectorIndex}.
 *
 * <p>Qdrant ranks, the task's state store decides: each hit is replaced by the store's current memory
 * with that id (the full state: sources, embedding, counters), and a hit the store does not hold, or
 * holds in another status than asked, is dropped. Such a point is ahead of the store: it was written
 * for a record whose transaction was then aborted, and the same record will write it again when it is
 * reprocessed (writes are idempotent, ids deterministic). So a decision only ever sees committed state,
 * as with the embedded index. Upserts and deletes go straight to Qdrant.
 */
public final class QdrantVectorIndexFactory implements VectorIndexFactory, AutoCloseable {

    private final QdrantVectorIndex index;

    /** @param index the shared index (owned: closed by {@link #close()}) */
    public QdrantVectorIndexFactory(final QdrantVectorIndex index) {
        this.index = Objects.requireNonNull(index, "index");
    }

    /** @return the shared index */
    public QdrantVectorIndex index() {
        return index;
    }

    /**
     * @param memoriesStore the task's memories store ({@code <user key>\0<memory id>} → Memory)
     * @return the task's view: Qdrant search resolved against the store
     */
    @Override
    public VectorIndex open(final ReadOnlyKeyValueStore<String, Memory> memoriesStore) {
        return new StoreResolved(index, memoriesStore);
    }

    /** Closes the shared client. */
    @Override
    public void close() {
        index.close();
    }

    /** Qdrant search, hits replaced by the task store's state. */
    private record StoreResolved(QdrantVectorIndex index, ReadOnlyKeyValueStore<String, Memory> store)
        implements VectorIndex {

        @Override
        public List<Hit> search(final Query query) {
            final List<Hit> hits = index.search(query);
            final List<Hit> out = new ArrayList<>(hits.size());
            for (final Hit hit : hits) {
                final Memory current = store.get(query.user().storeKey(hit.memory().getMemoryId()));
                if (current == null || query.activeOnly() && current.getStatus() != MemoryStatus.ACTIVE) {
                    continue;
                }
                out.add(new Hit(current, hit.similarity()));
            }
            return List.copyOf(out);
        }

        @Override
        public void upsert(final Memory memory) {
            index.upsert(memory);
        }

        @Override
        public void delete(final UserKey user, final String memoryId) {
            index.delete(user, memoryId);
        }

        @Override
        public void deleteUser(final UserKey user) {
            index.deleteUser(user);
        }
    }
}
