package dev.engram.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.engram.testing.Waits;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes started with the same cluster id and voters form one cluster (the brokers of the scale-out chaos run,
 * there each in a process of its own): a topic gets three in-sync replicas, and with one node gone an acks=all write
 * still succeeds on the other two ({@code min.insync.replicas} 2).
 */
class EmbeddedBrokerClusterIT {

    @TempDir
    Path dir;

    @Test
    void shouldFormOneClusterAndAcceptWritesWithOneNodeDownWhenThreeNodesShareTheVoters() throws Exception {
        final List<EmbeddedBroker.Node> voters = List.of(new EmbeddedBroker.Node(1, EmbeddedBroker.freePort(),
            EmbeddedBroker.freePort()), new EmbeddedBroker.Node(2, EmbeddedBroker.freePort(), EmbeddedBroker.freePort()),
            new EmbeddedBroker.Node(3, EmbeddedBroker.freePort(), EmbeddedBroker.freePort()));
        final String clusterId = Uuid.randomUuid().toString();
        final Map<String, String> replication = Map.of("default.replication.factor", "3", "min.insync.replicas", "2",
            "offsets.topic.replication.factor", "3", "transaction.state.log.replication.factor", "3",
            "transaction.state.log.min.isr", "2",
            // the last node closed has no quorum left to acknowledge a controlled shutdown (it would wait 5 minutes)
            "controlled.shutdown.enable", "false");
        // each start waits for a quorum, so the nodes start together, each on a thread of its own (the common pool
        // has one thread on two cores)
        final java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(3);
        final List<CompletableFuture<EmbeddedBroker>> starting = new ArrayList<>();
        for (final EmbeddedBroker.Node node : voters) {
            starting.add(CompletableFuture.supplyAsync(() -> EmbeddedBroker.start(dir.resolve("node-" + node.nodeId()),
                clusterId, node, voters, replication), threads));
        }
        threads.shutdown();
        final List<EmbeddedBroker> nodes = new ArrayList<>();
        final List<EmbeddedBroker> stopped = new ArrayList<>();
        try {
            for (final CompletableFuture<EmbeddedBroker> node : starting) {
                nodes.add(node.get(240, TimeUnit.SECONDS));
            }
            final String bootstrap = String.join(",", nodes.stream().map(EmbeddedBroker::bootstrapServers).toList());
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                assertThat(admin.describeCluster().nodes().get(60, TimeUnit.SECONDS)).hasSize(3);
                admin.createTopics(List.of(new NewTopic("cluster-it", 2, (short) 3))).all().get(60, TimeUnit.SECONDS);
                // a new topic reaches each node's metadata asynchronously: under load the node asked may not host it
                // yet (UnknownTopicOrPartition) or may not have all replicas in sync; wait until it does
                final TopicDescription topic = Waits.until("cluster-it described with 3 in-sync replicas per partition",
                    Duration.ofSeconds(120), () -> describe(admin, "cluster-it"),
                    t -> t != null && t.partitions().stream().allMatch(p -> p.isr().size() == 3));
                assertThat(topic.partitions()).allSatisfy(p -> assertThat(p.replicas()).hasSize(3));

                final EmbeddedBroker third = nodes.remove(2);
                third.close();
                stopped.add(third);

                try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, nodes.get(0).bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000), new StringSerializer(), new StringSerializer())) {
                    for (int partition = 0; partition < 2; partition++) {
                        assertThat(producer.send(new ProducerRecord<>("cluster-it", partition, "k", "v"))
                            .get(120, TimeUnit.SECONDS).offset()).isZero();
                    }
                }
            }
        } finally {
            // every node that started, also one whose sibling failed to
            for (final CompletableFuture<EmbeddedBroker> node : starting) {
                if (node.isDone() && !node.isCompletedExceptionally() && !stopped.contains(node.join())) {
                    node.join().close();
                }
            }
        }
    }

    /** The topic's description, or null while the node asked does not know it yet. */
    private static TopicDescription describe(final Admin admin, final String name) throws Exception {
        try {
            return admin.describeTopics(List.of(name)).allTopicNames().get(60, TimeUnit.SECONDS).get(name);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return null;
            }
            throw e;
        }
    }
}
