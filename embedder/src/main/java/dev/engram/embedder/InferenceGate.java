package dev.engram.embedder;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

import dev.engram.core.ExitDrains;

/**
 * Counts the inferences running in ONNX Runtime so that the JVM does not exit under one ({@link ExitDrains}): each
 * inference holds a read lock; {@link #await} takes the write lock and never gives it back, so that inferences asked
 * for after it wait (until the JVM halts) instead of entering native code being torn down. Called only by whoever ends
 * the JVM, after its apps closed, so an app's graceful close never waits on the gate.
 *
 * <p>Thread-safe. An inference that itself runs on other threads (a group spread over the pool) holds the read lock on
 * the caller's thread until its runs are joined.
 */
final class InferenceGate implements ExitDrains.Drain {

    private final ReadWriteLock lock = new ReentrantReadWriteLock();

    /**
     * @param inference work that enters ONNX Runtime
     * @param <T> its result
     * @return its result
     */
    <T> T run(final Supplier<T> inference) {
        lock.readLock().lock();
        try {
            return inference.get();
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Closes the gate: no inference starts after this call returns true, and none is running.
     *
     * @param timeout the longest wait for the running inferences
     * @return whether they ended within it (false: the gate stays open, the JVM may still exit under one)
     */
    @Override
    public boolean await(final Duration timeout) {
        try {
            return lock.writeLock().tryLock(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
