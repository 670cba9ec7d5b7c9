package dev.engram.scoring;

import java.util.Arrays;

import dev.engram.avro.Memory;

/**
 * The time side of a {@link UserMemoryIndex}: each slot's event dates and validFrom day as epoch-day spans
 * ({@link TimeCues#days}) and, as primitives, the first and last day they cover, so a question's period is
 * compared without parsing a date or, for most memories, even reading the spans. Not thread-safe: the
 * owning index's lock guards it.
 */
final class SlotDays {

    private long[][] daysOf = new long[0][];
    private long[] firstDayOf = new long[0];
    private long[] lastDayOf = new long[0];

    /** @param capacity slots to make room for */
    void grow(final int capacity) {
        daysOf = Arrays.copyOf(daysOf, capacity);
        firstDayOf = Arrays.copyOf(firstDayOf, capacity);
        lastDayOf = Arrays.copyOf(lastDayOf, capacity);
    }

    /** Keeps a slot's spans. */
    void set(final int slot, final Memory memory) {
        final long[] days = TimeCues.days(memory);
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (int i = 0; i + 1 < days.length; i += 2) {
            first = Math.min(first, days[i]);
            last = Math.max(last, days[i + 1]);
        }
        daysOf[slot] = days;
        firstDayOf[slot] = first;
        lastDayOf[slot] = last;
    }

    /** Forgets a slot's spans. */
    void clear(final int slot) {
        daysOf[slot] = null;
        firstDayOf[slot] = Long.MAX_VALUE;
        lastDayOf[slot] = Long.MIN_VALUE;
    }

    /** @return the slot's spans {start₀, end₀, …} in epoch days */
    long[] days(final int slot) {
        return daysOf[slot];
    }

    /** @return false when no span of the slot can overlap [first, last] (epoch days); true: compare {@link #days} */
    boolean mayOverlap(final int slot, final long first, final long last) {
        return lastDayOf[slot] >= first && firstDayOf[slot] <= last;
    }
}
