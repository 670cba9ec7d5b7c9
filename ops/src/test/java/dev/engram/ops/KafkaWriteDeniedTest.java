package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import dev.engram.avro.Memory;
import dev.engram.config.EngramConfig;
import dev.engram.kafka.KafkaOperationFailed;
import dev.engram.testing.MemoryFixtures;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.junit.jupiter.api.Test;

/**
 * A write or a delete that the cluster's ACLs refuse is said as one, naming the operation and the topic: the
 * {@code reembed} switch denied WRITE on {@code memory-commands} ended "Cannot switch the active model" without the
 * cause, and {@code reembed --drop} denied DELETE said "Cannot read from the cluster".
 */
class KafkaWriteDeniedTest {

    @Test
    void shouldSayTheWriteAndTheTopicWhenTheClusterRefusesTheReembedCommands() {
        final Memory memory = MemoryFixtures.memory("t", "u1", "m1", "Lives in Lisbon", Instant.parse("2026-01-01T00:00:00Z"))
            .build();

        final Throwable refused = catchThrowable(() -> Reembed.publishCommands(new DeniedProducer(), List.of(memory),
            EngramConfig.plain()));

        assertThat(refused).isInstanceOf(KafkaOperationFailed.class).hasMessage("not authorized to write topic "
            + Topic.MEMORY_COMMANDS.name() + " (the cluster's ACLs: Not authorized to access topics: ["
            + Topic.MEMORY_COMMANDS.name() + "])");
    }

    @Test
    void shouldSayTheDeleteAndTheTopicWhenTheClusterRefusesToDropAModelsTopic() {
        final KafkaFutureImpl<Void> deleted = new KafkaFutureImpl<>();
        deleted.completeExceptionally(new TopicAuthorizationException(Set.of("memory-embeddings-m")));

        assertThat(catchThrowable(() -> GroupOffsets.get(deleted, "delete", "topic memory-embeddings-m")))
            .hasMessage("not authorized to delete topic memory-embeddings-m (the cluster's ACLs: Not authorized to "
                + "access topics: [memory-embeddings-m])")
            .hasMessageNotContaining("read");
    }

    /** A producer whose every send the cluster refuses, as a broker with ACLs answers a principal without WRITE. */
    private static final class DeniedProducer extends MockProducer<String, byte[]> {
        @Override
        public synchronized Future<RecordMetadata> send(final ProducerRecord<String, byte[]> record, final Callback callback) {
            return CompletableFuture.failedFuture(new TopicAuthorizationException(Set.of(record.topic())));
        }
    }
}
