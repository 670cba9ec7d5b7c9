package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The demo's close sequence when the main thread and the Ctrl-C hook both close. */
class ReverseCloserTest {

    private final List<String> closed = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstCloseStarted = new CountDownLatch(1);

    /** A part that records its close and takes {@code millis} to close. */
    private AutoCloseable part(final String name, final long millis) {
        return () -> {
            firstCloseStarted.countDown();
            Thread.sleep(millis);
            closed.add(name);
        };
    }

    @Test
    void shouldCloseEveryPartOnceInReverseOrderWhenTwoThreadsCloseAtOnce() throws Exception {
        final ReverseCloser closer = new ReverseCloser(System.err);
        closer.push(part("broker", 50));
        closer.push(part("extractor", 50));
        closer.push(part("consolidator", 50));
        closer.push(part("retriever", 50));
        closer.push(part("monitor", 50));

        final Thread hook = new Thread(closer::closeAll, "hook");
        hook.start();
        assertThat(firstCloseStarted.await(5, TimeUnit.SECONDS)).isTrue();
        closer.closeAll(); // the main thread's finally, while the hook is closing the monitor

        // the second caller returned only once everything was closed, in order: the broker last
        assertThat(closed).containsExactly("monitor", "retriever", "consolidator", "extractor", "broker");
        hook.join(5_000);
        assertThat(closed).hasSize(5);
        assertThat(closer.isEmpty()).isTrue();
    }

    @Test
    void shouldCloseAPartStartedAfterTheClosingBeganAtOnceAndRefuseIt() {
        final ReverseCloser closer = new ReverseCloser(System.err);
        closer.push(part("broker", 0));
        closer.closeAll();

        assertThatThrownBy(() -> closer.push(part("apps", 0))).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("Stopping");
        assertThat(closed).containsExactly("broker", "apps");
    }

    @Test
    void shouldReportAPartThatFailsToCloseAndCloseTheRest() {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final ReverseCloser closer = new ReverseCloser(new PrintStream(err, true, StandardCharsets.UTF_8));
        closer.push(part("broker", 0));
        closer.push(() -> {
            throw new IllegalStateException("boom");
        });
        closer.closeAll();

        assertThat(closed).containsExactly("broker");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Error while closing").contains("boom");
    }
}
