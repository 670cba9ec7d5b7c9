package dev.engram.testing;

import java.time.Duration;
import java.util.function.Predicate;

/**
 * Bounded condition waits for tests: poll a probe until its value satisfies a condition or a deadline passes, then fail
 * naming what was awaited, the deadline and the last value seen (its last 500 characters: the end of a log). Never a fixed delay: a test under load (CI at load
 * 10+) waits as long as it has to, up to the deadline, and no longer than the condition takes on a quiet machine.
 * The probe may throw: an {@link AssertionError} or unchecked exception ends the wait at once (e.g. "the demo exited");
 * a checked one (an HTTP call interrupted) is rethrown as an {@link AssertionError} naming the wait.
 */
public final class Waits {

    /** Interval between two polls unless given. */
    public static final Duration POLL = Duration.ofMillis(100);

    private Waits() {
    }

    /**
     * A value to poll.
     *
     * @param <T> its type
     */
    @FunctionalInterface
    public interface Probe<T> {
        /**
         * @return the current value
         * @throws Exception when it cannot be read
         */
        T get() throws Exception;
    }

    /**
     * @param what described in the failure message, e.g. {@code "the demo serving"}
     * @param timeout bound of the wait
     * @param condition polled every {@link #POLL}
     * @throws AssertionError if it does not hold within the timeout
     */
    public static void until(final String what, final Duration timeout, final Probe<Boolean> condition) {
        until(what, timeout, POLL, condition, Boolean.TRUE::equals);
    }

    /**
     * @param what described in the failure message
     * @param timeout bound of the wait
     * @param value polled every {@link #POLL}
     * @param done the condition on the value
     * @param <T> the value's type
     * @return the first value that satisfied the condition
     * @throws AssertionError naming the last value if none did within the timeout
     */
    public static <T> T until(final String what, final Duration timeout, final Probe<T> value, final Predicate<? super T> done) {
        return until(what, timeout, POLL, value, done);
    }

    /**
     * @param what described in the failure message
     * @param timeout bound of the wait
     * @param poll interval between two polls (short where the test must act right after the condition turns true)
     * @param value the probe
     * @param done the condition on the value
     * @param <T> the value's type
     * @return the first value that satisfied the condition
     * @throws AssertionError naming the last value if none did within the timeout
     */
    public static <T> T until(final String what, final Duration timeout, final Duration poll, final Probe<T> value,
                              final Predicate<? super T> done) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            final T last;
            try {
                last = value.get();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted waiting for " + what, e);
            } catch (Exception e) {
                throw new AssertionError("Cannot read the state while waiting for " + what + ": " + e, e);
            }
            if (done.test(last)) {
                return last;
            }
            if (System.nanoTime() - deadline > 0) {
                final String shown = String.valueOf(last);
                throw new AssertionError("Timed out after " + timeout + " waiting for " + what + "; last seen: "
                    + (shown.length() > 500 ? "…" + shown.substring(shown.length() - 500) : shown));
            }
            try {
                Thread.sleep(poll.toMillis()); // the polling interval of a bounded wait, not a fixed delay
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted waiting for " + what, e);
            }
        }
    }
}
