package dev.engram.consolidation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.ContradictionDetected;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.consolidation.Consolidator.Change;
import dev.engram.consolidation.Consolidator.Decision;
import dev.engram.consolidation.Consolidator.Outcome;
import dev.engram.core.MemoryIds;

/**
 * How each of {@link Consolidator}'s outcomes is written: the memories after, their
 * {@code memory-updated} events, and the contradiction and archive events. Every time field is the
 * candidate's {@code eventTime} and every id from {@link MemoryIds}, so the same candidates give
 * byte-identical writes.
 */
final class MemoryWrites {

    private MemoryWrites() {
    }

    /**
     * A new ACTIVE memory from the candidate, born outdated when it states a value a change of the user's facts ended
     * ({@link BornOutdated#atBirth}: a late arrival dated before the change, or an assistant's reply naming the old value).
     */
    static Decision create(final MemoryCandidate candidate, final List<Memory> userMemories) {
        final Memory created = BornOutdated.atBirth(newMemory(candidate, MemoryStatus.ACTIVE).build(), userMemories);
        return new Decision(Outcome.CREATED, List.of(change(null, created, UpdateOperation.CREATED, candidate)),
            List.of(), List.of());
    }

    /**
     * One more piece of evidence for {@code target}: the candidate's source is added and the reinforcement
     * count goes up by one; from a conversation already among the sources, only the messages it cites
     * are added (the count stays: it counts conversations); nothing new cited → {@code DUPLICATE}.
     */
    static Decision reinforce(final Memory target, final MemoryCandidate candidate) {
        final List<SourceRef> sources = new ArrayList<>(target.getSources());
        boolean sameConversation = false;
        for (int i = 0; i < sources.size(); i++) {
            final SourceRef source = sources.get(i);
            if (source.getConversationId().equals(candidate.getConversationId())) {
                // A restatement within a conversation already counted: not one more confirmation, but the
                // messages it cites become the memory's evidence too (a fact and the turn episode of its
                // message, an LLM's paraphrase of a later turn), so nothing the candidate cited is lost.
                final TreeSet<Integer> indexes = new TreeSet<>(source.getMessageIndexes());
                if (!indexes.addAll(candidate.getSourceMessageIndexes())) {
                    return Decision.nothing(Outcome.DUPLICATE);
                }
                sources.set(i, SourceRef.newBuilder(source).setMessageIndexes(new ArrayList<>(indexes)).build());
                sameConversation = true;
                break;
            }
        }
        final Instant at = candidate.getEventTime();
        if (!sameConversation) {
            sources.add(sourceOf(candidate));
        }
        final Memory after = Memory.newBuilder(target)
            .setReinforcementCount(target.getReinforcementCount() + (sameConversation ? 0 : 1))
            .setSources(sources)
            .setLastConfirmedAt(later(target.getLastConfirmedAt(), at))
            .setUpdatedAt(later(target.getUpdatedAt(), at))
            .setConfidence(Math.max(target.getConfidence(), candidate.getConfidence()))
            .setImportance(Math.max(target.getImportance(), candidate.getImportance()))
            .build();
        return new Decision(Outcome.REINFORCED, List.of(change(target, after, UpdateOperation.REINFORCED, candidate)),
            List.of(), List.of());
    }

    /**
     * A restatement of {@code fact} inside another memory (rule 7 of {@link Consolidator}): reinforced as by
     * {@link #reinforce}, but its importance and confidence stay (the episode's are not the fact's).
     */
    static Decision confirm(final Memory fact, final MemoryCandidate candidate) {
        final Decision reinforced = reinforce(fact, candidate);
        if (reinforced.outcome() != Outcome.REINFORCED) {
            return reinforced;
        }
        final Memory after = Memory.newBuilder(reinforced.changes().get(0).after())
            .setImportance(fact.getImportance()).setConfidence(fact.getConfidence()).build();
        return new Decision(Outcome.REINFORCED, List.of(change(fact, after, UpdateOperation.REINFORCED, candidate)),
            List.of(), List.of());
    }

    /**
     * Contradiction between {@code existing} and the candidate: the later statement stays ACTIVE. When the candidate
     * wins, the user's memories stating the old value are marked as outdated ({@link Outdated}).
     *
     * <p>The candidate is the later statement when its event time is after {@code existing}'s {@code validFrom}
     * (equal times: the larger id, so the order two candidates arrive in does not matter) and not before
     * {@link #lastStated existing's last statement}: a conversation that arrives late, dated between the fact's
     * first statement and a restatement or a correction of it, was said before the value that stays. It is stored
     * ARCHIVED / SUPERSEDED, valid from its own time to that restatement or correction (the one interval a memory
     * holds; the value's earlier interval stays on {@code existing}), archived then ({@code updatedAt} = {@code validTo},
     * as the supersession stamps it when the statements come in time order, so an {@code asOf} read within that
     * interval finds it, {@code MemoryTime#validAt}).
     */
    static Decision supersede(final Memory existing, final MemoryCandidate candidate, final double similarity,
                               final String reason, final List<Memory> userMemories) {
        final Instant at = candidate.getEventTime();
        final int order = at.compareTo(existing.getValidFrom());
        final boolean candidateWins = !at.isBefore(lastStated(existing))
            && (order > 0 || order == 0 && candidate.getCandidateId().compareTo(existing.getMemoryId()) > 0);
        if (candidateWins) {
            final Memory created = newMemory(candidate, MemoryStatus.ACTIVE)
                .setSupersedes(List.of(existing.getMemoryId())).build();
            final Memory archived = Memory.newBuilder(existing)
                .setStatus(MemoryStatus.ARCHIVED).setArchiveReason(ArchiveReason.SUPERSEDED)
                .setSupersededBy(created.getMemoryId()).setValidTo(created.getValidFrom())
                .setUpdatedAt(later(existing.getUpdatedAt(), at)).build();
            final List<Change> changes = new ArrayList<>(List.of(change(existing, archived, UpdateOperation.SUPERSEDED,
                candidate), change(null, created, UpdateOperation.CREATED, candidate)));
            changes.addAll(Outdated.mark(existing, created.getValue(), created.getMemoryId(), sourceOf(candidate), at,
                userMemories, causeOf(candidate)));
            return new Decision(Outcome.SUPERSEDED, changes,
                List.of(contradiction(existing, created, similarity, reason, at)),
                List.of(archivedEvent(existing, ArchiveReason.SUPERSEDED, created.getMemoryId(), at)));
        }
        if (order < 0) {
            final Memory held = Timeline.heldAt(userMemories, existing, at);
            if (held != null) {
                return Facts.sameValue(held.getValue(), held.getContent(), candidate.getValue(), candidate.getContent())
                    ? reinforce(held, candidate) // the value then in force, said again: its evidence, not a second memory
                    : insertBetween(held, candidate, similarity, reason);
            }
        }
        final Instant until = order < 0 ? Timeline.nextValueAfter(userMemories, existing, at) : lastStated(existing);
        final Memory late = newMemory(candidate, MemoryStatus.ARCHIVED)
            .setArchiveReason(ArchiveReason.SUPERSEDED).setSupersededBy(existing.getMemoryId())
            .setValidTo(until).setUpdatedAt(until).build(); // archived when it ended, as a supersession in time order stamps it
        return new Decision(Outcome.STORED_AS_SUPERSEDED,
            List.of(change(null, late, UpdateOperation.SUPERSEDED, candidate)),
            List.of(contradiction(late, existing, similarity, reason, at)),
            List.of(archivedEvent(late, ArchiveReason.SUPERSEDED, existing.getMemoryId(), at)));
    }

    /**
     * A candidate dated before a deleted fact of its key began ({@link DeletedStatements#laterDeletedFact}): stored as a
     * replay in time order leaves it, ARCHIVED / SUPERSEDED by the deleted fact's id, valid until that fact began
     * ({@code validTo} and {@code updatedAt} = the marker's {@code validFrom}, as the supersession stamped it). No
     * contradiction event: the deleted value is gone, nothing names it.
     */
    static Decision supersededByDeleted(final MemoryCandidate candidate, final Memory marker) {
        final Instant until = marker.getValidFrom();
        final Memory late = newMemory(candidate, MemoryStatus.ARCHIVED).setArchiveReason(ArchiveReason.SUPERSEDED)
            .setSupersededBy(marker.getMemoryId()).setValidTo(until).setUpdatedAt(until).build();
        return new Decision(Outcome.STORED_AS_SUPERSEDED, List.of(change(null, late, UpdateOperation.SUPERSEDED, candidate)),
            List.of(), List.of(archivedEvent(late, ArchiveReason.SUPERSEDED, marker.getMemoryId(), until)));
    }

    /**
     * A late statement of another value, dated inside {@code held}'s interval (an archived value of the same key): as
     * in time order, it ended {@code held} at its own time and was itself ended by what ended {@code held}. It is
     * stored ARCHIVED / SUPERSEDED, valid from its time to {@code held}'s {@code validTo}, superseded by
     * {@code held}'s successor; {@code held} now ends at the statement's time, superseded by it (a SUPERSEDED event for
     * each, a ContradictionDetected between them, a MemoryArchived for the new one).
     */
    private static Decision insertBetween(final Memory held, final MemoryCandidate candidate, final double similarity,
                                          final String reason) {
        final Instant at = candidate.getEventTime();
        final Memory inserted = newMemory(candidate, MemoryStatus.ARCHIVED)
            .setArchiveReason(ArchiveReason.SUPERSEDED).setSupersededBy(held.getSupersededBy())
            .setSupersedes(List.of(held.getMemoryId())).setValidTo(held.getValidTo())
            .setUpdatedAt(held.getValidTo()).build(); // archived when it ended, as in time order
        final Memory ended = Memory.newBuilder(held)
            .setSupersededBy(inserted.getMemoryId()).setValidTo(at).setUpdatedAt(later(held.getUpdatedAt(), at)).build();
        return new Decision(Outcome.STORED_AS_SUPERSEDED,
            List.of(change(held, ended, UpdateOperation.SUPERSEDED, candidate),
                change(null, inserted, UpdateOperation.SUPERSEDED, candidate)),
            List.of(contradiction(held, inserted, similarity, reason, at)),
            List.of(archivedEvent(inserted, ArchiveReason.SUPERSEDED, held.getSupersededBy(), at)));
    }

    /**
     * When the user last stated {@code fact}'s value: its {@code lastConfirmedAt}, which a restatement
     * ({@link #reinforce}) and a correction (a {@code memory-commands} CORRECT, at its {@code issuedAt}) move forward;
     * never before {@code validFrom}. A contradicting or negating statement dated before it does not take the fact back.
     *
     * @param fact an ACTIVE memory stating a value
     * @return the later of its {@code lastConfirmedAt} and {@code validFrom} (event time)
     */
    static Instant lastStated(final Memory fact) {
        return later(fact.getValidFrom(), fact.getLastConfirmedAt());
    }

    /**
     * A negated fact archives {@code current}, the ACTIVE memory stating the candidate's key and value
     * (the caller checked it was said after it).
     */
    static Decision retract(final Memory current, final MemoryCandidate candidate, final double similarity,
                            final List<Memory> userMemories) {
        final Instant at = candidate.getEventTime();
        final Memory archived = Memory.newBuilder(current)
            .setStatus(MemoryStatus.ARCHIVED).setArchiveReason(ArchiveReason.NEGATED)
            .setValidTo(at).setUpdatedAt(later(current.getUpdatedAt(), at)).build();
        final ContradictionDetected contradiction = ContradictionDetected.newBuilder()
            .setTenantId(candidate.getTenantId()).setUserId(candidate.getUserId())
            .setOldMemoryId(current.getMemoryId()).setNewMemoryId(candidate.getCandidateId())
            .setKey(current.getKey()).setOldValue(current.getValue()).setNewValue(null)
            .setSimilarity(similarity).setReason("negation").setDetectedAt(at).build();
        final List<Change> changes = new ArrayList<>(List.of(change(current, archived, UpdateOperation.ARCHIVED, candidate)));
        changes.addAll(Outdated.mark(current, null, null, sourceOf(candidate), at, userMemories, causeOf(candidate)));
        return new Decision(Outcome.RETRACTED, changes,
            List.of(contradiction),
            List.of(archivedEvent(current, ArchiveReason.NEGATED, null, at)));
    }

    static Memory.Builder newMemory(final MemoryCandidate candidate, final MemoryStatus status) {
        final Instant at = candidate.getEventTime();
        return Memory.newBuilder()
            .setMemoryId(candidate.getCandidateId())
            .setTenantId(candidate.getTenantId()).setUserId(candidate.getUserId())
            .setType(candidate.getType()).setCategory(candidate.getCategory())
            .setKey(candidate.getKey()).setValue(candidate.getValue()).setDisplayName(candidate.getDisplayName())
            .setContent(candidate.getContent())
            .setImportance(candidate.getImportance()).setConfidence(candidate.getConfidence())
            .setSource(candidate.getSource()).setStatus(status).setArchiveReason(null)
            .setCreatedAt(at).setUpdatedAt(at).setLastAccessedAt(at).setLastConfirmedAt(at)
            .setAccessCount(0).setReinforcementCount(1).setExpiresAt(null)
            .setValidFrom(at).setValidTo(null).setSupersededBy(null).setSupersedes(List.of())
            .setSources(List.of(sourceOf(candidate)))
            .setEmbedding(new ArrayList<>(candidate.getEmbedding()))
            .setEmbeddingModel(candidate.getEmbeddingModel())
            .setLanguage(candidate.getLanguage())
            .setEventDates(new ArrayList<>(candidate.getEventDates()))
            .setCustomCategory(candidate.getCustomCategory())
            .setTtlDays(candidate.getTtlDays())
            .setAgentId(candidate.getAgentId());
    }

    static SourceRef sourceOf(final MemoryCandidate candidate) {
        return SourceRef.newBuilder().setConversationId(candidate.getConversationId())
            .setMessageIndexes(new ArrayList<>(candidate.getSourceMessageIndexes()))
            .setObservedAt(candidate.getEventTime()).build();
    }

    static Change change(final Memory before, final Memory after, final UpdateOperation operation,
                                 final MemoryCandidate candidate) {
        final String cause = causeOf(candidate);
        return new Change(before, MemoryUpdated.newBuilder()
            .setEventId(MemoryIds.eventId(after.getMemoryId(), operation.name(), cause))
            .setTenantId(after.getTenantId()).setUserId(after.getUserId()).setMemoryId(after.getMemoryId())
            .setOperation(operation).setMemory(after)
            .setPreviousValue(before == null ? null : before.getValue())
            .setCause(cause).setEventTime(candidate.getEventTime()).build());
    }

    /** @return the cause of the events of a candidate's decision */
    static String causeOf(final MemoryCandidate candidate) {
        return "candidate:" + candidate.getCandidateId();
    }

    static ContradictionDetected contradiction(final Memory older, final Memory newer, final double similarity,
                                                       final String reason, final Instant at) {
        return ContradictionDetected.newBuilder()
            .setTenantId(newer.getTenantId()).setUserId(newer.getUserId())
            .setOldMemoryId(older.getMemoryId()).setNewMemoryId(newer.getMemoryId())
            .setKey(newer.getKey() != null ? newer.getKey() : older.getKey())
            .setOldValue(older.getValue()).setNewValue(newer.getValue())
            .setSimilarity(similarity).setReason(reason).setDetectedAt(at).build();
    }

    static MemoryArchived archivedEvent(final Memory memory, final ArchiveReason reason, final String supersededBy,
                                                final Instant at) {
        return MemoryArchived.newBuilder().setTenantId(memory.getTenantId()).setUserId(memory.getUserId())
            .setMemoryId(memory.getMemoryId()).setReason(reason).setSupersededBy(supersededBy).setArchivedAt(at).build();
    }

    static Instant later(final Instant a, final Instant b) {
        return a.isAfter(b) ? a : b;
    }
}
