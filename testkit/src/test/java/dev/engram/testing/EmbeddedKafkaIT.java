package dev.engram.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaIT {

    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startCluster() {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        kafka.close();
    }

    @Test
    void shouldRoundTripRecordsThroughTheInProcessBroker() {
        kafka.createTopics(2, List.of("it-roundtrip"));
        final Instant at = Instant.parse("2025-02-03T09:12:00Z");
        kafka.send("it-roundtrip", new StringSerializer(), new StringSerializer(),
            List.of(new EmbeddedKafka.Record<>("t1/u1", "hello", at)));
        final var records = kafka.read("it-roundtrip", new StringDeserializer(), new StringDeserializer(), 1,
            Duration.ofSeconds(30));
        assertThat(records).hasSize(1);
        assertThat(records.get(0).value()).isEqualTo("hello");
        assertThat(records.get(0).timestamp()).isEqualTo(at.toEpochMilli());
    }
}
