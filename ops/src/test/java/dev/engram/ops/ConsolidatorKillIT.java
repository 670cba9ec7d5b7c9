package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.CoreConfig;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.streams.PipelineConfig;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.topics.Topic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consolidator process killed with SIGKILL in the middle of a stream (an open transaction left
 * behind) and restarted once on its state directory, with the default session timeout: it catches up by
 * itself (no second restart), and every candidate yields exactly one CREATED {@code memory-updated}
 * event, counted with a read_committed consumer — none lost, none duplicated. The soak of the same
 * fault, 20 kills per app, is {@code bin/engram chaos} ({@code mvn -Psoak verify}).
 */
class ConsolidatorKillIT {

    private static final int CANDIDATES = 4000;
    private static EmbeddedKafka kafka;

    @TempDir
    Path dir;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.start();
        // the product's topic setup (no time retention: the candidates' event times are months old)
        dev.engram.stack.TopicSetup.createAll(kafka.admin(), 2);
    }

    @AfterAll
    static void stopKafka() throws Exception {
        kafka.close();
    }

    @Test
    void shouldNeitherLoseNorDuplicateUpdatesWhenTheConsolidatorProcessIsKilledMidStream() throws Exception {
        OpsTestSupport.sendCandidates(kafka.bootstrapServers(), 0, CANDIDATES);
        final Path state = dir.resolve("state");
        final Path props = dir.resolve("consolidator.properties");
        Files.writeString(props, CoreConfig.BOOTSTRAP_SERVERS + "=" + kafka.bootstrapServers() + "\n"
            + PipelineConfig.STATE_DIR + "=" + state.toString().replace("\\", "/") + "\n"
            // the default 45 s session timeout: the restarted instance must not wait for it
            + PipelineConfig.CONSOLIDATOR_HTTP_PORT + "=0\n"
            // the test counts memory-updated in the clear (OpsTestSupport)
            + PipelineConfig.CRYPTO_ENABLED + "=false\n");
        final Process child = startConsolidator(props, "first");
        long atKill;
        boolean aliveAtKill;
        try {
            final long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            do {
                OpsTestSupport.poll();
                atKill = OpsTestSupport.committedUpdates(kafka.bootstrapServers()).size();
            } while (atKill == 0 && System.nanoTime() < deadline && child.isAlive());
            aliveAtKill = child.isAlive();
        } finally {
            child.destroyForcibly(); // SIGKILL: no close, no commit, an open transaction left behind
            child.waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(atKill).as("killed mid-stream: some but not all of %d updates committed (the first consolidator %s; its "
                + "log: target/consolidator-kill-first.log)", CANDIDATES,
                aliveAtKill ? "was alive" : "had exited before the kill")
            .isPositive().isLessThan(CANDIDATES);

        // Restarted once on the same state directory (a pod restarted on its volume). Its static group
        // membership (group.instance.id kept in the state directory) puts it back in the killed member's
        // place at once, and its transactional.id (from the same process id) fences the open transaction.
        final long restartedAt = System.nanoTime();
        final Process restarted = startConsolidator(props, "restarted");
        try {
            OpsTestSupport.awaitConsolidated(kafka.bootstrapServers(), Set.of(Topic.MEMORY_CANDIDATES.name()),
                Duration.ofMinutes(5));
            final double seconds = (System.nanoTime() - restartedAt) / 1e9;
            System.out.printf("ConsolidatorKillIT: the restarted consolidator caught up %.1f s after its start%n", seconds);
            assertThat(restarted.isAlive()).isTrue();
            final List<MemoryUpdated> updates = OpsTestSupport.committedUpdates(kafka.bootstrapServers());
            OpsTestSupport.assertExactlyOncePerCandidate(updates, CANDIDATES, 2);
            assertThat(updates.stream().filter(u -> u.getOperation() != UpdateOperation.CREATED).count())
                .as("updates other than CREATED").isZero();
        } finally {
            restarted.destroy();
            restarted.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Starts {@code ConsolidatorApp} in its own JVM (the test's class path), its log in target/. */
    private static Process startConsolidator(final Path props, final String name) throws java.io.IOException {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
            "-Dlog4j2.configurationFile=" + System.getProperty("engram.child.log4j",
                Path.of("src", "test", "resources", "log4j2-child.xml").toAbsolutePath().toString()),
            "-cp", System.getProperty("java.class.path"), ConsolidatorApp.class.getName(), props.toString())
            .redirectErrorStream(true).redirectOutput(Path.of("target", "consolidator-kill-" + name + ".log").toFile())
            .start();
    }
}
