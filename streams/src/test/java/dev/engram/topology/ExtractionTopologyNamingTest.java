package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.engram.config.EngramConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.rules.RuleBasedExtractor;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;

/** Pins every node and topic name of the extraction topology: renaming one is a breaking change. */
class ExtractionTopologyNamingTest {

    @Test
    void shouldKeepEveryNodeAndTopicNameWhenTheTopologyIsBuilt() {
        final TopologyDescription description = ExtractionTopology.build(EngramConfig.plain(),
            new RuleBasedExtractor(), ScriptRoutedEmbedder.defaults(), new SimpleMeterRegistry()).describe();

        assertThat(description.globalStores()).singleElement().satisfies(global -> {
            assertThat(global.source().name()).isEqualTo("read-tenant-settings");
            assertThat(global.source().topicSet()).containsExactly("tenant-settings");
            assertThat(global.processor().name()).isEqualTo("materialize-tenant-settings");
            assertThat(global.processor().stores()).containsExactly("tenant-settings-store");
        });
        assertThat(description.subtopologies()).hasSize(1);
        final Map<String, String> nodes = new TreeMap<>();
        for (final TopologyDescription.Node node : description.subtopologies().iterator().next().nodes()) {
            if (node instanceof TopologyDescription.Source source) {
                nodes.put(node.name(), "source " + source.topicSet());
            } else if (node instanceof TopologyDescription.Sink sink) {
                nodes.put(node.name(), "sink " + sink.topic());
            } else if (node instanceof TopologyDescription.Processor processor) {
                nodes.put(node.name(), "processor " + new java.util.TreeSet<>(processor.stores()));
            }
        }
        assertThat(nodes).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
            Map.entry("read-conversations-completed", "source " + Set.of("conversations-completed")),
            Map.entry("extract-memories", "processor [extraction-pending-store, extractor-profiles-store]"),
            Map.entry("read-user-profiles", "source " + Set.of("user-profiles")),
            Map.entry("materialize-user-profiles", "processor [extractor-profiles-store]"),
            Map.entry("write-memory-candidates", "sink memory-candidates"),
            Map.entry("write-llm-usage", "sink llm-usage"),
            Map.entry("write-dead-letters", "sink engram-extractor-dlq"),
            // the re-routing of conversations read from another partition than their user key's
            Map.entry("route-by-user-key", "processor []"),
            Map.entry("split-by-partition", "processor []"),
            Map.entry("split-by-partition-in-place", "processor []"),
            Map.entry("split-by-partition-misplaced", "processor []"),
            Map.entry("unwrap-in-place", "processor []"),
            Map.entry("unwrap-misplaced", "processor []"),
            Map.entry("conversations-by-user-repartition-filter", "processor []"),
            Map.entry("conversations-by-user-repartition-sink", "sink conversations-by-user-repartition"),
            Map.entry("conversations-by-user-repartition-source", "source [conversations-by-user-repartition]"),
            Map.entry("merge-conversations", "processor []")));
    }
}
