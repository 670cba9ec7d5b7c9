package dev.engram.testing;

import static dev.engram.testing.DriverTopics.input;
import static dev.engram.testing.DriverTopics.output;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.LlmUsage;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.TenantSettings;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.MemoryExtractor;
import dev.engram.topics.Topic;
import dev.engram.topology.ExtractionTopology;
import dev.engram.topology.TenantSettingsTable;
import dev.engram.topology.UserPartitions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/** The extraction topology of a {@link PipelineHarness} on its own driver, with its topics. */
final class ExtractionDriver implements AutoCloseable {

    private final TopologyTestDriver driver;
    private final TestInputTopic<String, ConversationCompleted> conversations;
    private final TestOutputTopic<String, MemoryCandidate> extracted;
    private final TestInputTopic<String, UserProfile> profilesIn;
    private final TestInputTopic<String, TenantSettings> settingsIn;
    private final TestOutputTopic<String, LlmUsage> usageOut;

    ExtractionDriver(final EngramConfig config, final MemoryExtractor extractor) {
        // one partition: the driver's records are all on partition 0, where every user key belongs
        driver = new TopologyTestDriver(ExtractionTopology.build(config, extractor,
            ScriptRoutedEmbedder.fromConfig(config), new SimpleMeterRegistry(), Runnable::run, 1, UserPartitions.fixed(1)),
            ExtractionTopology.config(config));
        conversations = input(driver, Topic.CONVERSATIONS_COMPLETED, config);
        extracted = output(driver, Topic.MEMORY_CANDIDATES, config);
        profilesIn = input(driver, Topic.USER_PROFILES, config);
        settingsIn = input(driver, Topic.TENANT_SETTINGS, config);
        usageOut = output(driver, Topic.LLM_USAGE, config);
    }

    /** Feeds one {@code user-profiles} record to the extractor's profiles table. */
    void profile(final TestRecord<String, UserProfile> record) {
        profilesIn.pipeInput(record);
    }

    /** Writes one version of a tenant's settings, keyed and timed as the admin route does. */
    void settings(final TenantSettings settings) {
        settingsIn.pipeInput(TenantSettingsTable.key(settings.getTenantId(), settings.getVersion()), settings,
            settings.getVersion());
    }

    /** Runs one conversation at a record time; returns the candidates written for it, in order. */
    List<TestRecord<String, MemoryCandidate>> extract(final ConversationCompleted c, final Instant at) {
        conversations.pipeInput(new UserKey(c.getTenantId(), c.getUserId()).wire(), c, at);
        return extracted.readRecordsToList();
    }

    /** The {@code llm-usage} records written since the last call, in order. */
    List<LlmUsage> drainUsage() {
        return usageOut.readValuesToList();
    }

    @Override
    public void close() {
        driver.close();
    }
}
