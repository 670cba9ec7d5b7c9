package dev.engram.embedder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

/** The exit gate on real threads: an exit waits for a running inference, and none starts after the gate closed. */
class InferenceGateTest {

    @Test
    void anExitWaitsForTheRunningInferenceAndNoneStartsAfterIt() throws Exception {
        final InferenceGate gate = new InferenceGate();
        final CountDownLatch release = new CountDownLatch(1);
        final Thread running = inferenceUntil(gate, release);

        assertFalse(gate.await(Duration.ofMillis(200)), "an inference is running: the exit must not proceed");

        final AtomicBoolean closed = new AtomicBoolean();
        final Thread closing = new Thread(() -> closed.set(gate.await(Duration.ofSeconds(30))));
        closing.start();
        Thread.sleep(200);
        assertFalse(closed.get());
        release.countDown();
        closing.join(10_000);
        assertTrue(closed.get(), "the exit proceeds once the inference ended");
        running.join(10_000);

        final AtomicBoolean ranLate = new AtomicBoolean();
        final Thread late = new Thread(() -> gate.run(() -> {
            ranLate.set(true);
            return 2;
        }));
        late.setDaemon(true);
        late.start();
        late.join(500);
        assertTrue(late.isAlive(), "an inference asked for after the exit waits instead of entering native code");
        assertFalse(ranLate.get());
        assertEquals(Thread.State.WAITING, late.getState());
    }

    @Test
    void aTimedOutExitLeavesTheGateOpen() throws Exception {
        final InferenceGate gate = new InferenceGate();
        final CountDownLatch release = new CountDownLatch(1);
        final Thread running = inferenceUntil(gate, release);
        assertFalse(gate.await(Duration.ofMillis(100)));
        release.countDown();
        running.join(10_000);
        assertEquals(3, gate.run(() -> 3), "after a timed-out exit, inferences still run");
    }

    /** @return a thread inside an inference through the gate until {@code release} counts down */
    private static Thread inferenceUntil(final InferenceGate gate, final CountDownLatch release) throws InterruptedException {
        final CountDownLatch inside = new CountDownLatch(1);
        final Thread running = new Thread(() -> gate.run(() -> {
            inside.countDown();
            await(release);
            return 1;
        }));
        running.start();
        assertTrue(inside.await(10, TimeUnit.SECONDS));
        return running;
    }

    private static void await(final CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
