package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.engram.avro.MemoryUpdated;
import dev.engram.config.EngramConfig;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.stack.EmbeddedBroker;
import dev.engram.stack.TopicSetup;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * The broker stopped and restarted (same port, same log directory) while the consolidator runs: the
 * app recovers by itself, without a restart, and every candidate sent before, during recovery and
 * after yields exactly one {@code memory-updated} event (read_committed count).
 */
class BrokerRestartIT {

    private static final int PER_PHASE = 300;

    @TempDir
    Path dir;

    @Test
    void shouldRecoverByItselfAndLoseNothingWhenTheBrokerRestarts() throws Exception {
        EmbeddedBroker broker = EmbeddedBroker.start(dir.resolve("broker"));
        final String bootstrap = broker.bootstrapServers();
        final int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            TopicSetup.createAll(admin, 2);
        }
        final EngramConfig config = new EngramConfig(Map.of(EngramConfig.BOOTSTRAP_SERVERS, bootstrap,
            EngramConfig.STATE_DIR, dir.resolve("state").toString(), EngramConfig.CONSOLIDATOR_HTTP_PORT, 0,
            "kafka.reconnect.backoff.max.ms", 500));
        try (ConsolidatorApp app = ConsolidatorApp.start(config)) {
            OpsTestSupport.sendCandidates(bootstrap, 0, PER_PHASE);
            OpsTestSupport.awaitNoLag(bootstrap, AppIds.CONSOLIDATOR, Set.of(Topic.MEMORY_CANDIDATES.name()), Duration.ofSeconds(60));

            broker.close();
            broker = EmbeddedBroker.start(dir.resolve("broker"), port, Map.of());

            OpsTestSupport.sendCandidates(bootstrap, PER_PHASE, 2 * PER_PHASE);
            OpsTestSupport.awaitNoLag(bootstrap, AppIds.CONSOLIDATOR, Set.of(Topic.MEMORY_CANDIDATES.name()), Duration.ofSeconds(90));
            final List<MemoryUpdated> updates = OpsTestSupport.committedUpdates(bootstrap);

            assertThat(app.runner().isLive()).as("recovered without a restart").isTrue();
            assertThat(updates).hasSize(2 * PER_PHASE);
            assertThat(updates.stream().map(MemoryUpdated::getMemoryId).collect(Collectors.toSet())).hasSize(2 * PER_PHASE);
        } finally {
            broker.close();
        }
    }
}
