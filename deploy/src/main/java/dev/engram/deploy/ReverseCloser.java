package dev.engram.deploy;

import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The demo's running parts (run-directory lock, broker, apps, monitor, ingest), closed in reverse order of
 * start, each once, by whichever thread asks first: the main thread when the demo ends, or the shutdown
 * hook on Ctrl-C. The whole sequence runs under one lock, so a second caller waits until the first has
 * closed everything; two threads taking turns on the stack would close the broker while the other was
 * still closing an app (which then retried against the stopped broker for a minute).
 *
 * <p>A part started after the closing began (the main thread was starting the apps when Ctrl-C came) is
 * closed at once and refused with {@link IllegalStateException}.
 */
final class ReverseCloser {

    private final Deque<AutoCloseable> open = new ArrayDeque<>();
    private final PrintStream err;
    private boolean closing;

    /** @param err where a part that fails to close is reported (one line each; the others still close) */
    ReverseCloser(final PrintStream err) {
        this.err = err;
    }

    /**
     * @param part a started part
     * @param <T> its type
     * @return {@code part}
     * @throws IllegalStateException when closing has begun (the part is closed before this is thrown)
     */
    synchronized <T extends AutoCloseable> T push(final T part) {
        if (closing) {
            close(part);
            throw new IllegalStateException("Stopping: " + part.getClass().getSimpleName() + " was closed at once");
        }
        open.push(part);
        return part;
    }

    /** @return true when nothing is open */
    synchronized boolean isEmpty() {
        return open.isEmpty();
    }

    /** Closes every part, last started first; returns when all are closed, also when another thread began. */
    synchronized void closeAll() {
        closing = true;
        while (!open.isEmpty()) {
            close(open.pop());
        }
    }

    private void close(final AutoCloseable part) {
        try {
            part.close();
        } catch (Exception e) {
            err.println("Error while closing " + part.getClass().getSimpleName() + ": " + e);
        }
    }
}
