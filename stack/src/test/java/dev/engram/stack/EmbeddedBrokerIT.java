package dev.engram.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.engram.topics.Topic;

/** The demo's plain KRaft broker: starts, creates Engram's topics, and serves a transaction. */
class EmbeddedBrokerIT {

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
    void shouldCreateEveryTopicWithTheSamePartitionCountWhenCreatingAll() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            TopicSetup.createAll(admin, 3);
            final List<String> second = TopicSetup.createAll(admin, 3);

            assertThat(second).isEmpty();
            final var descriptions = admin.describeTopics(Topic.allNames()).allTopicNames().get();
            assertThat(descriptions.keySet()).containsExactlyInAnyOrderElementsOf(Topic.allNames());
            assertThat(descriptions.values()).allSatisfy(d -> assertThat(d.partitions()).hasSize(3));
        }
    }

    @Test
    void shouldDeliverACommittedTransactionToAReadCommittedConsumerWhenProducedTransactionally() throws Exception {
        final String topic = "embedded-broker-it";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        final Map<String, Object> producerProps = Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ProducerConfig.TRANSACTIONAL_ID_CONFIG, "embedded-broker-it-tx",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        try (KafkaProducer<String, String> producer =
                 new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, null, 1_700_000_000_000L, "t1/u1", "hello"));
            producer.commitTransaction();
        }

        final Map<String, Object> consumerProps = Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ConsumerConfig.GROUP_ID_CONFIG, "embedded-broker-it",
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        final List<ConsumerRecord<String, String>> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                 new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(Set.of(topic));
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (received.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
            }
        }

        assertThat(received).singleElement().satisfies(r -> {
            assertThat(r.key()).isEqualTo("t1/u1");
            assertThat(r.value()).isEqualTo("hello");
            assertThat(r.timestamp()).isEqualTo(1_700_000_000_000L);
        });
    }

    /**
     * A hit reported on memory-access is work of the consolidator and of the retriever until both committed it, also
     * before either ever committed that topic (its first records may run a daily pass of minutes).
     */
    @Test
    void shouldCountAccessRecordsAsLagWhenNoGroupHasCommittedMemoryAccessYet() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
             PipelineMonitor monitor = new PipelineMonitor(broker.bootstrapServers())) {
            TopicSetup.createAll(admin, 3);
            final long before = monitor.lag();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(Topic.MEMORY_ACCESS.name(), 0, "t1/u1", "hit")).get();
            }

            // read by both apps: one record, counted for each
            assertThat(monitor.lag()).isEqualTo(before + 2);

            final org.apache.kafka.common.TopicPartition access = new org.apache.kafka.common.TopicPartition(Topic.MEMORY_ACCESS.name(), 0);
            final long end = admin.listOffsets(Map.of(access, org.apache.kafka.clients.admin.OffsetSpec.latest())).all().get()
                .get(access).offset();
            for (final String group : List.of(dev.engram.topics.AppIds.CONSOLIDATOR, dev.engram.topics.AppIds.RETRIEVER)) {
                admin.alterConsumerGroupOffsets(group, Map.of(access,
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(end))).all().get();
            }
            assertThat(monitor.lag()).isEqualTo(before);
        }
    }

    /** The demo's Ctrl-C hook closes the monitor while the main thread polls it. */
    @Test
    void shouldWakeAPollUpAndCloseWhenClosedFromAnotherThread() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            TopicSetup.createAll(admin, 3);
        }
        final PipelineMonitor monitor = new PipelineMonitor(broker.bootstrapServers());
        final java.util.concurrent.atomic.AtomicReference<Throwable> pollFailure = new java.util.concurrent.atomic.AtomicReference<>();
        final java.util.concurrent.CountDownLatch polling = new java.util.concurrent.CountDownLatch(1);
        final Thread main = new Thread(() -> {
            try {
                while (true) {
                    polling.countDown();
                    monitor.poll(Duration.ofSeconds(5));
                }
            } catch (Throwable e) {
                pollFailure.set(e);
            }
        });
        main.start();
        polling.await();
        Thread.sleep(300);

        final long start = System.nanoTime();
        monitor.close(); // threw ConcurrentModificationException while the poll ran
        main.join(60_000);

        assertThat(main.isAlive()).isFalse();
        assertThat((System.nanoTime() - start) / 1e9).as("seconds to close").isLessThan(30); // not a hang, at load 10+
        assertThat(pollFailure.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        monitor.close(); // idempotent
    }
}
