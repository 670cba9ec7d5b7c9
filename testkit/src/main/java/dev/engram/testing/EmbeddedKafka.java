package dev.engram.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.streams.PipelineConfig;
import dev.engram.topology.StreamsSettings;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * An in-process single-node KRaft cluster (one combined broker+controller) over Kafka's
 * {@link KafkaClusterTestKit}, for {@code *IT} tests. One cluster per test class; a unique
 * {@code application.id} and state directory per test ({@link #streamsConfig(String)}).
 *
 * <p>Broker settings (docs/ARCHITECTURE.md): replication factor 1 and min ISR 1 for the offsets and
 * transaction-state topics, without which an {@code exactly_once_v2} app hangs silently.
 * Starts in about 2 s.
 */
public final class EmbeddedKafka implements AutoCloseable {

    /** Default bound of every wait. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private final KafkaClusterTestKit cluster;
    private final Path stateRoot;
    private final Admin admin;

    private EmbeddedKafka(final KafkaClusterTestKit cluster, final Path stateRoot) {
        this.cluster = cluster;
        this.stateRoot = stateRoot;
        this.admin = cluster.admin();
    }

    /**
     * Formats and starts a cluster and waits until the broker is ready.
     *
     * @return the running cluster
     * @throws IllegalStateException if it does not start
     */
    public static EmbeddedKafka start() {
        try {
            final KafkaClusterTestKit cluster = new KafkaClusterTestKit.Builder(
                new TestKitNodes.Builder().setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build())
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("offsets.topic.num.partitions", "2")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("transaction.state.log.num.partitions", "2")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .setConfigProp("log.cleaner.dedupe.buffer.size", "2097152")
                .setConfigProp("auto.create.topics.enable", "false")
                // as the product's broker and topics: record timestamps are event time, often months old;
                // Kafka's default 7-day retention deletes them at its next check (every 5 min), so a test
                // found its input gone at random (the "stall" of the kill IT, RetrieverApiIT's wait)
                .setConfigProp("log.retention.ms", "-1")
                .build();
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            return new EmbeddedKafka(cluster, Files.createTempDirectory("engram-it-state"));
        } catch (Exception e) {
            throw new IllegalStateException("Cannot start the in-process Kafka cluster", e);
        }
    }

    /** @return bootstrap servers of the broker */
    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** @return an admin client owned by this cluster (closed with it) */
    public Admin admin() {
        return admin;
    }

    /**
     * Creates topics with the given partition count (all co-partitioned), waiting for completion.
     *
     * @param partitions partitions per topic
     * @param topics names
     */
    public void createTopics(final int partitions, final Collection<String> topics) {
        createTopics(partitions, topics, Map.of());
    }

    /**
     * Creates topics with the given partition count and topic configs, waiting for completion. Configs given at
     * creation are in force for the first record; altered afterwards ({@code incrementalAlterConfigs}), a produce
     * right after may still meet the old value while the broker applies the change (LifecycleRestartIT under load).
     *
     * @param partitions partitions per topic
     * @param topics names
     * @param configs topic configs of every topic (e.g. {@code message.timestamp.after.max.ms})
     */
    public void createTopics(final int partitions, final Collection<String> topics, final Map<String, String> configs) {
        final List<NewTopic> newTopics = new ArrayList<>();
        for (final String topic : topics) {
            newTopics.add(new NewTopic(topic, partitions, (short) 1).configs(configs));
        }
        try {
            admin.createTopics(newTopics).all().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot create topics " + topics, e);
        }
    }

    /**
     * An Engram config for one app in one test: this broker, a fresh state directory, and without
     * crypto-shredding unless {@code extra} sets {@code crypto.enabled} (with its key): the tests read the topics in
     * the clear; the crypto ITs turn it on.
     *
     * @param extra more settings (may be empty)
     * @return the config
     */
    public EngramConfig engramConfig(final Map<String, ?> extra) {
        final Map<String, Object> settings = new java.util.HashMap<>(extra);
        settings.put(CoreConfig.BOOTSTRAP_SERVERS, bootstrapServers());
        settings.put(PipelineConfig.STATE_DIR, stateRoot.resolve(UUID.randomUUID().toString()).toString());
        settings.putIfAbsent(PipelineConfig.CRYPTO_ENABLED, false);
        settings.putIfAbsent(PipelineConfig.EXTRACTOR_HTTP_PORT, 0);
        settings.putIfAbsent(PipelineConfig.CONSOLIDATOR_HTTP_PORT, 0);
        settings.putIfAbsent(PipelineConfig.RETRIEVER_HTTP_PORT, 0);
        return new EngramConfig(settings);
    }

    /**
     * Streams properties for one app in one test (unique state directory).
     *
     * @param applicationId the app id
     * @return properties from {@link StreamsSettings#forApp}
     */
    public Properties streamsConfig(final String applicationId) {
        return StreamsSettings.forApp(engramConfig(Map.of()), applicationId);
    }

    /**
     * Sends records synchronously.
     *
     * @param topic topic
     * @param keySerializer key serializer
     * @param valueSerializer value serializer
     * @param records records, each with its key, value and event timestamp
     * @param <K> key type
     * @param <V> value type
     */
    public <K, V> void send(final String topic, final Serializer<K> keySerializer, final Serializer<V> valueSerializer,
                            final List<Record<K, V>> records) {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        try (KafkaProducer<byte[], byte[]> producer =
                 new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (final Record<K, V> r : records) {
                producer.send(new ProducerRecord<>(topic, null, r.timestamp().toEpochMilli(),
                    keySerializer.serialize(topic, r.key()), valueSerializer.serialize(topic, r.value()))).get();
            }
        } catch (Exception e) {
            throw new IllegalStateException("Cannot send to " + topic, e);
        }
    }

    /**
     * Reads committed records of a topic from the beginning until at least {@code expected} arrived
     * or the timeout passed. Raw bytes, so callers can assert on undecodable dead letters too.
     *
     * @param topic topic
     * @param expected the count to wait for
     * @param timeout bound of the wait
     * @return the records read (may be more than expected; fewer only on timeout)
     */
    public List<ConsumerRecord<byte[], byte[]>> readRaw(final String topic, final int expected, final Duration timeout) {
        return read(topic, new ByteArrayDeserializer(), new ByteArrayDeserializer(), expected, timeout);
    }

    /**
     * Reads committed records of a topic from the beginning, decoded.
     *
     * @param topic topic
     * @param keyDeserializer key deserializer
     * @param valueDeserializer value deserializer
     * @param expected the count to wait for
     * @param timeout bound of the wait
     * @param <K> key type
     * @param <V> value type
     * @return the records read
     */
    public <K, V> List<ConsumerRecord<K, V>> read(final String topic, final Deserializer<K> keyDeserializer,
                                                  final Deserializer<V> valueDeserializer, final int expected,
                                                  final Duration timeout) {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "engram-it-reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        final List<ConsumerRecord<K, V>> out = new ArrayList<>();
        try (KafkaConsumer<K, V> consumer = new KafkaConsumer<>(props, keyDeserializer, valueDeserializer)) {
            consumer.subscribe(List.of(topic));
            final Instant deadline = Instant.now().plus(timeout);
            while (out.size() < expected && Instant.now().isBefore(deadline)) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            // Drain what is already there beyond the expected count, briefly.
            consumer.poll(Duration.ofMillis(300)).forEach(out::add);
        }
        return out;
    }

    /**
     * Whether a consumer group (an app's {@code application.id}) has consumed its input: its committed offsets reach the
     * read_committed end offset of every partition of the topics that holds records. For a bounded wait
     * ({@link #waitUntil}); any error answers false (not yet).
     *
     * @param groupId the group
     * @param topics its input topics
     * @param partitions the partition count of each
     * @return true when every record of those topics is behind the group's committed offsets
     */
    public boolean consumed(final String groupId, final Collection<String> topics, final int partitions) {
        try {
            final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(groupId)
                .partitionsToOffsetAndMetadata().get();
            final Map<TopicPartition, OffsetSpec> ends = new java.util.HashMap<>();
            for (final String topic : topics) {
                for (int p = 0; p < partitions; p++) {
                    ends.put(new TopicPartition(topic, p), OffsetSpec.latest());
                }
            }
            final var latest = admin.listOffsets(ends, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get();
            for (final TopicPartition tp : ends.keySet()) {
                final long end = latest.get(tp).offset();
                final OffsetAndMetadata at = committed.get(tp);
                if (end > 0 && (at == null || at.offset() < end)) {
                    return false;
                }
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * Waits until a condition holds, polling every 100 ms ({@link Waits}).
     *
     * @param condition the condition
     * @param timeout bound of the wait
     * @param what described in the failure message
     * @throws AssertionError if the condition does not hold in time
     */
    public static void waitUntil(final BooleanSupplier condition, final Duration timeout, final String what) {
        Waits.until(what, timeout, condition::getAsBoolean);
    }

    @Override
    public void close() throws Exception {
        admin.close(Duration.ofSeconds(5));
        cluster.close();
    }

    /**
     * One record to send.
     *
     * @param key key
     * @param value value
     * @param timestamp event timestamp
     * @param <K> key type
     * @param <V> value type
     */
    public record Record<K, V>(K key, V value, Instant timestamp) {
    }
}
