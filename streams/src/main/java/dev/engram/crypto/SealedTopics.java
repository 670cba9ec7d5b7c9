package dev.engram.crypto;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.engram.config.EngramConfig;
import dev.engram.config.KafkaConnection;
import dev.engram.streams.PipelineConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an app with {@code crypto.enabled=false} does about records sealed by a run with crypto-shredding on (the
 * configuration lost its {@code crypto.*} settings, or points at another deployment's topics). It cannot open them:
 * <ul>
 *   <li>at start ({@link #refuseWhenCryptoOff}), an app refuses with one line when the data key topic holds a live
 *       key: the topics and its own stores then hold records it would fail on, so it consumes nothing and every
 *       offset stays where it was (a store entry, unlike an input record, cannot be dead-lettered);</li>
 *   <li>a sealed record met anyway (every key was erased, or one written after the start) fails to decode with
 *       {@link #message}, so an input record goes to the app's dead-letter topic with that reason, as any other
 *       undecodable input ({@link PersonalSerdes}).</li>
 * </ul>
 */
public final class SealedTopics {

    /** How long the check may read the data key topic before it gives up and lets the app start (ms). */
    public static final long TIMEOUT_MS = 15_000;

    private static final Logger LOG = LoggerFactory.getLogger(SealedTopics.class);

    private SealedTopics() {
    }

    /**
     * @param topic where the record was read
     * @param userKey the user key written in its envelope
     * @return the reason a sealed record cannot be read with {@code crypto.enabled=false}, and what to do
     */
    public static String message(final String topic, final String userKey) {
        return "A record of " + userKey + " on " + topic + " is sealed (crypto-shredding) but " + PipelineConfig.CRYPTO_ENABLED
            + "=false: set " + PipelineConfig.CRYPTO_ENABLED + "=true and " + PipelineConfig.CRYPTO_KEK + " or "
            + PipelineConfig.CRYPTO_KEK_FILE + " to the key-encryption key it was sealed with";
    }

    /**
     * Refuses to start an app with {@code crypto.enabled=false} when the data key topic holds a live data key.
     * Does nothing with crypto-shredding on, without the topic, or when the topic cannot be read within
     * {@value #TIMEOUT_MS} ms (the app then meets the cluster's state on its own, as before).
     *
     * @param config the app's config
     * @param dataKeysTopic the data key topic ({@code engram-data-keys})
     * @param app the app's name, for the log
     * @throws ConfigException naming {@code crypto.enabled}, the topic and the key-encryption key settings
     */
    public static void refuseWhenCryptoOff(final EngramConfig config, final String dataKeysTopic, final String app) {
        if (config.getBoolean(PipelineConfig.CRYPTO_ENABLED)) {
            return;
        }
        final long live;
        try {
            live = liveKeys(config, dataKeysTopic);
        } catch (KafkaException | IllegalStateException e) {
            LOG.warn("{}: could not read {} to check for sealed records ({}); starting with {}=false", app, dataKeysTopic,
                e.getMessage(), PipelineConfig.CRYPTO_ENABLED);
            return;
        }
        if (live > 0) {
            throw new ConfigException(PipelineConfig.CRYPTO_ENABLED + "=false, but " + dataKeysTopic + " holds the live data"
                + " keys of " + live + (live == 1 ? " user" : " users") + ": the topics and stores hold records sealed"
                + " with them, which the " + app + " cannot read. Set " + PipelineConfig.CRYPTO_ENABLED + "=true and "
                + PipelineConfig.CRYPTO_KEK + " or " + PipelineConfig.CRYPTO_KEK_FILE + " (ENGRAM_CRYPTO_KEK,"
                + " ENGRAM_CRYPTO_KEK_FILE) to the key-encryption key they were sealed with; nothing was consumed");
        }
    }

    /** @return the users whose latest record on the key topic is a key (not a tombstone) */
    static long liveKeys(final EngramConfig config, final String topic) {
        final Map<String, Object> props = new HashMap<>(KafkaConnection.of(config.kafkaProperties()));
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        final Duration timeout = Duration.ofMillis(TIMEOUT_MS);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
            final List<PartitionInfo> infos = consumer.listTopics(timeout).get(topic);
            if (infos == null || infos.isEmpty()) {
                return 0;
            }
            final List<TopicPartition> partitions = infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
            if (ends.values().stream().allMatch(end -> end == 0)) {
                return 0; // the usual case with crypto off: the topic was never written
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            final Map<String, Boolean> latest = new HashMap<>();
            final long deadline = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp, timeout) < ends.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(topic + " not read to its end within " + timeout);
                }
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.key() != null) {
                        latest.put(new String(r.key(), java.nio.charset.StandardCharsets.UTF_8), r.value() != null);
                    }
                }
            }
            return latest.values().stream().filter(Boolean::booleanValue).count();
        }
    }
}
