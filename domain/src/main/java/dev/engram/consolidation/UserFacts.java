package dev.engram.consolidation;

import java.util.List;
import java.util.Objects;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.SourceRef;
import dev.engram.core.MemoryIds;
import dev.engram.core.ValueAliases;
import dev.engram.port.ExtractedMemory;

/**
 * Lookups of the {@link Consolidator} over one user's memories: whether a candidate was already seen (a
 * redelivery, or a restatement of messages a memory already cites) and which ACTIVE memory holds a fact key (or,
 * renamed, the entity a key names).
 * Stateless.
 */
final class UserFacts {

    private UserFacts() {
    }

    /**
     * @param candidate a candidate
     * @param userMemories the user's memories
     * @param otherReading memories that read the candidate's message otherwise (never its duplicate)
     * @return true when the candidate's id is a memory, or a memory of the same key and value lists
     *     this exact statement among its sources (not one of {@code otherReading}: another reading of the same message)
     */
    static boolean alreadySeen(final MemoryCandidate candidate, final List<Memory> userMemories,
                               final java.util.function.Predicate<Memory> otherReading) {
        final String value = ValueAliases.fold(candidate.getValue());
        for (final Memory memory : userMemories) {
            if (memory.getMemoryId().equals(candidate.getCandidateId())) {
                return true;
            }
            if (!Objects.equals(memory.getKey(), candidate.getKey()) || !ValueAliases.fold(memory.getValue()).equals(value)
                || ExtractedMemory.isObservation(memory.getType(), memory.getDisplayName())) {
                continue; // an observation cites its statements' messages: another statement of one is not a duplicate
            }
            if (otherReading.test(memory)) {
                continue; // the turn as said is not the other extractor's reading of the same message
            }
            for (final SourceRef source : memory.getSources()) {
                if (source.getConversationId().equals(candidate.getConversationId())
                    && source.getObservedAt().equals(candidate.getEventTime())
                    && source.getMessageIndexes().equals(candidate.getSourceMessageIndexes())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * @return the ACTIVE memory holding the key (the latest validFrom, then the greatest id, should
     *     there ever be more than one), or null
     */
    static Memory currentFact(final List<Memory> userMemories, final String key) {
        Memory current = null;
        for (final Memory memory : userMemories) {
            if (memory.getStatus() == MemoryStatus.ACTIVE && key.equals(memory.getKey()) && later(memory, current)) {
                current = memory;
            }
        }
        return current;
    }

    /**
     * The ACTIVE fact a keyed candidate is about: the one holding its key ({@link #currentFact}), else, for a key
     * naming an entity by its name ({@link Facts#entitySlot}), the ACTIVE fact of the same slot whose value is the
     * candidate's ({@link MemoryIds#fold}): the entity renamed by a correction, whose key still carries its old name
     * (README trial: {@code pet:rex} corrected to Max, then "I have a dog named Max" read as {@code pet:max}). Within
     * one user's slot a name is one entity, as the keys themselves already take it ({@code pet:max} is one fact).
     *
     * @param userMemories the user's memories
     * @param key the candidate's key
     * @param value the candidate's value, may be null
     * @return that fact (ties as in {@link #currentFact}), or null
     */
    static Memory factOf(final List<Memory> userMemories, final String key, final String value) {
        final Memory current = currentFact(userMemories, key);
        final String slot = Facts.entitySlot(key);
        final String name = MemoryIds.fold(value);
        if (current != null || slot == null || name.isEmpty()) {
            return current;
        }
        Memory renamed = null;
        for (final Memory memory : userMemories) {
            if (memory.getStatus() == MemoryStatus.ACTIVE && slot.equals(Facts.entitySlot(memory.getKey()))
                && name.equals(MemoryIds.fold(memory.getValue())) && later(memory, renamed)) {
                renamed = memory;
            }
        }
        return renamed;
    }

    /** Whether {@code memory} is the later of the two: the later validFrom, then the greater id; any beats null. */
    private static boolean later(final Memory memory, final Memory than) {
        return than == null || memory.getValidFrom().isAfter(than.getValidFrom())
            || memory.getValidFrom().equals(than.getValidFrom()) && memory.getMemoryId().compareTo(than.getMemoryId()) > 0;
    }

    /**
     * Two readings of one turn (the Consolidator's rule 1): the same message read by another extractor (an LLM's
     * fact beside the offline episodes, {@code llm.extraction.episodes}) keeps what its paraphrase chose of the turn;
     * folding the turn as said into it would drop what the paraphrase left out.
     *
     * @param candidate a candidate
     * @param existing a memory of the user
     * @param similarity the candidate's calibrated similarity to a memory (0 across embedding models)
     * @param reinforceThreshold {@code dedup.reinforce.threshold}: a restatement above it is the same reading
     * @return whether the candidate is an episode of the user's turn (unkeyed, EPISODIC, not a summary or an exchange)
     *     and the memory cites that same message in other words (similarity not above {@code reinforceThreshold})
     */
    static boolean otherReadingOfTurn(final MemoryCandidate candidate, final Memory existing,
                                      final java.util.function.ToDoubleFunction<Memory> similarity,
                                      final double reinforceThreshold) {
        if (candidate.getType() != MemoryType.EPISODIC || candidate.getKey() != null
            || ExtractedMemory.isExchange(candidate.getDisplayName())
            || ExtractedMemory.isSummary(candidate.getType(), candidate.getDisplayName())
            || candidate.getContent().equals(existing.getContent())) {
            return false;
        }
        for (final SourceRef ref : existing.getSources()) {
            if (ref.getConversationId().equals(candidate.getConversationId())
                && ref.getMessageIndexes().stream().anyMatch(candidate.getSourceMessageIndexes()::contains)) {
                return similarity.applyAsDouble(existing) <= reinforceThreshold;
            }
        }
        return false;
    }
}
