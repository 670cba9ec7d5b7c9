package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.Message;
import dev.engram.config.EngramConfig;
import dev.engram.rules.RuleBasedExtractor;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.streams.PipelineConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.engram.topics.Topic;

/**
 * The routing step of the extraction topology on a {@code TopologyTestDriver}, whose records all arrive on partition 0:
 * with 4 partitions, a user whose key belongs on partition 0 is extracted in place, and one whose key belongs elsewhere
 * crosses the repartition topic first, is counted, and is extracted all the same, under its user key.
 */
class ConversationRoutingTest {

    private static final Instant T0 = Instant.parse("2025-09-01T10:00:00Z");

    @TempDir
    Path stateDir;

    private static String user(final int partition, final boolean on) {
        for (int i = 0; ; i++) {
            final String user = "u-" + i;
            if ((UserPartitions.partition("t1/" + user, 4) == partition) == on) {
                return user;
            }
        }
    }

    @Test
    void shouldRerouteOnlyTheConversationWhoseUserKeyBelongsOnAnotherPartitionWhenFourPartitionsExist() {
        final EngramConfig config = EngramConfig.plain().with(Map.of(PipelineConfig.STATE_DIR, stateDir.toString()));
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final String here = user(0, true);
        final String elsewhere = user(0, false);
        try (TopologyTestDriver driver = new TopologyTestDriver(ExtractionTopology.build(config, new RuleBasedExtractor(),
            ScriptRoutedEmbedder.defaults(), registry, Runnable::run, 1, UserPartitions.fixed(4)),
            ExtractionTopology.config(config))) {
            final TestInputTopic<String, ConversationCompleted> input = driver.createInputTopic(
                Topic.CONVERSATIONS_COMPLETED.name(), Serdes.String().serializer(),
                Topic.CONVERSATIONS_COMPLETED.valueSerializer(config));
            final TestOutputTopic<String, MemoryCandidate> candidates = driver.createOutputTopic(Topic.MEMORY_CANDIDATES.name(),
                Serdes.String().deserializer(), Topic.MEMORY_CANDIDATES.valueDeserializer(config));
            for (final String user : List.of(here, elsewhere)) {
                // a key that is not the user key, as some platforms send: the value decides the user
                input.pipeInput("platform-key-" + user, ConversationCompleted.newBuilder().setTenantId("t1").setUserId(user)
                    .setConversationId("c-" + user).setCompletedAt(T0)
                    .setMessages(List.of(new Message(0, "user", "I use IntelliJ for everything.", T0))).build(), T0);
            }

            assertThat(candidates.readKeyValuesToList()).extracting(kv -> kv.key)
                .containsExactlyInAnyOrder("t1/" + here, "t1/" + elsewhere);
            assertThat(registry.get(ExtractionTopology.METER_REROUTED).counter().count()).isEqualTo(1.0);
            assertThat(registry.get(ExtractionTopology.METER_CONVERSATIONS).counter().count()).isEqualTo(2.0);
        }
    }
}
