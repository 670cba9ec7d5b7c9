package dev.engram.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PendingExtractions}, the settle condition of the demo, the benchmarks and {@code rebuild --re-extract}, on a
 * real broker: the extractor's pending store as committed on its changelog, written here as Kafka Streams writes it
 * under exactly-once (a transactional producer; a conversation's tombstone in the transaction of its candidates). What
 * an open or aborted transaction holds is not taken as done, and each call reads on from where the last stopped.
 */
class PendingExtractionsIT {

    @TempDir
    static Path runDir;

    private static EmbeddedBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedBroker.start(runDir);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void shouldCountOnlyCommittedEntriesAndReachZeroOnlyWhenTheTombstonesAreCommitted() throws Exception {
        final Duration timeout = Duration.ofSeconds(60);
        try (PendingExtractions pending = new PendingExtractions(TopicScan.client(broker.bootstrapServers()))) {
            assertThat(pending.count(timeout)).as("no changelog yet: the extractor has consumed nothing").isZero();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic(PendingExtractions.CHANGELOG, 2, (short) 1),
                    new NewTopic(Topic.MEMORY_CANDIDATES.name(), 2, (short) 1))).all().get();
            }
            try (KafkaProducer<byte[], byte[]> producer = transactional()) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(record(0, "a", "conversation a"));
                producer.send(record(1, "b", "conversation b"));
                producer.send(record(1, "c", "conversation c"));
                producer.commitTransaction();
                awaitCount(pending, 0, 3);

                producer.beginTransaction();
                producer.send(record(0, "a", null));
                producer.flush();
                assertThat(pending.count(timeout)).as("a tombstone in an open transaction: its candidates not committed")
                    .isEqualTo(3);
                producer.commitTransaction();
                awaitCount(pending, 3, 2);

                producer.beginTransaction();
                producer.send(record(1, "b", null));
                producer.flush();
                producer.abortTransaction();
                assertThat(pending.count(timeout)).as("an aborted tombstone changes nothing").isEqualTo(2);

                producer.beginTransaction();
                producer.send(new ProducerRecord<>(Topic.MEMORY_CANDIDATES.name(), 1, bytes("u"), bytes("candidate of b")));
                producer.send(record(1, "b", null));
                producer.send(record(1, "c", null));
                producer.flush();
                assertThat(pending.settled(timeout)).as("tombstones and candidates in an open transaction").isFalse();
                assertThat(pending.openCandidates(timeout)).isEqualTo(1);
                producer.commitTransaction();
                awaitCount(pending, 2, 0);
                final long deadline = System.nanoTime() + timeout.toNanos();
                while (!pending.settled(timeout)) {
                    assertThat(System.nanoTime()).as("memory-candidates' marker never written").isLessThan(deadline);
                    Thread.sleep(20); // polling the cluster's offsets: nothing to block on
                }
                assertThat(pending.openCandidates(timeout)).isZero();
            }
        }
    }

    /**
     * The broker writes a committed transaction's markers a moment after {@code commitTransaction} returns, partition
     * by partition: until then the count lies between what it was and what the transaction makes it, never beyond.
     */
    private static void awaitCount(final PendingExtractions pending, final int before, final int expected)
        throws InterruptedException {
        final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        int seen;
        while ((seen = pending.count(Duration.ofSeconds(60))) != expected) {
            assertThat(seen).as("between what was committed and what is").isBetween(Math.min(before, expected),
                Math.max(before, expected));
            assertThat(System.nanoTime()).as("still " + seen + " after 60 s, expected " + expected).isLessThan(deadline);
            Thread.sleep(20); // polling the changelog's last stable offsets: nothing to block on
        }
    }

    private static byte[] bytes(final String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private KafkaProducer<byte[], byte[]> transactional() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ProducerConfig.TRANSACTIONAL_ID_CONFIG, "pending-extractions-it"), new ByteArraySerializer(),
            new ByteArraySerializer());
    }

    private static ProducerRecord<byte[], byte[]> record(final int partition, final String key, final String value) {
        return new ProducerRecord<>(PendingExtractions.CHANGELOG, partition, key.getBytes(StandardCharsets.UTF_8),
            value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }
}
