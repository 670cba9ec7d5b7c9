package dev.engram.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import dev.engram.config.EngramConfig;
import dev.engram.streams.PipelineConfig;
import dev.engram.topology.ErasedRecordsHandler;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import dev.engram.topics.Topic;

/**
 * The Kafka Streams properties every Engram app shares.
 *
 * <ul>
 *   <li>{@code processing.guarantee=exactly_once_v2} on every app;</li>
 *   <li>records of erased users (their data key tombstoned, {@link ErasedRecordsHandler}) are skipped
 *       and counted, not dead-lettered;</li>
 *   <li>undeserializable records go to {@code <application.id>-dlq} (KIP-1034,
 *       {@code errors.dead.letter.queue.topic.name}) with the error in headers, and the stream goes on;</li>
 *   <li>a record that makes a processor throw goes to the same dead-letter topic
 *       ({@link DeadLetterProcessingHandler}), with the exception class and message in the {@code engram.error.*}
 *       and {@code __streams.errors.*} headers (no stack trace); the rest of the stream continues. Both handlers
 *       count {@code engram.dead.letters} on the app's registry, so every app, the retriever too, exports it;</li>
 *   <li>internal topic and store names are explicit ({@code ensure.explicit.internal.resource.naming});</li>
 *   <li>one stream thread, so each task runs on one thread (the per-user order is per task);</li>
 *   <li><b>static group membership</b>: the main consumer's {@code group.instance.id} is a stable id kept
 *       next to the app's state ({@link #instanceId}), so an instance restarted on its volume — after a
 *       crash, a SIGKILL or a clean stop — takes its place in the group at once. Without it the restarted
 *       process joined as a new member and the group waited for the dead member's session to expire
 *       ({@code session.timeout.ms}, 45 s) before anything was assigned: the "restart stall" seen as 45–52 s
 *       without progress after every kill (soak: {@code bin/engram chaos}). Kafka Streams suffixes the id
 *       with the thread index. {@code kafka.group.instance.id} overrides it (e.g. a pod name).</li>
 * </ul>
 * Settings under {@code kafka.} in {@link EngramConfig} override these.
 */
public final class StreamsSettings {

    /**
     * {@code commit.interval.ms} of every app: Streams' exactly-once default. Under a steady input each commit is a
     * transaction of every app (AddPartitionsToTxn, the offsets, EndTxn, a marker per partition written), and at
     * 50 ms the broker's transaction work was most of its CPU in {@code bench ingest} (JFR, BENCHMARKS.md
     * "Ingest"); an idle pipeline does not wait for the interval ({@link IdleCommit}).
     */
    public static final int COMMIT_INTERVAL_MS = 100;
    /** {@code poll.ms} of every app (Streams' default is 100). */
    public static final int POLL_MS = 10;
    /** The producers' {@code retry.backoff.ms} (Kafka's default is 100). */
    public static final int RETRY_BACKOFF_MS = 10;

    private StreamsSettings() {
    }

    /**
     * @param config the Engram config
     * @param applicationId e.g. {@code EXTRACTOR_APP}
     * @return Streams properties for that app
     */
    public static Properties forApp(final EngramConfig config, final String applicationId) {
        final Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, config.getString(PipelineConfig.STATE_DIR));
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
        // Records of erased users (data key gone) are skipped and counted; other failures are dead-lettered.
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, ErasedRecordsHandler.class);
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterProcessingHandler.class);
        props.put(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG, Topic.deadLetters(applicationId).name());
        props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
        // Under exactly-once, output becomes visible to read_committed readers at commit, and a memory crosses two
        // such hops (extractor, consolidator) before the retriever serves it: at 200 ms the commit waits alone were
        // up to 600 ms of bench freshness' p99. The extractor and the consolidator therefore commit as soon as their
        // input has been quiet for a moment (IdleCommit), so output after a lull does not wait for the interval, and
        // the interval only paces the transactions of a steady input (100 ms: half the transactions of the 50 ms
        // used before IdleCommit existed). Poll briefly so an idle thread comes round to its commit soon after the
        // interval instead of blocking up to poll.ms (100 ms by default).
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, COMMIT_INTERVAL_MS);
        props.put(StreamsConfig.POLL_MS_CONFIG, POLL_MS);
        // The first write of a transaction can meet the previous one's markers still being written
        // (CONCURRENT_TRANSACTIONS, logged by bench ingest and freshness); the producer then backs off
        // retry.backoff.ms, 100 ms by default, per hop. 10 ms (doubling up to retry.backoff.max.ms) retries soon.
        props.put(StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG), RETRY_BACKOFF_MS);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 10L * 1024 * 1024);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, -1);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        // the one size limit (input.max.record.bytes + headroom): what the topics accept, the apps may write
        props.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), config.maxMessageBytes());
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG), config.maxMessageBytes());
        props.put(StreamsConfig.topicPrefix(TopicConfig.MAX_MESSAGE_BYTES_CONFIG), String.valueOf(config.maxMessageBytes()));
        // changelogs and repartition topics carry the input's event time, which the topics take whatever it is (old
        // data replays): Kafka 4 would refuse one more than an hour ahead of the broker's clock, failing the task
        props.put(StreamsConfig.topicPrefix(TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG), String.valueOf(Long.MAX_VALUE));
        final Map<String, Object> overrides = config.kafkaProperties();
        if (!overrides.containsKey(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG)
            && !overrides.containsKey(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG))) {
            props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG),
                instanceId(Path.of(config.getString(PipelineConfig.STATE_DIR)), applicationId));
        }
        for (final Map.Entry<String, Object> e : overrides.entrySet()) {
            props.put(e.getKey(), e.getValue());
        }
        return props;
    }

    /**
     * The stable identity of the app instance that owns a state directory: read from
     * {@code <state.dir>/<application.id>.instance-id}, or created there (a random UUID) on first use.
     * One state directory has one running instance at a time (Kafka Streams locks it), so the id names
     * exactly one group member; it lives beside, not inside, Kafka Streams' own directory so that a reset of
     * the local state keeps it.
     *
     * @param stateDir the {@code state.dir}
     * @param applicationId the app
     * @return e.g. {@code engram-consolidator-6f1c…}
     * @throws java.io.UncheckedIOException if the file cannot be read or written
     */
    public static String instanceId(final Path stateDir, final String applicationId) {
        final Path file = stateDir.resolve(applicationId + ".instance-id");
        try {
            if (Files.exists(file)) {
                final String id = Files.readString(file, StandardCharsets.UTF_8).strip();
                if (!id.isEmpty()) {
                    return id;
                }
            }
            Files.createDirectories(stateDir);
            final String id = applicationId + "-" + UUID.randomUUID();
            Files.writeString(file, id + "\n", StandardCharsets.UTF_8);
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot keep the instance id in " + file, e);
        }
    }
}
