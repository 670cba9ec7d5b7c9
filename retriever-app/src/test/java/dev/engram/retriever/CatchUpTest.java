package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The catch-up latch's bound: it never stays closed longer than its maximum wait, even without a cluster. */
class CatchUpTest {

    @Test
    void shouldOpenAfterTheMaximumWaitWhenTheClusterCannotBeAsked() throws Exception {
        try (CatchUp latch = new CatchUp(() -> null, Map.of("bootstrap.servers", "127.0.0.1:1"), "engram-retriever",
            "memory-updated", Duration.ofMillis(600))) {
            latch.start();
            assertThat(latch.caughtUp()).isFalse();
            final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!latch.caughtUp() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(latch.caughtUp()).isTrue();
        }
    }

    @Test
    void shouldBeOpenAtOnceWhenTheMaximumWaitIsZero() {
        try (CatchUp latch = new CatchUp(() -> null, Map.of("bootstrap.servers", "127.0.0.1:1"), "engram-retriever",
            "memory-updated", Duration.ZERO)) {
            latch.start();
            assertThat(latch.caughtUp()).isTrue();
        }
    }
}
