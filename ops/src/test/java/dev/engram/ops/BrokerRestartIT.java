package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.avro.MemoryUpdated;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.stack.EmbeddedBroker;
import dev.engram.stack.TopicSetup;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker stopped and restarted (same port, same log directory) while the consolidator runs: the
 * app recovers by itself, without a restart, and every candidate sent before, during recovery and
 * after yields exactly one {@code memory-updated} event (read_committed count). The test waits for the
 * condition (the consolidator's group has no lag), never for a fixed time, prints the recovery time it
 * saw, and only then counts: a slow recovery under load is a longer wait, a loss is a failure naming the
 * missing candidates. Every send is checked ({@link OpsTestSupport#sendCandidates}): the 501/600 of an
 * earlier CI run was the test's own producer losing a batch to the restarted broker (KAFKA-15591), not
 * the consolidator.
 */
class BrokerRestartIT {

    private static final int PER_PHASE = 300;
    private static final int PARTITIONS = 2;
    /** Generous: at load 10-20 on 2 cores the restarted broker and the app's rebalance take tens of seconds. */
    private static final Duration RECOVERY_DEADLINE = Duration.ofMinutes(5);

    @TempDir
    Path dir;

    @Test
    void shouldRecoverByItselfAndLoseNothingWhenTheBrokerRestarts() throws Exception {
        EmbeddedBroker broker = EmbeddedBroker.start(dir.resolve("broker"));
        final String bootstrap = broker.bootstrapServers();
        final int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            TopicSetup.createAll(admin, PARTITIONS);
        }
        final EngramConfig config = EngramConfig.plain().with(Map.of(CoreConfig.BOOTSTRAP_SERVERS, bootstrap,
            PipelineConfig.STATE_DIR, dir.resolve("state").toString(), PipelineConfig.CONSOLIDATOR_HTTP_PORT, 0,
            "kafka.reconnect.backoff.max.ms", 500));
        try (ConsolidatorApp app = ConsolidatorApp.start(config)) {
            OpsTestSupport.sendCandidates(bootstrap, 0, PER_PHASE);
            OpsTestSupport.awaitConsolidated(bootstrap, Set.of(Topic.MEMORY_CANDIDATES.name()), RECOVERY_DEADLINE);

            broker.close();
            final long stoppedAt = System.nanoTime();
            broker = EmbeddedBroker.start(dir.resolve("broker"), port, Map.of());
            final double brokerBack = (System.nanoTime() - stoppedAt) / 1e9;

            OpsTestSupport.sendCandidates(bootstrap, PER_PHASE, 2 * PER_PHASE);
            final double sent = (System.nanoTime() - stoppedAt) / 1e9;
            OpsTestSupport.awaitConsolidated(bootstrap, Set.of(Topic.MEMORY_CANDIDATES.name()), RECOVERY_DEADLINE);
            final double caughtUp = (System.nanoTime() - stoppedAt) / 1e9;
            System.out.printf("BrokerRestartIT: broker back %.1f s after its stop, %d candidates sent at %.1f s, "
                + "consolidator caught up (no lag) at %.1f s (load average %.1f)%n", brokerBack, PER_PHASE, sent, caughtUp,
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            final List<MemoryUpdated> updates = OpsTestSupport.committedUpdates(bootstrap);

            assertThat(app.runner().isLive()).as("recovered without a restart").isTrue();
            OpsTestSupport.assertExactlyOncePerCandidate(updates, 2 * PER_PHASE, PARTITIONS);
        } finally {
            broker.close();
        }
    }
}
