package dev.engram.core;

import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Work in native code that must end before the JVM does. A JVM exits (after {@code System.exit} or its shutdown hooks)
 * with its other threads still running; one of them inside a native library whose process-wide state the exit tears
 * down crashes the JVM (ONNX Runtime: a SIGSEGV and an {@code hs_err} file instead of the exit code, seen after a
 * failed benchmark whose stream threads did not stop within their 30-s close). Whoever ends the JVM calls
 * {@link #awaitAll} after closing its apps: {@code EngramCli}'s and the apps' {@code main} through {@link #exit},
 * {@code StreamsRunner}'s shutdown hook after closing the Kafka Streams client.
 *
 * <p>Thread-safe; a drain registers once per JVM.
 */
public final class ExitDrains {

    /** Work that can be stopped from starting and waited for. */
    @FunctionalInterface
    public interface Drain {
        /**
         * Lets no new work start (callers that try wait until the JVM halts) and waits for the work running.
         *
         * @param timeout the longest wait
         * @return whether the running work ended within it
         */
        boolean await(Duration timeout);
    }

    /** How long an exit waits for native work still running after the apps closed. */
    public static final Duration EXIT_DRAIN = Duration.ofSeconds(10);

    private static final CopyOnWriteArrayList<Drain> DRAINS = new CopyOnWriteArrayList<>();

    private ExitDrains() {
    }

    /**
     * @param drain work to drain at exit (registered once; a second registration of the same instance is ignored)
     */
    public static void register(final Drain drain) {
        DRAINS.addIfAbsent(drain);
    }

    /**
     * Drains every registered drain, one after the other, each within what is left of the timeout.
     *
     * @param timeout the longest wait in all
     * @return whether every drain's running work ended in time (true when none is registered)
     */
    public static boolean awaitAll(final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        boolean all = true;
        for (final Drain drain : DRAINS) {
            all &= drain.await(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        return all;
    }

    /**
     * Ends the JVM as a command's {@code main} does, after {@link #awaitAll} within {@link #EXIT_DRAIN}.
     *
     * @param status the exit code
     */
    public static void exit(final int status) {
        awaitAll(EXIT_DRAIN);
        System.exit(status);
    }
}
