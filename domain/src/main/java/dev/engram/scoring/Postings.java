package dev.engram.scoring;

import java.util.Arrays;

/** One term's postings in a {@link UserMemoryIndex}: slots containing it and their term frequencies; df = occurrences in ACTIVE slots. */
final class Postings {
    int[] slots = new int[4];
    int[] tfs = new int[4];
    int count;
    int activeDf;

    void add(final int slot, final int tf) {
        if (count == slots.length) {
            slots = Arrays.copyOf(slots, count * 2);
            tfs = Arrays.copyOf(tfs, count * 2);
        }
        slots[count] = slot;
        tfs[count] = tf;
        count++;
    }

    void remove(final int slot) {
        for (int i = 0; i < count; i++) {
            if (slots[i] == slot) {
                count--;
                slots[i] = slots[count];
                tfs[i] = tfs[count];
                return;
            }
        }
    }
}
