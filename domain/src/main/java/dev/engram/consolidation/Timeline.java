package dev.engram.consolidation;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;

/**
 * Where a statement that arrives late falls among the earlier values of its fact's key. A fact's history is a chain of
 * memories of one key, each valid from its statement to the next value's ({@code validFrom} … {@code validTo}): the
 * ACTIVE one last, the values it superseded before it, ARCHIVED / SUPERSEDED. A conversation uploaded late, dated
 * before the ACTIVE value began, belongs somewhere in that chain: a restatement of the value then in force, or a value
 * that began between two of them. Without this, a late restatement became a second memory of a value already
 * held, and a late value's interval overlapped the one in force then (a user trial: Ghent 11-01, Bruges 11-10, then
 * late Ghent 11-05 and Antwerp 11-06 gave two archived "Lives in Ghent" both valid to 11-10 and Antwerp valid from
 * 11-06 beside them). Stateless.
 */
final class Timeline {

    private Timeline() {
    }

    /**
     * The archived value of {@code current}'s key that was in force at {@code at}: ARCHIVED / SUPERSEDED, valid from at
     * or before {@code at} to after it (an interval that ended exactly at {@code at} was already replaced then).
     *
     * @param userMemories the user's memories (any status)
     * @param current the key's ACTIVE memory (not itself returned)
     * @param at the late statement's event time, before {@code current}'s {@code validFrom}
     * @return that memory, or null when {@code at} falls before the key's first statement or in no archived interval
     */
    static Memory heldAt(final List<Memory> userMemories, final Memory current, final Instant at) {
        for (final Memory m : userMemories) {
            if (isEarlierValue(m, current) && !m.getValidFrom().isAfter(at) && m.getValidTo().isAfter(at)) {
                return m;
            }
        }
        return null;
    }

    /**
     * When the next value of {@code current}'s key after {@code at} began: the earliest {@code validFrom} after
     * {@code at} among its archived values and {@code current} itself. A late value said before any of them is valid
     * until then, not until the ACTIVE value (which an earlier archived value may precede).
     *
     * @param userMemories the user's memories (any status)
     * @param current the key's ACTIVE memory
     * @param at the late statement's event time, before {@code current}'s {@code validFrom}
     * @return that instant ({@code current}'s {@code validFrom} at the latest)
     */
    static Instant nextValueAfter(final List<Memory> userMemories, final Memory current, final Instant at) {
        Instant next = current.getValidFrom();
        for (final Memory m : userMemories) {
            if (isEarlierValue(m, current) && m.getValidFrom().isAfter(at) && m.getValidFrom().isBefore(next)) {
                next = m.getValidFrom();
            }
        }
        return next;
    }

    private static boolean isEarlierValue(final Memory m, final Memory current) {
        return m.getStatus() == MemoryStatus.ARCHIVED && m.getArchiveReason() == ArchiveReason.SUPERSEDED
            && m.getValidTo() != null && !m.getMemoryId().equals(current.getMemoryId())
            && Facts.sameKey(m.getKey(), current.getKey()) && m.getCategory() == current.getCategory();
    }
}
