package dev.engram.profile;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.ProfileFact;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.avro.UserProfile;

/**
 * Folds {@code memory-updated} events into a user's live profile: one active fact per key, counts
 * of active and archived memories, first and last interaction (event time, never later than the newest message
 * the memory cites: {@link #interactionTime}).
 *
 * <p>The one place this projection is defined: the consolidator keeps its profiles store with it and
 * the retriever materializes its own from {@code memory-updated}, so both agree. Pure and
 * deterministic: the same events in the same order give the same profile.
 */
public final class ProfileProjection {

    private ProfileProjection() {
    }

    /**
     * @param tenantId tenant
     * @param userId user
     * @return an empty profile with memory enabled
     */
    public static UserProfile empty(final String tenantId, final String userId) {
        return UserProfile.newBuilder().setTenantId(tenantId).setUserId(userId).setFacts(new HashMap<>())
            .setActiveMemories(0).setArchivedMemories(0).setMemoryEnabled(true)
            .setFirstInteractionAt(null).setLastInteractionAt(null).build();
    }

    /**
     * Applies one event.
     *
     * @param current the profile before, or null for a new user
     * @param previous the memory's state before this event, or null if it did not exist
     * @param event the event; an ERASED event yields null (the profile is gone); SETTINGS_CHANGED sets
     *     {@code memoryEnabled} (and {@code memoryEnabledSince} = its event time when memory is turned
     *     back on) and changes nothing else
     * @return the profile after, a new instance
     */
    public static UserProfile apply(final UserProfile current, final Memory previous, final MemoryUpdated event) {
        if (event.getOperation() == UpdateOperation.ERASED) {
            return null;
        }
        final UserProfile base = current != null ? current : empty(event.getTenantId(), event.getUserId());
        if (event.getOperation() == UpdateOperation.SETTINGS_CHANGED) {
            final boolean enabled = !Boolean.FALSE.equals(event.getMemoryEnabled());
            final UserProfile.Builder settings = UserProfile.newBuilder(base).setMemoryEnabled(enabled);
            if (enabled && !base.getMemoryEnabled()) {
                settings.setMemoryEnabledSince(event.getEventTime());
            }
            return settings.build();
        }
        final UserProfile.Builder next = UserProfile.newBuilder(base);
        final Map<String, ProfileFact> facts = new HashMap<>(base.getFacts());
        int active = base.getActiveMemories();
        int archived = base.getArchivedMemories();
        if (previous != null) {
            if (previous.getStatus() == MemoryStatus.ACTIVE) {
                active--;
            } else if (previous.getStatus() == MemoryStatus.ARCHIVED) {
                archived--;
            }
            if (previous.getKey() != null) {
                final ProfileFact fact = facts.get(previous.getKey());
                if (fact != null && fact.getMemoryId().equals(previous.getMemoryId())) {
                    facts.remove(previous.getKey());
                }
            }
        }
        final Memory after = event.getMemory();
        if (after != null) {
            if (after.getStatus() == MemoryStatus.ACTIVE) {
                active++;
                // an agent's own fact (a name asked of that agent) is not the user's, which every agent sees
                if (after.getKey() != null && after.getValue() != null && after.getAgentId() == null) {
                    facts.put(after.getKey(), ProfileFact.newBuilder()
                        .setKey(after.getKey()).setValue(after.getValue()).setCategory(after.getCategory())
                        .setDisplayName(after.getDisplayName()).setMemoryId(after.getMemoryId())
                        .setConfidence(after.getConfidence()).setSource(after.getSource())
                        .setUpdatedAt(after.getUpdatedAt()).setCustomCategory(after.getCustomCategory()).build());
                }
            } else if (after.getStatus() == MemoryStatus.ARCHIVED) {
                archived++;
            }
        }
        final Instant at = interactionTime(event);
        if (base.getFirstInteractionAt() == null || at.isBefore(base.getFirstInteractionAt())) {
            next.setFirstInteractionAt(at);
        }
        if (base.getLastInteractionAt() == null || at.isAfter(base.getLastInteractionAt())) {
            next.setLastInteractionAt(at);
        }
        return next.setFacts(facts).setActiveMemories(Math.max(0, active))
            .setArchivedMemories(Math.max(0, archived)).build();
    }

    /**
     * When the user last spoke in what an event records: its event time, but never later than the newest message
     * its memory cites ({@code SourceRef#observedAt}). A consolidator task stamps the writes of its regrouping and
     * lifecycle pass (observations, topic lists, staleness) with its own clock, which follows the latest record of
     * any user of the task, so another user's conversation would otherwise move this user's
     * {@code lastInteractionAt} (a fresh user's trial: a conversation of 1 November showed the time another user had
     * just posted). A memory without sources keeps the event time.
     *
     * @param event a change of one memory
     * @return the time it tells of the user's interaction, at most the event time
     */
    static Instant interactionTime(final MemoryUpdated event) {
        final Instant at = event.getEventTime();
        final Memory memory = event.getMemory();
        if (memory == null || memory.getSources().isEmpty()) {
            return at;
        }
        Instant newest = null;
        for (final SourceRef source : memory.getSources()) {
            if (newest == null || source.getObservedAt().isAfter(newest)) {
                newest = source.getObservedAt();
            }
        }
        return newest.isBefore(at) ? newest : at;
    }
}
