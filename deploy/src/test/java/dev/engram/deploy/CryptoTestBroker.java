package dev.engram.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import dev.engram.crypto.PersonalSerdes;
import dev.engram.ops.OpsTestSupport;
import dev.engram.stack.DemoApps;
import dev.engram.stack.EmbeddedBroker;
import dev.engram.stack.ProjectPaths;
import dev.engram.stack.TopicSetup;
import dev.engram.topics.AppIds;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;

/**
 * The broker of a crypto-shredding integration test class ({@link CryptoShreddingIT},
 * {@link CryptoOffOnSealedTopicsIT}): an in-process broker in a temporary directory of its own, with Engram's topics
 * (2 partitions each), started in {@code @BeforeAll} and closed in {@code @AfterAll}, with one teardown: the data-key
 * readers that sealed serdes cache for the whole JVM ({@link PersonalSerdes#closeAll}) are closed before the broker
 * they read from, then the directory is deleted.
 */
final class CryptoTestBroker implements AutoCloseable {

    private final Path dir;
    private final EmbeddedBroker broker;

    private CryptoTestBroker(final Path dir, final EmbeddedBroker broker) {
        this.dir = dir;
        this.broker = broker;
    }

    /**
     * @param name the temporary directory's prefix
     * @return a running broker holding Engram's topics
     * @throws IOException if the directory cannot be made
     */
    static CryptoTestBroker start(final String name) throws IOException {
        final Path dir = Files.createTempDirectory(name);
        final EmbeddedBroker broker = EmbeddedBroker.start(dir);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            TopicSetup.createAll(admin, 2);
        }
        return new CryptoTestBroker(dir, broker);
    }

    /** @return the test class's directory (the broker's, the apps' state, its files) */
    Path dir() {
        return dir;
    }

    /** @return the broker's bootstrap servers */
    String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /**
     * Waits until the apps have processed everything published so far: the extractor idle, the consolidator's
     * candidates and commands and the retriever's {@code memory-updated} without lag.
     *
     * @param apps the running apps
     * @param timeout the bound of each wait
     */
    void awaitProcessed(final DemoApps apps, final Duration timeout) {
        OpsTestSupport.awaitExtracted(bootstrapServers(), () -> apps.extractorIdle() ? 0 : 1, timeout);
        OpsTestSupport.awaitConsolidated(bootstrapServers(),
            Set.of(Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_COMMANDS.name()), timeout);
        OpsTestSupport.awaitNoLag(bootstrapServers(), AppIds.RETRIEVER, Set.of(Topic.MEMORY_UPDATED.name()), timeout);
    }

    @Override
    public void close() throws Exception {
        PersonalSerdes.closeAll();
        broker.close();
        ProjectPaths.deleteRecursively(dir);
    }
}
