package dev.engram.topology;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.engram.config.KafkaConnection;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.engram.topics.Topic;

/**
 * The one dead-letter writer of the Engram topologies: a record a processor rejects (it does not decode,
 * fails validation, or its extraction failed) is forwarded, with its original key, value, timestamp and
 * headers, to the sink {@value #SINK} of the app's {@code <application.id>-dlq} topic, and processing goes
 * on with the next record.
 *
 * <p>One header set for every app, each header replacing any of the same name the record already had:
 * <table>
 *   <caption>dead-letter headers</caption>
 *   <tr><th>ours</th><th>KIP-1034 (Kafka Streams' own DLQ)</th><th>value</th></tr>
 *   <tr><td>{@value #HEADER_CLASS}</td><td>{@code __streams.errors.exception}</td><td>the exception class, or
 *       a name for a rule ({@code validation}, {@code dev.engram.InvalidMemoryCandidate})</td></tr>
 *   <tr><td>{@value #HEADER_REASON}</td><td>{@code __streams.errors.message}</td><td>why (field and limit,
 *       never content)</td></tr>
 *   <tr><td>{@value #HEADER_SOURCE_TOPIC}</td><td>{@code __streams.errors.topic}</td><td>topic read from</td></tr>
 *   <tr><td>{@value #HEADER_SOURCE_PARTITION}</td><td>{@code __streams.errors.partition}</td><td>partition
 *       (decimal)</td></tr>
 *   <tr><td>{@value #HEADER_SOURCE_OFFSET}</td><td>{@code __streams.errors.offset}</td><td>offset (decimal)</td></tr>
 *   <tr><td>{@value #HEADER_STAGE}</td><td></td><td>{@code deserialization}, {@code validation} or
 *       {@code extraction}</td></tr>
 * </table>
 * The KIP-1034 names are the ones Streams itself writes, so a tool written for Streams' own dead-letter queue reads
 * Engram's too. The records Kafka Streams' exception handlers set aside (a value that does not deserialize, a
 * processor that throws: {@link StreamsSettings}) get the same header set through {@link FromHandler}, in every app,
 * the retriever included, and no stack trace header. Counter {@value #METER} (tag {@code application}) counts the
 * records written, by a processor or by a handler. The log has the first ones of each kind and then counts
 * ({@link DeadLetterLog}), not a line per record.
 *
 * <p>Thread-safe: one instance is shared by every task of a topology.
 */
public final class DeadLetters {

    /** The sink node of every topology's dead-letter topic. */
    public static final String SINK = "write-dead-letters";
    /** Counter of records sent to a dead-letter topic (tag {@code application}). */
    public static final String METER = "engram.dead.letters";

    /** Header: why the record was rejected (field and limit, never content). */
    public static final String HEADER_REASON = "engram.error.reason";
    /**
     * How the consolidator's reason for a candidate embedded by another model than the user's vectors starts
     * ({@code bin/engram reembed} re-drives those candidates with the new model's vector).
     */
    public static final String REASON_MODEL_MISMATCH = "embedding model mismatch";
    /** Header: the exception class, or the name of the rule that rejected the record. */
    public static final String HEADER_CLASS = "engram.error.class";
    /** Header: {@code deserialization}, {@code validation} or {@code extraction}. */
    public static final String HEADER_STAGE = "engram.error.stage";
    /** Header: the topic the record was read from. */
    public static final String HEADER_SOURCE_TOPIC = "engram.source.topic";
    /** Header: the partition it was read from (decimal). */
    public static final String HEADER_SOURCE_PARTITION = "engram.source.partition";
    /** Header: its offset (decimal). */
    public static final String HEADER_SOURCE_OFFSET = "engram.source.offset";
    /**
     * The same facts under the names Kafka Streams' own dead-letter queue (KIP-1034) writes: exception,
     * message, topic, partition, offset, in that order.
     */
    public static final List<String> KIP_1034_HEADERS = List.of("__streams.errors.exception",
        "__streams.errors.message", "__streams.errors.topic", "__streams.errors.partition",
        "__streams.errors.offset");

    /** Stage: the value did not decode (or was a tombstone). */
    public static final String STAGE_DESERIALIZATION = "deserialization";
    /** Stage: the record decoded but broke a rule. */
    public static final String STAGE_VALIDATION = "validation";
    /** Stage: extraction or embedding failed on this input. */
    public static final String STAGE_EXTRACTION = "extraction";
    /** Stage: a processor threw on this record (Kafka Streams' processing exception handler set it aside). */
    public static final String STAGE_PROCESSING = "processing";
    /** The longest reason written to a header, in characters (an exception message can be long). */
    static final int MAX_REASON_CHARS = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);

    private final String topic;
    private final Counter written;
    private final DeadLetterLog log;

    /**
     * Where a rejected record was read from.
     *
     * @param topic the topic ("" when unknown)
     * @param partition the partition (-1 when unknown)
     * @param offset the offset (-1 when unknown)
     */
    public record Source(String topic, int partition, long offset) {
        /**
         * @param context the processor context, in {@code process}
         * @return the coordinates of the record being processed, or ("", -1, -1) outside a record (a punctuator)
         */
        public static Source of(final ProcessorContext<?, ?> context) {
            return context.recordMetadata().map(m -> new Source(m.topic(), m.partition(), m.offset()))
                .orElse(new Source("", -1, -1L));
        }
    }

    /**
     * @param applicationId the app's {@code application.id}, e.g. {@code EXTRACTOR_APP}; the
     *     dead-letter topic is {@code deadLetter} of it
     * @param registry where {@value #METER} is registered
     */
    public DeadLetters(final String applicationId, final MeterRegistry registry) {
        this.topic = Topic.deadLetters(Objects.requireNonNull(applicationId, "applicationId")).name();
        this.written = Counter.builder(METER).description("Records sent to the dead-letter topic")
            .tag("application", applicationId).register(registry);
        this.log = new DeadLetterLog(topic, LOG);
    }

    /** @return the dead-letter topic, {@code <application.id>-dlq} */
    public String topic() {
        return topic;
    }

    /**
     * Forwards the rejected record to {@value #SINK} with the dead-letter headers.
     *
     * @param context the processor's context; its topology has the sink {@value #SINK}
     * @param original the record as received: key, value, timestamp and headers are kept
     * @param source where it was read from
     * @param stage {@link #STAGE_DESERIALIZATION}, {@link #STAGE_VALIDATION} or {@link #STAGE_EXTRACTION}
     * @param errorClass the exception class or rule name
     * @param reason why (no content); null is written as ""
     * @param <K> key type
     */
    public <K> void write(final ProcessorContext<K, Object> context, final Record<K, ?> original, final Source source,
                          final String stage, final String errorClass, final String reason) {
        final Headers headers = headers(original.headers(), source, stage, errorClass, reason);
        log.record(stage, errorClass, source.topic() + "-" + source.partition() + "@" + source.offset(), reason);
        context.forward(new Record<K, Object>(original.key(), original.value(), original.timestamp(), headers), SINK);
        written.increment();
    }

    /**
     * @param original the record's headers (not modified)
     * @param source where it was read from
     * @param stage the stage
     * @param errorClass the exception class or rule name
     * @param reason why; null is written as ""
     * @return a copy of {@code original} with the dead-letter headers set (replacing any of the same name)
     */
    public static Headers headers(final Headers original, final Source source, final String stage,
                                  final String errorClass, final String reason) {
        final Headers headers = new RecordHeaders(original.toArray());
        final String partition = Integer.toString(source.partition());
        final String offset = Long.toString(source.offset());
        set(headers, HEADER_REASON, reason);
        set(headers, HEADER_CLASS, errorClass);
        set(headers, HEADER_STAGE, stage);
        set(headers, HEADER_SOURCE_TOPIC, source.topic());
        set(headers, HEADER_SOURCE_PARTITION, partition);
        set(headers, HEADER_SOURCE_OFFSET, offset);
        set(headers, KIP_1034_HEADERS.get(0), errorClass);
        set(headers, KIP_1034_HEADERS.get(1), reason);
        set(headers, KIP_1034_HEADERS.get(2), source.topic());
        set(headers, KIP_1034_HEADERS.get(3), partition);
        set(headers, KIP_1034_HEADERS.get(4), offset);
        return headers;
    }

    /**
     * The dead letters of Kafka Streams' exception handlers (KIP-1034 {@code Response}s): one per app, configured from the
     * Streams properties ({@code application.id}, {@code errors.dead.letter.queue.topic.name}, and the app's registry
     * under {@link KafkaConnection#METER_REGISTRY_CONFIG}, else {@link Metrics#globalRegistry}). Thread-safe.
     *
     * @param topic the dead-letter topic, or null when none is configured (nothing is written)
     * @param written {@value #METER} of the app
     * @param log the lines of its dead letters, rate-limited ({@link DeadLetterLog})
     */
    public record FromHandler(String topic, Counter written, DeadLetterLog log) {

        /**
         * @param configs the Streams properties a handler's {@code configure} receives
         * @return the dead letters of that app
         */
        public static FromHandler configure(final Map<String, ?> configs) {
            final Object registry = configs.get(KafkaConnection.METER_REGISTRY_CONFIG);
            final Object applicationId = configs.get(StreamsConfig.APPLICATION_ID_CONFIG);
            final Object topic = configs.get(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG);
            final String name = topic == null || topic.toString().isBlank() ? null : topic.toString();
            return new FromHandler(name, Counter.builder(METER).description("Records sent to the dead-letter topic")
                    .tag("application", String.valueOf(applicationId))
                    .register(registry instanceof MeterRegistry r ? r : Metrics.globalRegistry),
                new DeadLetterLog(String.valueOf(name), LOG));
        }

        /**
         * @param context where the failed record was read from (topic, partition, offset, headers, timestamp)
         * @param key the source record's key bytes, as read
         * @param value the source record's value bytes, as read
         * @param stage {@link #STAGE_DESERIALIZATION} or {@link #STAGE_PROCESSING}
         * @param exception why
         * @return the dead letter: the original key, value, timestamp and headers plus the dead-letter headers (no stack
         *     trace); empty when no topic is configured or there is no source record (a punctuator failed)
         */
        public List<ProducerRecord<byte[], byte[]>> records(final ErrorHandlerContext context, final byte[] key,
                                                            final byte[] value, final String stage, final Exception exception) {
            if (topic == null || context.topic() == null || (key == null && value == null && context.offset() < 0)) {
                return List.of();
            }
            final String raw = exception.getMessage() == null ? exception.getClass().getSimpleName() : exception.getMessage();
            // JSON written straight to memory-commands is named as such, as the extractor names it on conversations
            final String message = STAGE_DESERIALIZATION.equals(stage) && Topic.MEMORY_COMMANDS.name().equals(context.topic())
                ? ConversationDecoder.undecodable(value, raw, context.topic(), "MemoryCommand", "asks the retriever's"
                    + " HTTP API (PUT or DELETE /v1/tenants/{tenant}/users/{user}/memories/{id}, DELETE"
                    + " /v1/tenants/{tenant}/users/{user}) or its MCP tools, which write the commands")
                : raw;
            final Headers headers = headers(context.headers(), new Source(context.topic(), context.partition(), context.offset()),
                stage, exception.getClass().getName(),
                message.length() > MAX_REASON_CHARS ? message.substring(0, MAX_REASON_CHARS) + "…" : message);
            log.record(stage, exception.getClass().getName(), context.topic() + "-" + context.partition() + "@"
                + context.offset(), exception.toString());
            written.increment();
            return List.of(new ProducerRecord<>(topic, null, context.timestamp() < 0 ? null : context.timestamp(), key,
                value, headers));
        }
    }

    private static void set(final Headers headers, final String name, final String value) {
        headers.remove(name);
        headers.add(name, (value == null ? "" : value).getBytes(StandardCharsets.UTF_8));
    }
}
