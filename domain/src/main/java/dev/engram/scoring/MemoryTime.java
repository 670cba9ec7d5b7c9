package dev.engram.scoring;

import java.time.Instant;
import java.util.Collection;
import java.util.List;

import dev.engram.avro.FormerValue;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;

/**
 * A memory's place in event time, as ranking reads it: whether it belongs in an answer "as of" a point in time, and
 * the reference time recency is measured from.
 */
public final class MemoryTime {

    private MemoryTime() {
    }

    /**
     * Whether a memory was known and valid at a point in event time: stated by then
     * ({@code validFrom ≤ asOf}), not yet superseded ({@code validTo} absent or after {@code asOf}),
     * and not yet archived (ACTIVE, or archived after {@code asOf}: {@code updatedAt} is its archiving time).
     *
     * @param memory a memory of any status
     * @param asOf the point in event time
     * @return true if it belongs in an answer "as of" that time
     */
    public static boolean validAt(final Memory memory, final Instant asOf) {
        return !memory.getValidFrom().isAfter(asOf)
            && (memory.getValidTo() == null || memory.getValidTo().isAfter(asOf))
            && (memory.getStatus() == MemoryStatus.ACTIVE
                || memory.getStatus() == MemoryStatus.ARCHIVED && memory.getUpdatedAt().isAfter(asOf));
    }

    /**
     * The value a fact held at a time, for a fact corrected in place ({@link Memory#getFormerValues}): the first former
     * value replaced after that time, else the value it has.
     *
     * @param fact a keyed memory
     * @param at an event time
     * @return the former value held at {@code at} (the correction after it not yet made), or null when it held its
     *     current value then, or {@code at} is before the fact's {@code validFrom}
     */
    public static FormerValue formerValueAt(final Memory fact, final Instant at) {
        if (at.isBefore(fact.getValidFrom())) {
            return null;
        }
        for (final FormerValue former : fact.getFormerValues()) {
            if (former.getCorrectedAt().isAfter(at)) {
                return former;
            }
        }
        return null;
    }

    /**
     * A memory as it read at a point in event time: a fact corrected in place after {@code asOf} (a PUT) with the value
     * and content it held then ({@link #formerValueAt}) and only the corrections made by then; any other memory as it
     * is. An {@code asOf} read answers what was known then, not the correction made later.
     *
     * @param memory a memory valid at {@code asOf} ({@link #validAt})
     * @param asOf the point in event time
     * @return the memory as it read then
     */
    public static Memory heldAt(final Memory memory, final Instant asOf) {
        final FormerValue held = memory.getFormerValues().isEmpty() ? null : formerValueAt(memory, asOf);
        if (held == null) {
            return memory;
        }
        return Memory.newBuilder(memory).setValue(held.getValue()).setContent(held.getContent())
            .setFormerValues(memory.getFormerValues().stream().filter(f -> !f.getCorrectedAt().isAfter(asOf)).toList())
            .build();
    }

    /**
     * @param hits an {@code asOf} answer, best first
     * @param asOf its point in event time
     * @return the same hits in the same order, each memory as it read then ({@link #heldAt}); ranked by what it states
     *     now (a correction's former content keeps no vector or postings of its own)
     */
    static List<ScoredMemory> heldAt(final List<ScoredMemory> hits, final Instant asOf) {
        return hits.stream().map(h -> new ScoredMemory(heldAt(h.memory(), asOf), h.score(), h.semantic(), h.recency(),
            h.importance(), h.access(), h.borrowed())).toList();
    }

    /**
     * The reference time of recency: the newest event time among the user's memories.
     *
     * @param userMemories one user's memories
     * @return max of updatedAt and lastAccessedAt, or the epoch when there are none
     */
    public static Instant referenceTime(final Collection<Memory> userMemories) {
        Instant newest = Instant.EPOCH;
        for (final Memory m : userMemories) {
            if (m.getUpdatedAt() != null && m.getUpdatedAt().isAfter(newest)) {
                newest = m.getUpdatedAt();
            }
            if (m.getLastAccessedAt() != null && m.getLastAccessedAt().isAfter(newest)) {
                newest = m.getLastAccessedAt();
            }
        }
        return newest;
    }
}
