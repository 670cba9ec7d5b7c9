package dev.engram.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.engram.testing.EmbeddedKafka;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The follower of the small compacted topics (data keys, active embedding model) on the in-process broker: it
 * waits for a topic that does not exist yet, reads it from the beginning in offset order, tombstones included,
 * skips a record its consumer of records throws on without stopping, and bounded waits fail with the caller's
 * exception type.
 */
class TopicFollowerIT {

    private static final String TOPIC = "follower-test-keys";
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stop() throws Exception {
        kafka.close();
    }

    @Test
    void shouldReadATopicCreatedLaterInOrderSkippingARecordItCannotApplyWhenFollowing() {
        final Map<String, String> applied = new ConcurrentHashMap<>();
        try (TopicFollower follower = new TopicFollower(Map.of("bootstrap.servers", kafka.bootstrapServers()), TOPIC,
            "follower-test", (key, value) -> {
                if ("poison".equals(key)) {
                    throw new IllegalArgumentException("cannot apply " + key);
                }
                if (value == null) {
                    applied.remove(key);
                } else {
                    applied.put(key, new String(value, StandardCharsets.UTF_8));
                }
            }, SerializationException::new)) {
            // absent topic: the first pass is over at once (what the app has stands)
            assertThat(follower.awaitFirstPass(Duration.ofSeconds(60))).isTrue(); // generous: a loaded machine

            kafka.createTopics(1, List.of(TOPIC));
            kafka.send(TOPIC, new StringSerializer(), new ByteArraySerializer(), List.of(
                record("a", "1"), record("poison", "x"), record("b", "2"), record("a", null), record("c", "3")));
            follower.awaitEnd(Duration.ofSeconds(30));

            assertThat(applied).containsExactlyInAnyOrderEntriesOf(Map.of("b", "2", "c", "3"));
            assertThat(follower.failure()).isNull();
            assertThatThrownBy(() -> follower.awaitPosition(0, 1_000, Duration.ofMillis(300)))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining(TOPIC + " partition 0 not read up to offset 1000 within 300 ms");
        }
    }

    private static EmbeddedKafka.Record<String, byte[]> record(final String key, final String value) {
        return new EmbeddedKafka.Record<>(key, value == null ? null : value.getBytes(StandardCharsets.UTF_8),
            java.time.Instant.parse("2025-01-01T00:00:00Z"));
    }
}
