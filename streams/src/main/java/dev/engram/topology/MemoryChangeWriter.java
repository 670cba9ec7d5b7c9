package dev.engram.topology;

import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.UserProfile;
import dev.engram.consolidation.Consolidator;
import dev.engram.consolidation.Observations;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndex;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import dev.engram.profile.ProfileProjection;

/**
 * Writes one user's memory changes the one way both consolidation processors need: the vector index
 * first (so an unavailable index retries or rewinds the task before anything of the record is
 * written or forwarded, see {@code RetryingVectorIndex}), then {@link StoreNames#MEMORIES} (a DELETED
 * state is a tombstone), the folded profile in {@link StoreNames#PROFILES}, and the events to
 * {@code memory-updated} and the profile to {@code user-profiles}, stamped with the event time. A change of the
 * user's statements marks the user pending in {@link StoreNames#OBSERVATION_PENDING} ({@link ObservationRegroups}). A
 * DELETED memory's retrieval hits are forgotten ({@link AccessStore}).
 */
final class MemoryChangeWriter {

    private final ProcessorContext<String, Object> context;
    private final KeyValueStore<String, Memory> memories;
    private final KeyValueStore<String, UserProfile> profiles;
    private final VectorIndex index;
    private final UserMemoryCache cache;
    private final KeyValueStore<String, Long> observationPending;
    private final AccessStore access;

    /**
     * @param cache the task's decoded memories, told of every store write; null when there is none
     * @param observationPending {@link StoreNames#OBSERVATION_PENDING}, or null when observations are off
     * @param access {@link StoreNames#ACCESS}
     */
    MemoryChangeWriter(final ProcessorContext<String, Object> context, final KeyValueStore<String, Memory> memories,
                       final KeyValueStore<String, UserProfile> profiles, final VectorIndex index,
                       final UserMemoryCache cache, final KeyValueStore<String, Long> observationPending,
                       final AccessStore access) {
        this.access = access;
        this.cache = cache;
        this.observationPending = observationPending;
        this.context = context;
        this.memories = memories;
        this.profiles = profiles;
        this.index = index;
    }

    /**
     * @param user whose memories changed
     * @param changes the changes in order (may be empty: then nothing happens)
     * @param timestamp record timestamp of the forwarded records, ms (the event time)
     */
    void apply(final UserKey user, final List<Consolidator.Change> changes, final long timestamp) {
        if (changes.isEmpty()) {
            return;
        }
        for (final Consolidator.Change change : changes) {
            final Memory after = change.after();
            if (after.getStatus() == MemoryStatus.DELETED) {
                index.delete(user, after.getMemoryId());
            } else {
                index.upsert(after);
            }
        }
        UserProfile profile = profiles.get(user.wire());
        for (final Consolidator.Change change : changes) {
            final Memory after = change.after();
            final String key = user.storeKey(after.getMemoryId());
            final Memory stored = after.getStatus() == MemoryStatus.DELETED ? null : after;
            if (stored == null) {
                memories.delete(key);
                access.forget(user, after.getMemoryId());
            } else {
                memories.put(key, stored);
            }
            if (cache != null) {
                cache.written(key, stored);
            }
            profile = ProfileProjection.apply(profile, change.before(), change.event());
            context.forward(new Record<String, Object>(user.wire(), change.event(), timestamp),
                ConsolidationTopology.UPDATED_SINK);
        }
        profiles.put(user.wire(), profile);
        context.forward(new Record<String, Object>(user.wire(), profile, timestamp), ConsolidationTopology.PROFILES_SINK);
        if (observationPending != null && changes.stream().anyMatch(Observations::changesStatements)) {
            observationPending.put(user.wire(), timestamp);
        }
    }
}
