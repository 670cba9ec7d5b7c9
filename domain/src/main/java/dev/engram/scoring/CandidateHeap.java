package dev.engram.scoring;

/** A bounded min-heap of the best candidates by (logit desc, id asc); the worst on top. */
final class CandidateHeap {
    double[] logits = new double[16];
    int[] slots = new int[16];
    String[] ids = new String[16];
    int size;
    int capacity;

    void reset(final int capacity) {
        this.capacity = capacity;
        size = 0;
        if (logits.length < capacity) {
            logits = new double[capacity];
            slots = new int[capacity];
            ids = new String[capacity];
        }
    }

    /** @return true when a ranks below b (lower logit, or equal logit and larger id) */
    private static boolean worse(final double la, final String ia, final double lb, final String ib) {
        return la < lb || la == lb && ia.compareTo(ib) > 0;
    }

    /**
     * @param logit a candidate's logit
     * @return true when {@link #offer} would drop it whatever its id (the heap is full and its worst is
     *     strictly more relevant), so the caller need not read the memory's id
     */
    boolean rejects(final double logit) {
        return size == capacity && logit < logits[0];
    }

    void offer(final double logit, final int slot, final String id) {
        if (size < capacity) {
            int i = size++;
            while (i > 0) {
                final int parent = (i - 1) >>> 1;
                if (!worse(logit, id, logits[parent], ids[parent])) {
                    break;
                }
                move(parent, i);
                i = parent;
            }
            set(i, logit, slot, id);
            return;
        }
        if (!worse(logits[0], ids[0], logit, id)) {
            return;
        }
        int i = 0;
        while (true) {
            final int left = 2 * i + 1;
            if (left >= size) {
                break;
            }
            int child = left;
            if (left + 1 < size && worse(logits[left + 1], ids[left + 1], logits[left], ids[left])) {
                child = left + 1;
            }
            if (!worse(logits[child], ids[child], logit, id)) {
                break;
            }
            move(child, i);
            i = child;
        }
        set(i, logit, slot, id);
    }

    private void move(final int from, final int to) {
        logits[to] = logits[from];
        slots[to] = slots[from];
        ids[to] = ids[from];
    }

    private void set(final int i, final double logit, final int slot, final String id) {
        logits[i] = logit;
        slots[i] = slot;
        ids[i] = id;
    }
}
