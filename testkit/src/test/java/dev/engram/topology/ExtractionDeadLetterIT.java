package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.Message;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.rules.RuleBasedExtractor;
import dev.engram.serde.AvroSerdes;
import dev.engram.testing.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.engram.topics.Topic;

/**
 * Bad input on a real broker: the extractor, running as a {@link KafkaStreams} app with
 * {@code exactly_once_v2}, sends an undecodable record and an invalid conversation to
 * {@code engram-extractor-dlq} with the reason in headers, and still writes the valid conversation's
 * candidate to {@code memory-candidates}; a conversation whose message indexes the edges refuse (−1, one index twice)
 * is taken as it is, since records already on the topic replay as they were.
 */
class ExtractionDeadLetterIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startBroker() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, Topic.allNames());
    }

    @AfterAll
    static void stopBroker() throws Exception {
        kafka.close();
    }

    private static byte[] conversation(final String tenant, final String conversationId, final String text) {
        final Instant t = Instant.parse("2025-07-07T10:00:00Z");
        return AvroSerdes.serde(ConversationCompleted.class).serializer().serialize(Topic.CONVERSATIONS_COMPLETED.name(),
            ConversationCompleted.newBuilder().setTenantId(tenant).setUserId("u-jon").setConversationId(conversationId)
                .setCompletedAt(t).setMessages(List.of(new Message(0, "user", text, t))).build());
    }

    private static String header(final ConsumerRecord<byte[], byte[]> record, final String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldDeadLetterCorruptAndInvalidRecordsAndWriteTheValidOneWhenRunOnABroker() {
        final EngramConfig config = kafka.engramConfig(Map.of());
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final byte[] corrupt = "\u0000garbage, not a conversation".getBytes(StandardCharsets.UTF_8);
        // what Kafka's console producer sends: the JSON line itself (a fresh user's first try)
        final byte[] json = " {\"tenantId\":\"t1\",\"userId\":\"u-jon\",\"conversationId\":\"c-json\",\"messages\":[]}"
            .getBytes(StandardCharsets.UTF_8);
        final byte[] invalid = conversation("", "c-invalid", "I use IntelliJ for everything.");
        final byte[] valid = conversation("t1", "c-a", "I use IntelliJ for everything.");
        // message indexes the edges refuse (ingest, POST …/conversations: ConversationValidator.indexProblem), already
        // on the topic: taken as they are, so old data replays the same
        final Instant t = Instant.parse("2025-07-07T10:00:00Z");
        final byte[] oddIndexes = AvroSerdes.serde(ConversationCompleted.class).serializer().serialize(
            Topic.CONVERSATIONS_COMPLETED.name(), ConversationCompleted.newBuilder().setTenantId("t1").setUserId("u-jon")
                .setConversationId("c-odd-indexes").setCompletedAt(t).setMessages(List.of(
                    new Message(-1, "user", "I live in Delft.", t), new Message(3, "assistant", "Nice.", t),
                    new Message(3, "user", "I drink green tea every morning.", t))).build());
        final Instant sent = Instant.parse("2025-07-07T10:00:01Z");
        kafka.send(Topic.CONVERSATIONS_COMPLETED.name(), Serdes.String().serializer(), Serdes.ByteArray().serializer(),
            List.of(new EmbeddedKafka.Record<>("t1/u-jon", corrupt, sent),
                new EmbeddedKafka.Record<>("t1/u-jon", json, sent),
                new EmbeddedKafka.Record<>("t1/u-jon", invalid, sent),
                new EmbeddedKafka.Record<>("t1/u-jon", valid, sent),
                new EmbeddedKafka.Record<>("t1/u-jon", oddIndexes, sent)));

        try (KafkaStreams streams = new KafkaStreams(
            ExtractionTopology.build(config, new RuleBasedExtractor(), ScriptRoutedEmbedder.defaults(), registry),
            ExtractionTopology.config(config))) {
            streams.start();

            final List<ConsumerRecord<String, MemoryCandidate>> all = kafka.read(Topic.MEMORY_CANDIDATES.name(),
                Serdes.String().deserializer(), AvroSerdes.serde(MemoryCandidate.class).deserializer(), 3, TIMEOUT);
            final List<ConsumerRecord<byte[], byte[]>> dead =
                kafka.readRaw(ExtractionTopology.DEAD_LETTER_TOPIC, 3, TIMEOUT);

            assertThat(all).filteredOn(r -> r.value().getConversationId().equals("c-odd-indexes"))
                .as("the odd indexes' conversation remembered, its evidence naming the index it carries")
                .anySatisfy(r -> {
                    assertThat(r.value().getContent()).contains("Delft");
                    assertThat(r.value().getSourceMessageIndexes()).containsExactly(-1);
                });
            final List<ConsumerRecord<String, MemoryCandidate>> candidates = all.stream()
                .filter(r -> !r.value().getConversationId().equals("c-odd-indexes")).toList();
            assertThat(candidates).singleElement().satisfies(r -> {
                assertThat(r.key()).isEqualTo("t1/u-jon");
                assertThat(r.value().getConversationId()).isEqualTo("c-a");
                assertThat(r.value().getKey()).isEqualTo("ide");
                assertThat(r.value().getValue()).isEqualTo("IntelliJ");
                assertThat(r.value().getEmbedding()).hasSize(384);
            });
            assertThat(dead).hasSize(3);
            assertThat(dead).extracting(ConsumerRecord::value).containsExactly(corrupt, json, invalid);
            assertThat(dead).extracting(r -> header(r, DeadLetters.HEADER_STAGE))
                .containsExactly("deserialization", "deserialization", "validation");
            assertThat(dead.subList(0, 2)).extracting(r -> header(r, DeadLetters.HEADER_CLASS))
                .containsOnly("org.apache.kafka.common.errors.SerializationException");
            assertThat(header(dead.get(0), DeadLetters.HEADER_REASON)).doesNotContain("JSON");
            assertThat(header(dead.get(1), DeadLetters.HEADER_REASON)).as("the JSON value named, with what to do")
                .startsWith("the value looks like JSON (it starts with '{'), not Avro")
                .contains("Avro single-object encoding", "bin/engram schemas export DIR",
                    "POST /v1/tenants/{tenant}/users/{user}/conversations", "Unrecognized header bytes: 0x20 0x7B");
            assertThat(header(dead.get(2), DeadLetters.HEADER_REASON))
                .isEqualTo("invalid user key: tenantId is missing or blank");
            assertThat(dead).extracting(r -> header(r, DeadLetters.HEADER_SOURCE_TOPIC))
                .containsOnly(Topic.CONVERSATIONS_COMPLETED.name());
            assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
            assertThat(registry.get(DeadLetters.METER).counter().count()).isEqualTo(3.0);
        }
    }
}
