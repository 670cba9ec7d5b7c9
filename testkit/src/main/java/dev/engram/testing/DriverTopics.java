package dev.engram.testing;

import dev.engram.config.EngramConfig;
import dev.engram.topics.Topic;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/** The test topics of a harness driver, each with the topic's own Serdes under the harness's config. */
final class DriverTopics {

    private DriverTopics() {
    }

    /** An input topic of a driver with the topic's own Serdes under a config. */
    static <V> TestInputTopic<String, V> input(final TopologyTestDriver driver, final Topic<String, V> topic,
                                               final EngramConfig config) {
        return driver.createInputTopic(topic.name(), topic.keySerializer(), topic.valueSerializer(config));
    }

    /** An output topic of a driver with the topic's own Serdes under a config. */
    static <V> TestOutputTopic<String, V> output(final TopologyTestDriver driver, final Topic<String, V> topic,
                                                 final EngramConfig config) {
        return driver.createOutputTopic(topic.name(), topic.keyDeserializer(), topic.valueDeserializer(config));
    }
}
