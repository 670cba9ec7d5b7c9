package dev.engram.topology;

import static dev.engram.topology.FedCandidates.fact;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.store.EmbeddedVectorIndexFactory;
import dev.engram.rules.KeyValueContradictionJudge;
import dev.engram.serde.AvroSerdes;
import dev.engram.testing.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * {@link ConsolidationTopology} on the in-process KRaft broker under exactly_once_v2: dead letters
 * from both paths (undeserializable bytes through Streams' KIP-1034 handler, invalid candidates
 * through the topology's own sink; JSON on memory-commands named as JSON), a supersede, and the changelog topic names.
 * Candidates are FED.
 */
class ConsolidationTopologyIT {

    private static final String USER = "t1/u-it";
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startCluster() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(1, Topic.allNames());
    }

    @AfterAll
    static void stopCluster() throws Exception {
        kafka.close();
    }

    @Test
    void shouldDeadLetterBadRecordsAndSupersedeOnBrokerWhenCandidatesFed() throws Exception {
        final MemoryCandidate lyon = fact(USER, "c-1", "2025-12-01T09:00:00Z", "city", "Lyon", "I live in Lyon.");
        final MemoryCandidate nantes = fact(USER, "c-7", "2025-12-07T09:00:00Z", "city", "Nantes", "We moved to Nantes.");
        final MemoryCandidate wrongSize = MemoryCandidate.newBuilder(lyon).setEmbedding(List.of(1f, 2f)).build();
        final byte[] corrupt = "definitely not avro".getBytes(StandardCharsets.UTF_8);
        final var serializer = AvroSerdes.serde(MemoryCandidate.class).serializer();
        kafka.send(Topic.MEMORY_CANDIDATES.name(), new StringSerializer(), new ByteArraySerializer(), List.of(
            new EmbeddedKafka.Record<>(USER, corrupt, lyon.getEventTime()),
            new EmbeddedKafka.Record<>(USER, serializer.serialize(Topic.MEMORY_CANDIDATES.name(), wrongSize), lyon.getEventTime()),
            new EmbeddedKafka.Record<>(USER, serializer.serialize(Topic.MEMORY_CANDIDATES.name(), lyon), lyon.getEventTime()),
            new EmbeddedKafka.Record<>(USER, serializer.serialize(Topic.MEMORY_CANDIDATES.name(), nantes), nantes.getEventTime())));
        // what Kafka's console producer sends to memory-commands (session 15 trial F19): named as JSON, as the extractor
        // names it on conversations-completed, not only "Unrecognized header bytes: 0x7B 0x22"
        final byte[] jsonCommand = "{\"kind\":\"DELETE\"}".getBytes(StandardCharsets.UTF_8);
        kafka.send(Topic.MEMORY_COMMANDS.name(), new StringSerializer(), new ByteArraySerializer(),
            List.of(new EmbeddedKafka.Record<>(USER, jsonCommand, lyon.getEventTime())));

        final KafkaStreams streams = new KafkaStreams(
            ConsolidationTopology.build(kafka.engramConfig(Map.of()), new KeyValueContradictionJudge(),
                new EmbeddedVectorIndexFactory(), new SimpleMeterRegistry()),
            ConsolidationTopology.config(kafka.engramConfig(Map.of())));
        try {
            streams.start();
            final List<ConsumerRecord<String, MemoryUpdated>> updated = kafka.read(Topic.MEMORY_UPDATED.name(),
                new StringDeserializer(), AvroSerdes.serde(MemoryUpdated.class).deserializer(), 3, Duration.ofSeconds(60));
            assertThat(updated).extracting(r -> r.value().getOperation())
                .containsExactly(UpdateOperation.CREATED, UpdateOperation.SUPERSEDED, UpdateOperation.CREATED);
            assertThat(updated).extracting(ConsumerRecord::key).containsOnly(USER);
            assertThat(updated.get(2).timestamp()).isEqualTo(nantes.getEventTime().toEpochMilli());

            final List<ConsumerRecord<byte[], byte[]>> all =
                kafka.readRaw(Topic.deadLetters(AppIds.CONSOLIDATOR).name(), 3, Duration.ofSeconds(30));
            assertThat(all).hasSize(3);
            assertThat(all).filteredOn(r -> Topic.MEMORY_COMMANDS.name().equals(header(r, DeadLetters.HEADER_SOURCE_TOPIC)))
                .singleElement().satisfies(r -> {
                    assertThat(r.value()).isEqualTo(jsonCommand);
                    assertThat(header(r, DeadLetters.HEADER_REASON))
                        .startsWith("the value looks like JSON (it starts with '{'), not Avro: memory-commands takes a"
                            + " MemoryCommand in Avro single-object encoding")
                        .contains("DELETE /v1/tenants/{tenant}/users/{user}/memories/{id}", "Unrecognized header bytes: 0x7B 0x22");
                });
            final List<ConsumerRecord<byte[], byte[]>> dead = all.stream()
                .filter(r -> Topic.MEMORY_CANDIDATES.name().equals(header(r, DeadLetters.HEADER_SOURCE_TOPIC))).toList();
            assertThat(dead).hasSize(2);
            assertThat(dead.get(0).value()).isEqualTo(corrupt);
            assertThat(header(dead.get(0), "__streams.errors.exception")).contains("SerializationException");
            assertThat(header(dead.get(1), "__streams.errors.message"))
                .isEqualTo("embedding of model bge-small-en-v15-q has 2 dimensions, expected 384");
            assertThat(kafka.readRaw(Topic.MEMORY_CONTRADICTIONS.name(), 1, Duration.ofSeconds(30))).hasSize(1);
            assertThat(kafka.readRaw(Topic.MEMORY_ARCHIVED.name(), 1, Duration.ofSeconds(30))).hasSize(1);

            final Set<String> topics = kafka.admin().listTopics().names().get();
            assertThat(topics).contains("engram-consolidator-memories-by-user-store-changelog",
                "engram-consolidator-profiles-store-changelog");
        } finally {
            streams.close(Duration.ofSeconds(30));
            streams.cleanUp();
        }
    }

    private static String header(final ConsumerRecord<byte[], byte[]> record, final String name) {
        final Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
