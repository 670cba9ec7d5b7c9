package dev.engram.stack;

import static dev.engram.testing.MemoryFixtures.memory;
import static dev.engram.testing.MemoryFixtures.updated;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TopicScan#between}: a scan bounded by end offsets taken earlier sees the topic as it was then, however much is
 * appended before or while it reads (what a rebuild's state before relies on while the rebuilt consolidator appends);
 * {@link MemoryStateTail}: what is appended to {@code memory-updated} after given offsets, folded while it is written
 * (a rebuild's state after).
 */
class TopicScanIT {

    private static final String TOPIC = "topic-scan-it";
    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    static Path runDir;

    private static EmbeddedBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = EmbeddedBroker.start(runDir);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1),
                new NewTopic(Topic.MEMORY_UPDATED.name(), 2, (short) 1))).all().get();
        }
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void shouldReadOnlyUpToTheGivenEndsWhenTheTopicGrewSinceTheyWereTaken() throws Exception {
        send("before-0", "before-1", "before-2");
        final Map<TopicPartition, Long> ends;
        try (var consumer = TopicScan.consumer(TopicScan.client(broker.bootstrapServers()))) {
            ends = consumer.endOffsets(List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1)),
                Duration.ofSeconds(30));
        }
        send("after-0", "after-1");

        final List<String> bounded = new ArrayList<>();
        final boolean complete = TopicScan.between(TopicScan.client(broker.bootstrapServers()), TOPIC, null, ends,
            Duration.ofSeconds(60), r -> bounded.add(new String(r.value(), StandardCharsets.UTF_8)));
        final List<String> all = new ArrayList<>();
        TopicScan.toEnd(TopicScan.client(broker.bootstrapServers()), TOPIC, null, Duration.ofSeconds(60),
            r -> all.add(new String(r.value(), StandardCharsets.UTF_8)));

        assertThat(complete).isTrue();
        assertThat(bounded).containsExactly("before-0", "before-1", "before-2");
        assertThat(all).containsExactly("before-0", "before-1", "before-2", "after-0", "after-1");
    }

    @Test
    void shouldFoldOnlyWhatWasAppendedAfterTheStartOffsetsWhenReadToTheEndsOnceTheWriterIsDone() throws Exception {
        final Memory porto = memory("t1", "u", "m1", "Lives in Porto", AT).build();
        final Memory kotlin = memory("t1", "u", "m2", "Uses Kotlin", AT).build();
        update(updated(porto, UpdateOperation.CREATED, AT));
        final Map<TopicPartition, Long> start = updatedEnds();

        try (MemoryStateTail tail = MemoryStateTail.start(TopicScan.client(broker.bootstrapServers()), start,
                Topic.MEMORY_UPDATED.valueDeserializer(EngramConfig.plain()), "topic-scan-it-tail")) {
            final Memory reinforced = Memory.newBuilder(porto).setReinforcementCount(2).build();
            update(updated(kotlin, UpdateOperation.CREATED, AT), updated(reinforced, UpdateOperation.REINFORCED, AT));
            final MemoryState appended = tail.readTo(updatedEnds(), Duration.ofSeconds(60));

            assertThat(appended.events()).as("the record before the start offsets is not part of it").isEqualTo(2);
            assertThat(appended.memories().get("t1/u")).containsExactly(kotlin, reinforced);
        }
    }

    private static Map<TopicPartition, Long> updatedEnds() {
        try (var consumer = TopicScan.consumer(TopicScan.client(broker.bootstrapServers()))) {
            return consumer.endOffsets(List.of(new TopicPartition(Topic.MEMORY_UPDATED.name(), 0),
                new TopicPartition(Topic.MEMORY_UPDATED.name(), 1)), Duration.ofSeconds(30));
        }
    }

    /** Writes the events to memory-updated keyed by user, as the consolidator does. */
    private static void update(final MemoryUpdated... events) {
        try (KafkaProducer<String, MemoryUpdated> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(),
                Topic.MEMORY_UPDATED.valueSerializer(EngramConfig.plain()))) {
            for (final MemoryUpdated e : events) {
                producer.send(new ProducerRecord<>(Topic.MEMORY_UPDATED.name(), e.getTenantId() + "/" + e.getUserId(), e));
            }
            producer.flush();
        }
    }

    /** Sends the values in order to partition 0 (partition 1 stays empty: a partition ending at 0 is read too). */
    private static void send(final String... values) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(),
                new StringSerializer())) {
            for (final String v : values) {
                producer.send(new ProducerRecord<>(TOPIC, 0, "k", v));
            }
            producer.flush();
        }
    }
}
