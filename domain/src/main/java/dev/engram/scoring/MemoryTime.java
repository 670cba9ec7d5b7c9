package dev.engram.scoring;

import java.time.Instant;
import java.util.Collection;

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
