package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.topology.Topics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consolidator process killed with SIGKILL in the middle of a stream (an open transaction left
 * behind) and restarted: every candidate yields exactly one CREATED {@code memory-updated} event,
 * counted with a read_committed consumer — none lost, none duplicated.
 */
class ConsolidatorKillIT {

    private static final int CANDIDATES = 4000;
    private static EmbeddedKafka kafka;

    @TempDir
    Path dir;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, Topics.all());
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
        Files.writeString(props, EngramConfig.BOOTSTRAP_SERVERS + "=" + kafka.bootstrapServers() + "\n"
            + EngramConfig.STATE_DIR + "=" + state.toString().replace("\\", "/") + "\n"
            + EngramConfig.CONSOLIDATOR_HTTP_PORT + "=0\n"
            // the killed member leaves the group after this, not after the default 45 s
            + "kafka.session.timeout.ms=6000\n");
        final Process child = startConsolidator(props, "first");
        long atKill;
        try {
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            do {
                OpsTestSupport.poll();
                atKill = OpsTestSupport.committedUpdates(kafka.bootstrapServers()).size();
            } while (atKill == 0 && System.nanoTime() < deadline && child.isAlive());
        } finally {
            child.destroyForcibly(); // SIGKILL: no close, no commit, an open transaction left behind
            child.waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(atKill).as("killed mid-stream: some but not all updates committed").isPositive().isLessThan(CANDIDATES);

        // Restarted on the same state directory (a pod restarted on its volume). Kafka 4.3.1 (transactions
        // v2) sometimes leaves a consolidator restarted after a SIGKILL RUNNING and live but fetching nothing
        // (stream thread polling, no records, no error; seen with a fresh state directory too). The alert
        // EngramConsumerLagHigh is what catches that in production, and a restart cures it: the test
        // does the same, at most twice, and still requires every update exactly once.
        Process restarted = null;
        int restarts = 0;
        try {
            while (true) {
                restarted = startConsolidator(props, "restarted-" + restarts);
                if (progresses(Duration.ofSeconds(30)) || restarts == 2) {
                    break;
                }
                restarts++;
                System.out.println("ConsolidatorKillIT: restarted consolidator made no progress in 30 s; restarting it ("
                    + restarts + ")");
                restarted.destroy();
                restarted.waitFor(30, TimeUnit.SECONDS);
            }
            OpsTestSupport.awaitNoLag(kafka.bootstrapServers(), Topics.CONSOLIDATOR_APP, Set.of(Topics.MEMORY_CANDIDATES),
                Duration.ofSeconds(60));
            final List<MemoryUpdated> updates = OpsTestSupport.committedUpdates(kafka.bootstrapServers());
            final Set<String> ids = updates.stream().map(MemoryUpdated::getMemoryId).collect(Collectors.toSet());
            assertThat(updates).as("updates after %d extra restart(s)", restarts).hasSize(CANDIDATES);
            assertThat(ids).hasSize(CANDIDATES);
            assertThat(updates).allMatch(u -> u.getOperation() == UpdateOperation.CREATED);
        } finally {
            if (restarted != null) {
                restarted.destroy();
                restarted.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /** @return whether the group's lag drops (or reaches 0) within the timeout */
    private static boolean progresses(final Duration timeout) {
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
            Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            final GroupOffsets offsets = new GroupOffsets(admin);
            final long start = offsets.lag(Topics.CONSOLIDATOR_APP, Set.of(Topics.MEMORY_CANDIDATES));
            final long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                OpsTestSupport.poll();
                final long lag = offsets.lag(Topics.CONSOLIDATOR_APP, Set.of(Topics.MEMORY_CANDIDATES));
                if (lag < start || lag == 0) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Starts {@code ConsolidatorApp} in its own JVM (the test's class path), its log in target/. */
    private static Process startConsolidator(final Path props, final String name) throws java.io.IOException {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
            "-Dlog4j2.configurationFile=" + Path.of("src", "test", "resources", "log4j2-child.xml").toAbsolutePath(),
            "-cp", System.getProperty("java.class.path"), ConsolidatorApp.class.getName(), props.toString())
            .redirectErrorStream(true).redirectOutput(Path.of("target", "consolidator-kill-" + name + ".log").toFile())
            .start();
    }
}
