package dev.engram.topology;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * The KIP-1034 names are the ones Streams itself writes for records its deserialization and processing
 * exception handlers send to the same topic ({@link StreamsSettings}), so one operator tool reads the
 * dead letters of every app. Counter {@value #METER} (tag {@code application}) counts the records written.
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

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);

    private final String topic;
    private final Counter written;

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
     * @param applicationId the app's {@code application.id}, e.g. {@link Topics#EXTRACTOR_APP}; the
     *     dead-letter topic is {@link Topics#deadLetter} of it
     * @param registry where {@value #METER} is registered
     */
    public DeadLetters(final String applicationId, final MeterRegistry registry) {
        this.topic = Topics.deadLetter(Objects.requireNonNull(applicationId, "applicationId"));
        this.written = Counter.builder(METER).description("Records sent to the dead-letter topic")
            .tag("application", applicationId).register(registry);
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
        LOG.warn("Dead letter to {} ({} at {}-{}@{}): {}", topic, stage, source.topic(), source.partition(),
            source.offset(), reason);
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

    private static void set(final Headers headers, final String name, final String value) {
        headers.remove(name);
        headers.add(name, (value == null ? "" : value).getBytes(StandardCharsets.UTF_8));
    }
}
