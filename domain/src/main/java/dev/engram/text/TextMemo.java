package dev.engram.text;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * A bounded memo of a pure function of a text: the result for a key already seen is the one computed then, so a caller
 * that runs the same text through the same regular expressions again and again (the consolidator's regrouping reads
 * every statement of a user each time one of them changes) pays for them once per text.
 *
 * <p>Only for functions whose result depends on the key alone (no clock, no settings that change, no state): then a
 * hit and a miss give equal results, and whether a key is still held (which depends on what else was asked and when)
 * changes the cost, never the answer, so a replay gives the same state whatever the memo held. The results are shared
 * between callers: they must be immutable.
 *
 * <p>Bounded: at most {@code capacity} keys, the least recently used dropped first. Thread-safe: lookups and inserts
 * hold the map's lock; the function runs outside it (two threads missing one key both compute it; either result is
 * the same).
 *
 * @param <V> the result type (immutable)
 */
public final class TextMemo<V> {

    private final Function<String, V> function;
    private final Map<String, V> results;

    /**
     * @param capacity keys held at most, ≥ 1
     * @param function the pure function of the key (its result not null)
     * @throws IllegalArgumentException for a capacity below 1
     */
    public TextMemo(final int capacity, final Function<String, V> function) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a memo holds at least one key: " + capacity);
        }
        this.function = Objects.requireNonNull(function, "function");
        this.results = new LinkedHashMap<>(Math.min(capacity, 1024), 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(final Map.Entry<String, V> eldest) {
                return size() > capacity;
            }
        };
    }

    /**
     * @param key the function's argument
     * @return the function's result for it, computed now or on an earlier call
     */
    public V get(final String key) {
        synchronized (results) {
            final V held = results.get(key);
            if (held != null) {
                return held;
            }
        }
        final V computed = Objects.requireNonNull(function.apply(key), "a memoized function returned null");
        synchronized (results) {
            results.put(key, computed);
        }
        return computed;
    }

    /** @return keys held now */
    public int size() {
        synchronized (results) {
            return results.size();
        }
    }
}
