package dev.engram.topology;

import java.util.Map;
import java.util.Properties;

import dev.engram.config.EngramConfig;
import dev.engram.crypto.ErasedRecordsHandler;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueProcessingExceptionHandler;

/**
 * The Kafka Streams properties every Engram app shares.
 *
 * <ul>
 *   <li>{@code processing.guarantee=exactly_once_v2} on every app;</li>
 *   <li>records of erased users (their data key tombstoned, {@link ErasedRecordsHandler}) are skipped
 *       and counted, not dead-lettered;</li>
 *   <li>undeserializable records go to {@code <application.id>-dlq} (KIP-1034,
 *       {@code errors.dead.letter.queue.topic.name}) with the error in headers, and the stream goes on;</li>
 *   <li>a record that makes a processor throw goes to the same dead-letter topic (KIP-1034's
 *       {@code processing.exception.handler}, log and continue), with the exception class and message in
 *       the {@code __streams.errors.*} headers; the rest of the stream continues;</li>
 *   <li>internal topic and store names are explicit ({@code ensure.explicit.internal.resource.naming});</li>
 *   <li>one stream thread, so each task runs on one thread (the per-user order is per task).</li>
 * </ul>
 * Settings under {@code kafka.} in {@link EngramConfig} override these.
 */
public final class StreamsSettings {

    private StreamsSettings() {
    }

    /**
     * @param config the Engram config
     * @param applicationId e.g. {@link Topics#EXTRACTOR_APP}
     * @return Streams properties for that app
     */
    public static Properties forApp(final EngramConfig config, final String applicationId) {
        final Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, config.getString(EngramConfig.STATE_DIR));
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
        // Records of erased users (data key gone) are skipped and counted; other failures are dead-lettered.
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, ErasedRecordsHandler.class);
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueProcessingExceptionHandler.class);
        props.put(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG, Topics.deadLetter(applicationId));
        props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
        // Commit often: under exactly-once, output becomes visible to read_committed readers at commit.
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 10L * 1024 * 1024);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, -1);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        props.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), 8 * 1024 * 1024);
        for (final Map.Entry<String, Object> e : config.kafkaProperties().entrySet()) {
            props.put(e.getKey(), e.getValue());
        }
        return props;
    }
}
