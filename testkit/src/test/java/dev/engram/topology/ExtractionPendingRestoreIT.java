package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.Message;
import dev.engram.config.EngramConfig;
import dev.engram.serde.AvroSerdes;
import dev.engram.testing.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * The exactly-once argument of the concurrent extractor on a real broker: conversations whose input
 * offsets were committed while their LLM calls were still running are not lost. The first instance
 * consumes three conversations and commits (their calls never finish), then stops; a second instance,
 * with an empty state directory, restores {@code extraction-pending-store} from its changelog, re-runs
 * the three, and writes their candidates once each, in input order per user.
 */
class ExtractionPendingRestoreIT {

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

    private static EmbeddedKafka.Record<String, byte[]> conversation(final String user, final String id, final int ms) {
        final Instant t = Instant.parse("2025-07-07T10:00:00Z").plusMillis(ms);
        return new EmbeddedKafka.Record<>("t1/" + user, AvroSerdes.serde(ConversationCompleted.class).serializer()
            .serialize(Topic.CONVERSATIONS_COMPLETED.name(), ConversationCompleted.newBuilder().setTenantId("t1")
                .setUserId(user).setConversationId(id).setCompletedAt(t)
                .setMessages(List.of(new Message(0, "user", "Conversation " + id, t))).build()), t);
    }

    private static long committedInputOffsets() {
        try {
            return kafka.admin().listConsumerGroupOffsets(AppIds.EXTRACTOR).partitionsToOffsetAndMetadata()
                .get().entrySet().stream().filter(e -> e.getKey().topic().equals(Topic.CONVERSATIONS_COMPLETED.name()))
                .map(Map.Entry::getValue).mapToLong(OffsetAndMetadata::offset).sum();
        } catch (Exception e) {
            return -1;
        }
    }

    @Test
    void shouldReRunCommittedButUnfinishedConversationsOnceAndInOrderWhenAnotherInstanceTakesOver() {
        kafka.send(Topic.CONVERSATIONS_COMPLETED.name(), Serdes.String().serializer(), Serdes.ByteArray().serializer(),
            List.of(conversation("u-jon", "c1", 0), conversation("u-jon", "c2", 10), conversation("u-ann", "c3", 20)));
        final ExecutorService firstPool = Executors.newFixedThreadPool(4);
        final ExecutorService secondPool = Executors.newFixedThreadPool(4);
        try {
            final GatedExtractor stuck = new GatedExtractor();
            final EngramConfig first = kafka.engramConfig(Map.of());
            try (KafkaStreams streams = new KafkaStreams(ExtractionTopology.build(first, stuck, GatedExtractor.EMBEDDER,
                new SimpleMeterRegistry(), firstPool, 16), ExtractionTopology.config(first))) {
                streams.start();
                EmbeddedKafka.waitUntil(() -> stuck.started.size() == 3, TIMEOUT, "three calls in flight");
                EmbeddedKafka.waitUntil(() -> committedInputOffsets() == 3, TIMEOUT, "input offsets committed");
                // Leave the group, so the next instance gets the partitions without waiting for the session timeout.
                streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(TIMEOUT));
            }
            assertThat(kafka.readRaw(Topic.MEMORY_CANDIDATES.name(), 1, Duration.ofSeconds(2))).isEmpty();

            final GatedExtractor open = new GatedExtractor();
            List.of("c1", "c2", "c3").forEach(id -> open.gate(id).countDown());
            final EngramConfig second = kafka.engramConfig(Map.of());
            try (KafkaStreams streams = new KafkaStreams(ExtractionTopology.build(second, open, GatedExtractor.EMBEDDER,
                new SimpleMeterRegistry(), secondPool, 16), ExtractionTopology.config(second))) {
                streams.start();
                final List<ConsumerRecord<String, MemoryCandidate>> out = kafka.read(Topic.MEMORY_CANDIDATES.name(),
                    Serdes.String().deserializer(), AvroSerdes.serde(MemoryCandidate.class).deserializer(), 3, TIMEOUT);

                assertThat(out).extracting(r -> r.value().getConversationId()).containsExactlyInAnyOrder("c1", "c2", "c3");
                assertThat(out).filteredOn(r -> r.key().equals("t1/u-jon")).extracting(r -> r.value().getConversationId())
                    .containsExactly("c1", "c2");
                assertThat(open.started).containsOnlyKeys("c1", "c2", "c3");
            }
        } finally {
            firstPool.shutdownNow();
            secondPool.shutdownNow();
        }
    }
}
