package dev.engram.retriever;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.engram.avro.TenantSettings;
import dev.engram.config.EngramConfig;
import dev.engram.kafka.TopicFollower;
import dev.engram.runtime.ApiProblem;
import dev.engram.topology.TenantSettingsTable;
import dev.engram.topics.Topic;
import dev.engram.topology.UsageLedger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * The retriever's side of {@code tenant-settings}: {@link #publish} writes a version (idempotent producer, acks=all,
 * key {@link TenantSettingsTable#key}, record time the version) and waits until this instance has read it back, so a
 * {@code GET} after the {@code PUT} answers with it; a {@link TopicFollower} keeps {@link #history()} equal to the
 * topic for every instance; a second one keeps {@link #usage()}, the cost ledger {@code llm-usage} per tenant and day.
 * Thread-safe.
 */
public final class TenantAdmin implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TenantAdmin.class);
    private static final Duration READ_BACK = Duration.ofSeconds(10);

    private final Producer<String, byte[]> producer;
    private final Serializer<TenantSettings> serializer;
    private final TenantSettingsHistory history = new TenantSettingsHistory();
    private final TopicFollower follower;
    private final UsageLedger usage = new UsageLedger();
    private final TopicFollower usageFollower;

    /**
     * Starts following {@code tenant-settings}.
     *
     * @param config {@code kafka.*} settings and the value format ({@code serde.format})
     */
    public TenantAdmin(final EngramConfig config) {
        final Map<String, Object> props = new HashMap<>(config.kafkaProperties());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, AppIds.RETRIEVER + "-tenant-settings");
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer());
        this.serializer = Topic.TENANT_SETTINGS.valueSerializer(config);
        final Deserializer<TenantSettings> deserializer = Topic.TENANT_SETTINGS.valueDeserializer(config);
        this.follower = new TopicFollower(config.kafkaProperties(), Topic.TENANT_SETTINGS.name(), "tenant-settings-follower",
            (key, value) -> history.apply(key, value == null ? null : deserializer.deserialize(Topic.TENANT_SETTINGS.name(), value)),
            IllegalStateException::new);
        this.usageFollower = UsageLedger.follow(config, usage, "llm-usage-follower");
    }

    /** @return the cost ledger ({@code llm-usage}) read so far */
    public UsageLedger usage() {
        return usage;
    }

    /** @return every version of every tenant's settings read so far */
    public TenantSettingsHistory history() {
        return history;
    }

    /**
     * @param timeout bound of the wait
     * @return whether the topic was read up to the end it had at start (or found absent) in time
     */
    public boolean awaitFirstPass(final Duration timeout) {
        return follower.awaitFirstPass(timeout);
    }

    /**
     * Writes one version and waits until this instance has read it back.
     *
     * @param settings a valid version
     * @throws ApiProblem 503 if it could not be written or read back in time
     */
    public void publish(final TenantSettings settings) {
        final RecordMetadata written;
        try {
            written = producer.send(new ProducerRecord<>(Topic.TENANT_SETTINGS.name(), null,
                settings.getVersion().toEpochMilli(), TenantSettingsTable.key(settings.getTenantId(), settings.getVersion()),
                serializer.serialize(Topic.TENANT_SETTINGS.name(), settings))).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiProblem.unavailable("Interrupted while writing the settings; retry.", 1);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("Could not write the settings of tenant {}: {}", settings.getTenantId(), e.toString());
            throw ApiProblem.unavailable("The settings could not be written; retry shortly.", 1);
        }
        try {
            follower.awaitPosition(written.partition(), written.offset() + 1, READ_BACK);
        } catch (RuntimeException e) {
            throw ApiProblem.unavailable("The settings were written but not read back yet; retry the GET shortly.", 1);
        }
    }

    @Override
    public void close() {
        usageFollower.close();
        follower.close();
        producer.close(Duration.ofSeconds(5));
    }
}
