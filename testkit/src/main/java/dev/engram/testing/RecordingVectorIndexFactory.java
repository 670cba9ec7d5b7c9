package dev.engram.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.engram.avro.Memory;
import dev.engram.core.UserKey;
import dev.engram.store.StoreVectorIndex;
import dev.engram.port.VectorIndex;
import dev.engram.port.VectorIndexFactory;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * A vector-index stub standing in for an external index such as Qdrant: searches go to the embedded
 * {@link StoreVectorIndex} over the task's store, while every {@code upsert}, {@code delete} and
 * {@code deleteUser} is applied to an in-memory point set ({@code <user key>\0<memory id>} → memory)
 * and recorded, so tests can count the points a user still has and see which users were dropped.
 * The {@link VectorIndex} port has no collection reset; {@link #deletedUsers()} lists every user-wide
 * delete, so "no reset" means exactly the erased users appear there. Thread-safe.
 */
public final class RecordingVectorIndexFactory implements VectorIndexFactory {

    private final Map<String, Memory> points = new ConcurrentHashMap<>();
    private final List<UserKey> deletedUsers = new CopyOnWriteArrayList<>();

    @Override
    public VectorIndex open(final ReadOnlyKeyValueStore<String, Memory> memoriesStore) {
        final StoreVectorIndex search = new StoreVectorIndex(memoriesStore);
        return new VectorIndex() {
            @Override
            public List<Hit> search(final Query query) {
                return search.search(query);
            }

            @Override
            public void upsert(final Memory memory) {
                points.put(new UserKey(memory.getTenantId(), memory.getUserId()).storeKey(memory.getMemoryId()), memory);
            }

            @Override
            public void delete(final UserKey user, final String memoryId) {
                points.remove(user.storeKey(memoryId));
            }

            @Override
            public void deleteUser(final UserKey user) {
                deletedUsers.add(user);
                points.keySet().removeIf(k -> k.startsWith(user.storePrefix()));
            }
        };
    }

    /**
     * @param user a user
     * @return the user's points, in no particular order
     */
    public List<Memory> points(final UserKey user) {
        final List<Memory> out = new ArrayList<>();
        points.forEach((k, v) -> {
            if (k.startsWith(user.storePrefix())) {
                out.add(v);
            }
        });
        return out;
    }

    /**
     * @param user a user
     * @param memoryId a memory id
     * @return whether the index holds that point
     */
    public boolean has(final UserKey user, final String memoryId) {
        return points.containsKey(user.storeKey(memoryId));
    }

    /** @return every user passed to {@code deleteUser}, in call order */
    public List<UserKey> deletedUsers() {
        return List.copyOf(deletedUsers);
    }
}
