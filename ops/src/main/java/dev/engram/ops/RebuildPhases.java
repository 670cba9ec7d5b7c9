package dev.engram.ops;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a {@link Rebuild}'s wall time goes: consecutive phases, each the wall time from the end of the one before (the
 * first from construction), so they add up to the total. A phase ended twice under one name adds up. Not thread-safe.
 */
final class RebuildPhases {

    private final long started = System.nanoTime();
    private long last = started;
    private final Map<String, Double> seconds = new LinkedHashMap<>();

    /**
     * Ends a phase now.
     *
     * @param name e.g. {@code reset}
     */
    void end(final String name) {
        final long now = System.nanoTime();
        seconds.merge(name, (now - last) / 1e9, Double::sum);
        last = now;
    }

    /** @return seconds since construction */
    double total() {
        return (System.nanoTime() - started) / 1e9;
    }

    /** @return phase → seconds, in the order they first ended */
    Map<String, Double> seconds() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(seconds));
    }
}
