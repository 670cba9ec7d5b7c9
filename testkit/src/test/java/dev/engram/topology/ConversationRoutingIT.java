package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.zip.CRC32;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.Message;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.rules.RuleBasedExtractor;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.testing.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * A chat platform whose producer partitions otherwise than Java (librdkafka's {@code consistent_random}, CRC32 of the
 * key, the default of the Python, Go and .NET clients and kcat) on a real broker with 4 partitions: the conversation
 * is produced to the partition that partitioner picks, explicitly, and the extractor still joins it with the user's
 * profile, which the Java producer wrote to the murmur2 partition. A user who turned memory off stays off (before the
 * re-routing, the task of the "wrong" partition had no profile for the user and extracted anyway).
 */
class ConversationRoutingIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final int PARTITIONS = 4;
    private static final Instant T0 = Instant.parse("2025-09-01T10:00:00Z");
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startBroker() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(PARTITIONS, Topic.allNames());
    }

    @AfterAll
    static void stopBroker() throws Exception {
        kafka.close();
    }

    /** librdkafka's consistent_random partitioner for a non-empty key: CRC32 of the key bytes, modulo the count. */
    private static int librdkafkaPartition(final String key) {
        final CRC32 crc = new CRC32();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % PARTITIONS);
    }

    /** The partition a librdkafka producer would use, or the next one when it happens to agree with Java's. */
    private static int wrongPartition(final String key) {
        final int java = UserPartitions.partition(key, PARTITIONS);
        final int crc = librdkafkaPartition(key);
        return crc != java ? crc : (java + 1) % PARTITIONS;
    }

    private static ConversationCompleted conversation(final String user, final String id, final String text) {
        final Instant at = T0.plusSeconds(3600);
        return ConversationCompleted.newBuilder().setTenantId("t1").setUserId(user).setConversationId(id)
            .setCompletedAt(at).setMessages(List.of(new Message(0, "user", text, at))).build();
    }

    @Test
    void shouldJoinTheUsersProfileWhenTheConversationArrivesOnAnotherPartitionThanItsKeys() {
        final EngramConfig config = kafka.engramConfig(Map.of());
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final String off = "t1/u-off";
        final String on = "t1/u-on";
        // the consolidator's profile of u-off, memory turned off, written by a Java producer (murmur2)
        kafka.send(Topic.USER_PROFILES.name(), new StringSerializer(), Topic.USER_PROFILES.valueSerializer(config),
            List.of(new EmbeddedKafka.Record<>(off, UserProfile.newBuilder().setTenantId("t1").setUserId("u-off")
                .setFacts(Map.of()).setMemoryEnabled(false).build(), T0)));

        try (KafkaStreams streams = new KafkaStreams(
            ExtractionTopology.build(config, new RuleBasedExtractor(), ScriptRoutedEmbedder.defaults(), registry),
            ExtractionTopology.config(config))) {
            streams.start();
            awaitProfilesConsumed();

            final Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            try (KafkaProducer<String, byte[]> producer =
                     new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
                for (final ConversationCompleted c : List.of(
                    conversation("u-off", "c-off", "I use IntelliJ for everything."),
                    conversation("u-on", "c-on", "I use IntelliJ for everything."))) {
                    final String key = c.getTenantId() + "/" + c.getUserId();
                    assertThat(wrongPartition(key)).isNotEqualTo(UserPartitions.partition(key, PARTITIONS));
                    producer.send(new ProducerRecord<>(Topic.CONVERSATIONS_COMPLETED.name(), wrongPartition(key),
                        c.getCompletedAt().toEpochMilli(), key, Topic.CONVERSATIONS_COMPLETED.valueSerializer(config)
                            .serialize(Topic.CONVERSATIONS_COMPLETED.name(), c)));
                }
                producer.flush();
            }

            final List<ConsumerRecord<String, MemoryCandidate>> candidates = kafka.read(Topic.MEMORY_CANDIDATES.name(),
                Serdes.String().deserializer(), Topic.MEMORY_CANDIDATES.valueDeserializer(config), 1, TIMEOUT);
            assertThat(candidates).singleElement().satisfies(r -> {
                assertThat(r.key()).isEqualTo(on);
                // written where the consolidator's task of the user reads
                assertThat(r.partition()).isEqualTo(UserPartitions.partition(on, PARTITIONS));
                assertThat(r.value().getValue()).isEqualTo("IntelliJ");
            });
            EmbeddedKafka.waitUntil(() -> registry.get(ExtractionTopology.METER_MEMORY_OFF).counter().count() == 1.0,
                TIMEOUT, "u-off's conversation to be skipped for memory off");
            assertThat(registry.get(ExtractionTopology.METER_REROUTED).counter().count()).isEqualTo(2.0);
            assertThat(registry.get(ExtractionTopology.METER_CONVERSATIONS).counter().count()).isEqualTo(1.0);
            assertThat(kafka.admin().listTopics().names()).succeedsWithin(TIMEOUT)
                .satisfies(names -> assertThat(names).contains(ExtractionTopology.REPARTITION_TOPIC));
            assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
        }
    }

    /** Waits until the extractor's committed offsets cover every user-profiles record: the profiles table is loaded. */
    private static void awaitProfilesConsumed() {
        EmbeddedKafka.waitUntil(() -> kafka.consumed(AppIds.EXTRACTOR, List.of(Topic.USER_PROFILES.name()), PARTITIONS),
            TIMEOUT, "the extractor to load the profiles table");
    }
}
