package dev.engram.topology;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.engram.avro.AuditRecord;
import dev.engram.avro.CommandKind;
import dev.engram.avro.FormerValue;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.avro.UserProfile;
import dev.engram.consolidation.Consolidator;
import dev.engram.consolidation.DeletedStatements;
import dev.engram.consolidation.DeletedWords;
import dev.engram.consolidation.Observations;
import dev.engram.consolidation.Outdated;
import dev.engram.core.MemoryIds;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndex;
import dev.engram.scoring.Vectors;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.engram.profile.ProfileProjection;
import dev.engram.topics.AppIds;

/**
 * How {@link ConsolidateMemoriesProcessor} applies a user's {@code memory-commands} record to its stores, the
 * vector index and its sinks. A command issued at or before the user's erasure time is dropped (except ERASE).
 * Output records are keyed by the user key and stamped with the command's {@code issuedAt}.
 *
 * <p>
 * <ul>
 *   <li>CORRECT: the memory takes the new content and/or value (and the embedding the retriever computed
 *       for the new content), source CORRECTED, confidence 1.0; event CORRECTED. Unknown or deleted
 *       memory: nothing. A fact whose value changes keeps the value and content it had, with the command's
 *       {@code issuedAt} ({@code formerValues}, oldest first: a late conversation dated before the correction that
 *       states it is born outdated, {@code BornOutdated}), and marks the user's memories stating the old value as
 *       outdated ({@link Outdated}: {@code validTo} = {@code issuedAt}, {@code supersededBy} = the fact; events
 *       SUPERSEDED).</li>
 *   <li>DELETE: the memory is replaced in the store by a content-free marker ({@link DeletedStatements#marker}:
 *       status DELETED, no content, key, value, sources or embedding; its id, the deletion time as {@code validTo} and
 *       one-way digests of what it stated) so that a redelivered or replayed candidate with its id stays a duplicate,
 *       and a candidate with another id stating the same, said at or before the deletion, is not stored either; the
 *       vector index point is deleted; event DELETED with no memory state. A deleted fact takes with it, the same
 *       way, the memories without a key saying its value and the episodes it was read from ({@link DeletedWords}), so
 *       the deleted statement reaches no read (not even as "Earlier, no longer current").</li>
 *   <li>ERASE: every store entry of the user (memories, markers, profile) is deleted (tombstones on the
 *       changelogs), the vector index drops the user ({@link VectorIndex#deleteUser}), the ledger
 *       records the erasure time (= the command's {@code issuedAt}); one event ERASED (memory id
 *       {@value #ALL_MEMORIES}) and one AuditRecord {@code user.erase.applied}.</li>
 *   <li>SET_MEMORY_ENABLED: the profile's switch; turning it on sets {@code memoryEnabledSince} =
 *       {@code issuedAt}; event SETTINGS_CHANGED (memory id {@value #ALL_MEMORIES}).</li>
 *   <li>REEMBED ({@code bin/engram reembed}): the memory takes the command's {@code embedding} and
 *       {@code embeddingModel}, nothing else (no time, no content); the vector index point is replaced; event
 *       REEMBEDDED. Applied only while the memory's content is still the command's {@code content} (the text
 *       that was embedded: a correction in between wins); skipped and counted when the memory is gone (debug only:
 *       deleted or merged since the tool read it, or an observation or topic list that an earlier version of the
 *       tool commanded: the regrouping of the re-embedded statements replaces those per model, so the tool now leaves
 *       them to it, {@code Observations#rebuiltByRegrouping}), already has
 *       that model's vector, or the vector is empty, not finite or zero ({@code engram_candidates_skipped_total{reason=
 *       "gone_reembed"|"stale_reembed"|"already_reembedded"|"invalid_reembed"}}).</li>
 * </ul>
 */
final class MemoryCommands {

    /** Memory id of the user-wide events (ERASED, SETTINGS_CHANGED). */
    static final String ALL_MEMORIES = "*";

    private static final Logger LOG = LoggerFactory.getLogger(MemoryCommands.class);

    private final ProcessorContext<String, Object> context;
    private final KeyValueStore<String, Memory> memories;
    private final KeyValueStore<String, UserProfile> profiles;
    private final KeyValueStore<String, Long> erasures;
    private final VectorIndex index;
    private final UserMemoryCache cache;
    private final ConsolidateMemoriesProcessor.Counters counters;
    private final boolean shredKeys;
    private final ObservationRegroups regroups;
    private final AccessStore access;

    /**
     * @param context the processor's context (forwards to {@link ConsolidationTopology}'s sinks)
     * @param memories {@link StoreNames#MEMORIES}
     * @param profiles {@link StoreNames#PROFILES}
     * @param erasures {@link StoreNames#ERASURES}
     * @param index the vector index over {@code memories}
     * @param cache the task's decoded memories, or null
     * @param counters the consolidator's counters
     * @param shredKeys whether an ERASE also tombstones the user's data key
     * @param regroups regroups the user's observations before a command and after a statement is corrected or deleted
     * @param access the retrieval hits ({@link StoreNames#ACCESS}): a deleted memory's and an erased user's are forgotten
     */
    MemoryCommands(final ProcessorContext<String, Object> context, final KeyValueStore<String, Memory> memories,
                   final KeyValueStore<String, UserProfile> profiles, final KeyValueStore<String, Long> erasures,
                   final VectorIndex index, final UserMemoryCache cache,
                   final ConsolidateMemoriesProcessor.Counters counters, final boolean shredKeys,
                   final ObservationRegroups regroups, final AccessStore access) {
        this.access = access;
        this.context = context;
        this.memories = memories;
        this.profiles = profiles;
        this.erasures = erasures;
        this.index = index;
        this.cache = cache;
        this.counters = counters;
        this.shredKeys = shredKeys;
        this.regroups = regroups;
    }

    /**
     * Applies one command (see the class comment); an invalid one is skipped and counted.
     *
     * @param key the record key ({@code tenant/user}; must match the command's tenantId/userId)
     * @param command the command
     */
    void apply(final String key, final MemoryCommand command) {
        final UserKey user;
        try {
            user = UserKey.parse(key);
            if (!user.tenantId().equals(command.getTenantId()) || !user.userId().equals(command.getUserId())) {
                throw new IllegalArgumentException("record key does not match the command's tenantId/userId");
            }
        } catch (IllegalArgumentException | NullPointerException e) {
            LOG.warn("Skipping invalid memory command {}: {}", command.getCommandId(), e.getMessage());
            counters.skipped("invalid_command");
            return;
        }
        final long at = command.getIssuedAt().toEpochMilli();
        final Long erasedAt = erasures.get(user.wire());
        if (erasedAt != null && at <= erasedAt && command.getKind() != CommandKind.ERASE) {
            counters.skipped("erased");
            return;
        }
        if (command.getKind() != CommandKind.ERASE) {
            // what the command names is an observation of the statements as they are at this record, on any schedule
            regroups.flush(user, command.getIssuedAt());
        }
        switch (command.getKind()) {
            case CORRECT -> correct(user, command);
            case DELETE -> delete(user, command);
            case ERASE -> erase(user, command, erasedAt);
            case SET_MEMORY_ENABLED -> setMemoryEnabled(user, command);
            case REEMBED -> reembed(user, command);
            default -> counters.skipped("invalid_command");
        }
    }

    private void correct(final UserKey user, final MemoryCommand command) {
        final Memory before = command.getMemoryId() == null ? null : memories.get(user.storeKey(command.getMemoryId()));
        if (before == null || before.getStatus() == MemoryStatus.DELETED
            || command.getContent() == null && command.getValue() == null) {
            counters.skipped("nothing_to_correct");
            return;
        }
        final Memory.Builder after = Memory.newBuilder(before).setSource(MemorySource.CORRECTED).setConfidence(1.0)
            .setUpdatedAt(later(before.getUpdatedAt(), command.getIssuedAt()))
            .setLastConfirmedAt(later(before.getLastConfirmedAt(), command.getIssuedAt()));
        if (command.getContent() != null && !command.getContent().isBlank()) {
            after.setContent(command.getContent());
            if (command.getEmbedding().size() == before.getEmbedding().size()) {
                after.setEmbedding(new ArrayList<>(command.getEmbedding()));
                if (command.getEmbeddingModel() != null) {
                    after.setEmbeddingModel(command.getEmbeddingModel()); // the vector and its model change together
                }
            }
        }
        if (command.getValue() != null && before.getKey() != null && !command.getValue().isBlank()) {
            after.setValue(command.getValue());
        }
        final boolean valueChanged = before.getKey() != null
            && !MemoryIds.normalize(before.getValue()).equals(MemoryIds.normalize(after.getValue()));
        if (valueChanged && before.getValue() != null) {
            // the value it held until now: a late conversation dated before this correction states history, not the
            // current value (BornOutdated), and a replay of the command keeps the same record
            final List<FormerValue> former = new ArrayList<>(before.getFormerValues());
            former.add(FormerValue.newBuilder().setValue(before.getValue()).setContent(before.getContent())
                .setCorrectedAt(command.getIssuedAt()).build());
            after.setFormerValues(former);
        }
        final Memory corrected = after.build();
        memories.put(user.storeKey(corrected.getMemoryId()), corrected);
        written(user.storeKey(corrected.getMemoryId()), corrected);
        index.upsert(corrected);
        emit(user, before, commandEvent(user, corrected.getMemoryId(), UpdateOperation.CORRECTED, corrected,
            before.getValue(), command), command);
        if (valueChanged) {
            markOutdated(user, before, corrected.getValue(), corrected.getMemoryId(), command);
        }
        dropObservationsOf(user, before, command);
    }

    /**
     * A corrected fact's old value: the user's memories stating it, and the episodes citing a message the
     * fact was read from, are marked as outdated ({@link Outdated}, {@link Outdated.Reach#CITED_SOURCES}; events
     * SUPERSEDED at the command's time).
     */
    private void markOutdated(final UserKey user, final Memory fact, final String newValue, final String by,
                              final MemoryCommand command) {
        if (fact.getKey() == null) {
            return;
        }
        for (final Consolidator.Change change : Outdated.mark(fact, newValue, by, null, command.getIssuedAt(),
                userMemories(user), "command:" + command.getCommandId(), Outdated.Reach.CITED_SOURCES)) {
            final Memory after = change.after();
            index.upsert(after);
            memories.put(user.storeKey(after.getMemoryId()), after);
            written(user.storeKey(after.getMemoryId()), after);
            emit(user, change.before(), change.event(), command);
        }
    }

    /**
     * What the user corrected or deleted is not served from an observation: the user's observations are regrouped
     * at once ({@link ObservationRegroups}).
     */
    private void dropObservationsOf(final UserKey user, final Memory before, final MemoryCommand command) {
        if (Observations.isStatement(before)) {
            regroups.regroup(user, command.getIssuedAt());
        }
    }

    private void reembed(final UserKey user, final MemoryCommand command) {
        final Memory before = command.getMemoryId() == null ? null : memories.get(user.storeKey(command.getMemoryId()));
        final String model = command.getEmbeddingModel();
        final float[] vector = Vectors.toArray(command.getEmbedding());
        if (before == null || before.getStatus() == MemoryStatus.DELETED) {
            // expected: gone since the tool listed it (deleted, merged), or an observation or topic list an earlier tool
            // commanded, which the regrouping after the user's re-embedded statements replaced (a list's id names its model)
            LOG.debug("Skipping re-embedding command {}: memory {} gone", command.getCommandId(), command.getMemoryId());
            counters.skipped("gone_reembed");
            return;
        }
        if (model == null || model.isBlank() || !usable(vector)) {
            LOG.warn("Skipping re-embedding command {}: model {}, {} dimensions", command.getCommandId(), model,
                vector.length);
            counters.skipped("invalid_reembed");
            return;
        }
        if (!before.getContent().equals(command.getContent())) {
            counters.skipped("stale_reembed"); // corrected after it was embedded: its current vector stays
            return;
        }
        if (model.equals(before.getEmbeddingModel()) && before.getEmbedding().equals(command.getEmbedding())) {
            counters.skipped("already_reembedded");
            return;
        }
        final Memory after = Memory.newBuilder(before).setEmbedding(new ArrayList<>(command.getEmbedding()))
            .setEmbeddingModel(model).build();
        index.upsert(after);
        memories.put(user.storeKey(after.getMemoryId()), after);
        written(user.storeKey(after.getMemoryId()), after);
        LOG.debug("Re-embedded memory {} from {} to {}", after.getMemoryId(), before.getEmbeddingModel(), model);
        if (Observations.isStatement(before)) {
            regroups.mark(user, command.getIssuedAt().toEpochMilli()); // grouped per model: regrouped soon
        }
        emit(user, before, commandEvent(user, after.getMemoryId(), UpdateOperation.REEMBEDDED, after, null, command),
            command);
    }

    /** @return whether the vector is non-empty, finite and not zero */
    private static boolean usable(final float[] vector) {
        double norm = 0;
        for (final float v : vector) {
            if (!Float.isFinite(v)) {
                return false;
            }
            norm += (double) v * v;
        }
        return norm > 0;
    }

    private void delete(final UserKey user, final MemoryCommand command) {
        final Memory before = command.getMemoryId() == null ? null : memories.get(user.storeKey(command.getMemoryId()));
        if (before == null || before.getStatus() == MemoryStatus.DELETED) {
            counters.skipped("nothing_to_delete");
            return;
        }
        final List<Memory> sayingIt = DeletedWords.sayingIt(before, command.getIssuedAt(), userMemories(user));
        remove(user, before, command);
        sayingIt.forEach(m -> remove(user, m, command));
        if (Observations.isStatement(before) || sayingIt.stream().anyMatch(Observations::isStatement)) {
            regroups.regroup(user, command.getIssuedAt());
        }
    }

    /** One memory deleted by a DELETE command: its marker in the store, out of the vector index, event DELETED. */
    private void remove(final UserKey user, final Memory before, final MemoryCommand command) {
        final Memory marker = DeletedStatements.marker(before, command.getIssuedAt());
        memories.put(user.storeKey(before.getMemoryId()), marker);
        written(user.storeKey(before.getMemoryId()), marker);
        index.delete(user, before.getMemoryId());
        access.forget(user, before.getMemoryId());
        emit(user, before, commandEvent(user, before.getMemoryId(), UpdateOperation.DELETED, null, null, command),
            command);
    }

    /** @return every memory of the user in the consolidator's store, markers included */
    private List<Memory> userMemories(final UserKey user) {
        final List<Memory> out = new ArrayList<>();
        try (KeyValueIterator<String, Memory> it = memories.prefixScan(user.storePrefix(), ConsolidateMemoriesProcessor.PREFIX_SERIALIZER)) {
            it.forEachRemaining(kv -> out.add(kv.value));
        }
        return out;
    }

    private void erase(final UserKey user, final MemoryCommand command, final Long erasedBefore) {
        final List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, Memory> it = memories.prefixScan(user.storePrefix(), ConsolidateMemoriesProcessor.PREFIX_SERIALIZER)) {
            it.forEachRemaining(kv -> keys.add(kv.key));
        }
        keys.forEach(memories::delete);
        final int hits = access.erase(user);
        regroups.forget(user);
        if (cache != null) {
            cache.forget(user.wire());
        }
        final int profileCount = profiles.delete(user.wire()) == null ? 0 : 1;
        index.deleteUser(user);
        // A tombstone on the compacted user-profiles topic: the extractor's profiles table forgets the user.
        context.forward(new Record<String, Object>(user.wire(), null, command.getIssuedAt().toEpochMilli()),
            ConsolidationTopology.PROFILES_SINK);
        if (shredKeys) {
            // Crypto-shredding: in the same transaction as the store deletes, the user's data key is
            // tombstoned; every record of the user on every topic, backup and mirror becomes unreadable.
            context.forward(new Record<String, Object>(user.wire(), null, command.getIssuedAt().toEpochMilli()),
                ConsolidationTopology.DATA_KEYS_SINK);
        }
        final long at = command.getIssuedAt().toEpochMilli();
        erasures.put(user.wire(), erasedBefore == null ? at : Math.max(at, erasedBefore));
        final MemoryUpdated event = commandEvent(user, ALL_MEMORIES, UpdateOperation.ERASED, null, null, command);
        context.forward(new Record<String, Object>(user.wire(), event, at), ConsolidationTopology.UPDATED_SINK);
        final AuditRecord audit = AuditRecord.newBuilder()
            .setAuditId(MemoryIds.uuid("audit", command.getCommandId(), "user.erase.applied"))
            .setActor(command.getActor()).setActorScope("SYSTEM").setTenantId(user.tenantId())
            .setUserId(user.userId()).setAction("user.erase.applied").setMemoryId(null)
            .setCommandId(command.getCommandId()).setOutcome("APPLIED").setStatus(0)
            .setDetail("store entries deleted=" + (keys.size() + hits) + "; memories=" + keys.size() + " accessCounts=" + hits
                + " profile=" + profileCount
                + " vectorIndex=user dataKey=" + (shredKeys ? "tombstoned" : "none (crypto off)")).setSource(AppIds.CONSOLIDATOR)
            .setOccurredAt(command.getIssuedAt()).build();
        context.forward(new Record<String, Object>(user.wire(), audit, at), ConsolidationTopology.AUDIT_SINK);
        counters.erased.increment();
        LOG.info("Erased {} store entries of one user (command {})", keys.size(), command.getCommandId());
    }

    private void setMemoryEnabled(final UserKey user, final MemoryCommand command) {
        if (command.getMemoryEnabled() == null) {
            counters.skipped("invalid_command");
            return;
        }
        final MemoryUpdated event = commandEvent(user, ALL_MEMORIES, UpdateOperation.SETTINGS_CHANGED, null, null,
            command);
        event.setMemoryEnabled(command.getMemoryEnabled());
        emit(user, null, event, command);
    }

    /** Writes the profile folded with the event and forwards the event. */
    private void emit(final UserKey user, final Memory before, final MemoryUpdated event, final MemoryCommand command) {
        final UserProfile profile = ProfileProjection.apply(profiles.get(user.wire()), before, event);
        profiles.put(user.wire(), profile);
        context.forward(new Record<String, Object>(user.wire(), event, command.getIssuedAt().toEpochMilli()),
            ConsolidationTopology.UPDATED_SINK);
        context.forward(new Record<String, Object>(user.wire(), profile, command.getIssuedAt().toEpochMilli()),
            ConsolidationTopology.PROFILES_SINK);
    }

    private static MemoryUpdated commandEvent(final UserKey user, final String memoryId, final UpdateOperation operation,
                                              final Memory after, final String previousValue,
                                              final MemoryCommand command) {
        final String cause = "command:" + command.getCommandId();
        return MemoryUpdated.newBuilder()
            .setEventId(MemoryIds.eventId(memoryId, operation.name(), cause))
            .setTenantId(user.tenantId()).setUserId(user.userId()).setMemoryId(memoryId)
            .setOperation(operation).setMemory(after).setPreviousValue(previousValue)
            .setCause(cause).setMemoryEnabled(null).setEventTime(command.getIssuedAt()).build();
    }

    private static Instant later(final Instant a, final Instant b) {
        return a.isAfter(b) ? a : b;
    }

    private void written(final String storeKey, final Memory memory) {
        if (cache != null) {
            cache.written(storeKey, memory);
        }
    }
}
