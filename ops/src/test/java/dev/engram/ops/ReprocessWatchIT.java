package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.stack.EmbeddedBroker;
import dev.engram.stack.ProjectPaths;
import dev.engram.stack.TopicSetup;
import dev.engram.streams.PipelineConfig;
import dev.engram.testing.Waits;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The in-JVM hint a {@link Rebuild} polls its app's lag faster on ({@link ReprocessWatch#fetchedAll}): a consolidator on
 * an in-process broker has fetched nothing before it joins its group, and has fetched all of its input once it has
 * processed it.
 */
class ReprocessWatchIT {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final Set<String> INPUTS = Set.of(Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_COMMANDS.name(),
        Topic.MEMORY_ACCESS.name());
    private static Path dir;
    private static EmbeddedBroker broker;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("engram-reprocess-watch-it");
        broker = EmbeddedBroker.start(dir);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            TopicSetup.createAll(admin, 2);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
        ProjectPaths.deleteRecursively(dir);
    }

    @Test
    void shouldTellTheInputFetchedOnlyOnceTheConsolidatorHasReadItToTheEnd() {
        OpsTestSupport.sendCandidates(broker.bootstrapServers(), 0, 40);
        final EngramConfig config = EngramConfig.plain().with(Map.of(CoreConfig.BOOTSTRAP_SERVERS, broker.bootstrapServers(),
            PipelineConfig.STATE_DIR, dir.resolve("streams").toString(), PipelineConfig.CONSOLIDATOR_HTTP_PORT, 0));
        try (ConsolidatorApp consolidator = ConsolidatorApp.start(config)) {
            assertThat(ReprocessWatch.fetchedAll(consolidator.runner(), INPUTS)).as("nothing fetched before the group is joined")
                .isFalse();

            OpsTestSupport.awaitConsolidated(broker.bootstrapServers(), INPUTS, TIMEOUT);

            Waits.until("the consolidator's consumers at the end of their input", TIMEOUT,
                () -> ReprocessWatch.fetchedAll(consolidator.runner(), INPUTS));
            assertThat(ReprocessWatch.fetchedAll(consolidator.runner(), Set.of("no-such-topic")))
                .as("no partition of the topics fetched").isFalse();
        }
    }
}
