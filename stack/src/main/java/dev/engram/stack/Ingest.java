package dev.engram.stack;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import dev.engram.avro.ConversationCompleted;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.domain.DomainConfig;
import dev.engram.serde.AvroSerdes;
import dev.engram.serde.RecordSerdes;
import dev.engram.topics.Topic;
import dev.engram.topics.TopicSerdes;
import dev.engram.validation.ConversationValidator;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes completed conversations to {@code conversations-completed}, as a chat platform would.
 *
 * <p>Key: {@link UserKey#wire()} ({@code tenant/user}); for a record whose tenant or user is invalid
 * the same {@code tenant/user} form is built from the raw strings, so the record still reaches the
 * extractor, whose validation dead-letters it. Value: the Avro record in the pipeline's {@code serde.format}
 * ({@link #of}; single-object encoding, {@link AvroSerdes}, by the other constructors). Compression:
 * {@code ingest.compression.type} (gzip by default, which kafkajs reads without a plugin). Record
 * timestamp: {@code completedAt} (event time). The producer is idempotent with {@code acks=all}, so
 * a retry never duplicates or reorders a user's conversations.
 *
 * <p>Size: the record is serialized before it is sent, and one larger than the limit
 * ({@code input.max.record.bytes}, or less when the topic's own {@code max.message.bytes} is smaller) is
 * refused here, with the limit named, instead of failing in the producer or at the broker; the producer
 * ({@code max.request.size}) and the topics Engram creates allow that limit plus headroom, so an
 * accepted record is never refused further on. One conversation is one record: nothing is half-sent.
 *
 * <p>Time: a conversation whose {@code completedAt} or a message's timestamp lies more than {@code input.max.future.ms}
 * (1 h by default) after this machine's clock is refused the same way, with the time and the setting named
 * ({@link ConversationValidator#futureProblem}): the record's time would be the consolidator's clock for every user of
 * its partition. The topics still take any timestamp (old data replays).
 *
 * <p>Messages: a message {@code POST …/conversations} refuses (a role other than user, assistant, system or tool, blank
 * content, a timestamp before 1970; {@link ConversationValidator#messagesProblem}, the same code) is refused here, the
 * line named and counted as refused, instead of being published for the extractor to dead-letter. A record without a
 * user key or without messages is still published, and the extractor dead-letters it (no request can carry one, and
 * the demo's sample shows the dead-letter path with two).
 *
 * <p>Message indexes: a negative one, or two messages of one index, is refused the same way, naming the positions
 * ({@link ConversationValidator#indexProblem}, the rule of {@code POST …/conversations}); the extractor still takes such
 * records from the topic.
 *
 * <p>Thread-safe as KafkaProducer is; send failures are counted and the first ones kept for the
 * report (with the input line), they do not stop the ingest.
 */
public final class Ingest implements AutoCloseable {

    private static final int KEPT_ERRORS = 10;

    private final KafkaProducer<String, byte[]> producer;
    private final org.apache.kafka.common.serialization.Serializer<ConversationCompleted> serializer;
    private final int maxRecordBytes;
    private final String limitName;
    private final long maxFutureMs;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private volatile String lastSent = "";
    /** Guards the hand-over to the producer against {@link #stopSending}. */
    private final Object sending = new Object();
    private boolean stopped;
    private final List<String> errors = Collections.synchronizedList(new ArrayList<>());

    /**
     * @param bootstrapServers the cluster
     * @param overrides extra producer settings (win over the defaults)
     */
    public Ingest(final String bootstrapServers, final Map<String, Object> overrides) {
        this(bootstrapServers, overrides, EngramConfig.defaults().getInt(CoreConfig.MAX_RECORD_BYTES),
            CoreConfig.MAX_RECORD_BYTES);
    }

    /**
     * @param bootstrapServers the cluster
     * @param overrides extra producer settings (win over the defaults)
     * @param maxRecordBytes largest serialized record sent, bytes
     * @param limitName what the limit is called in refusals, e.g. {@code input.max.record.bytes}
     */
    public Ingest(final String bootstrapServers, final Map<String, Object> overrides, final int maxRecordBytes,
                  final String limitName) {
        this(bootstrapServers, overrides, maxRecordBytes, limitName, RecordSerdes.singleObject());
    }

    /**
     * @param bootstrapServers the cluster
     * @param overrides extra producer settings (win over the defaults)
     * @param maxRecordBytes largest serialized record sent, bytes
     * @param limitName what the limit is called in refusals, e.g. {@code input.max.record.bytes}
     * @param serdes the value format of the pipeline ({@code serde.format})
     */
    public Ingest(final String bootstrapServers, final Map<String, Object> overrides, final int maxRecordBytes,
                  final String limitName, final RecordSerdes serdes) {
        this(bootstrapServers, overrides, maxRecordBytes, limitName, serdes,
            EngramConfig.defaults().getLong(DomainConfig.MAX_FUTURE_MS));
    }

    /**
     * @param bootstrapServers the cluster
     * @param overrides extra producer settings (win over the defaults)
     * @param maxRecordBytes largest serialized record sent, bytes
     * @param limitName what the limit is called in refusals, e.g. {@code input.max.record.bytes}
     * @param serdes the value format of the pipeline ({@code serde.format})
     * @param maxFutureMs how far after this machine's clock an event time may lie, ms ({@code input.max.future.ms})
     */
    public Ingest(final String bootstrapServers, final Map<String, Object> overrides, final int maxRecordBytes,
                  final String limitName, final RecordSerdes serdes, final long maxFutureMs) {
        this.serializer = serdes.serde(ConversationCompleted.class).serializer();
        this.maxRecordBytes = maxRecordBytes;
        this.limitName = limitName;
        this.maxFutureMs = maxFutureMs;
        final Map<String, Object> props = new java.util.HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        // gzip by default (ingest.compression.type): every client reads it, kafkajs without a codec plugin
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, EngramConfig.defaults().getString(StackConfig.INGEST_COMPRESSION));
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, maxRecordBytes + CoreConfig.RECORD_HEADROOM_BYTES);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "engram-ingest");
        // An unreachable cluster fails the ingest within a minute instead of blocking forever.
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        // One request in flight per broker: a batch refused as NOT_LEADER_OR_FOLLOWER right after the topics were
        // created was overtaken by the next one, and the broker then refused that one as OUT_OF_ORDER_SEQUENCE_NUMBER
        // until the delivery timeout (DemoIT, clean-clone CI, sessions 5 and 7). A file ingest gains nothing from
        // pipelining; batching (linger.ms) keeps its throughput.
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        props.putAll(overrides);
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer());
    }

    /**
     * An ingest that writes as the pipeline is configured: values in {@code serde.format} (the schema registry's wire
     * format under subject {@code conversations-completed-value} with {@code registry}), compressed with
     * {@code ingest.compression.type}, event times up to {@code input.max.future.ms} after this machine's clock.
     *
     * @param bootstrapServers the cluster
     * @param config the pipeline's config
     * @param maxRecordBytes largest serialized record sent, bytes
     * @param limitName what the limit is called in refusals, e.g. {@code input.max.record.bytes}
     * @return the ingest (the caller closes it)
     * @throws IllegalArgumentException if {@code serde.format=registry} is set without {@code schema.registry.url}
     */
    public static Ingest of(final String bootstrapServers, final EngramConfig config, final int maxRecordBytes,
                            final String limitName) {
        return new Ingest(bootstrapServers, Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG,
            config.getString(StackConfig.INGEST_COMPRESSION)), maxRecordBytes, limitName, TopicSerdes.of(config),
            config.getLong(DomainConfig.MAX_FUTURE_MS));
    }

    /**
     * The record key: {@code tenant/user}, built from the raw strings when they do not make a valid
     * {@link UserKey} (the extractor dead-letters such records).
     *
     * @param conversation a conversation
     * @return its key
     */
    public static String keyOf(final ConversationCompleted conversation) {
        try {
            return new UserKey(conversation.getTenantId(), conversation.getUserId()).wire();
        } catch (IllegalArgumentException e) {
            return conversation.getTenantId() + "/" + conversation.getUserId();
        }
    }

    /**
     * Sends one conversation (asynchronously).
     *
     * @param conversation the record
     * @throws ConversationSources.Refused if its serialized size is over the limit or an event time lies too far ahead
     *     (nothing is sent)
     */
    public void send(final ConversationCompleted conversation) {
        send(conversation.getConversationId(), conversation);
    }

    /**
     * Sends one conversation (asynchronously); a send that fails later is reported with {@code location}.
     *
     * @param location where it came from, e.g. {@code line 7}
     * @param conversation the record
     * @throws ConversationSources.Refused if a message index is negative or shared, a message is invalid as
     *     {@code POST …/conversations} refuses it (a role other than user, assistant, system, tool; no content; a
     *     timestamp before 1970: {@link ConversationValidator#messagesProblem}), its serialized size is over the
     *     limit, an event time lies more than {@code input.max.future.ms} after this machine's clock, or it cannot be
     *     serialized (nothing is sent)
     */
    public void send(final String location, final ConversationCompleted conversation) {
        ConversationValidator.indexProblem(conversation.getMessages()).or(() -> ConversationSources.messagesProblem(conversation))
            .ifPresent(problem -> {
                throw new ConversationSources.Refused(problem);
            });
        ConversationValidator.futureProblem(conversation, System.currentTimeMillis(), maxFutureMs).ifPresent(problem -> {
            throw new ConversationSources.Refused(problem);
        });
        final byte[] value;
        try {
            value = serializer.serialize(Topic.CONVERSATIONS_COMPLETED.name(), conversation);
        } catch (RuntimeException e) {
            throw new ConversationSources.Refused("cannot be serialized: " + e.getMessage());
        }
        if (value.length > maxRecordBytes) {
            throw new ConversationSources.Refused(String.format(java.util.Locale.ROOT,
                "the record is %,d bytes, over %s = %,d bytes", value.length, limitName, maxRecordBytes));
        }
        synchronized (sending) {
            while (stopped) {
                awaitHalt();
            }
            sent.incrementAndGet();
            lastSent = location;
            producer.send(new ProducerRecord<>(Topic.CONVERSATIONS_COMPLETED.name(), null,
                conversation.getCompletedAt().toEpochMilli(), keyOf(conversation), value), (metadata, error) -> {
                    if (error == null) {
                        acknowledged.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                        if (errors.size() < KEPT_ERRORS) {
                            errors.add(location + " (" + conversation.getConversationId() + "): " + error);
                        }
                    }
                });
        }
    }

    /**
     * Hands no more records to the producer: returns once no {@link #send} is inside the producer, and a later one
     * waits until the JVM halts. For a shutdown hook (an interrupted {@code bin/engram ingest}): after this and
     * {@link #flush}, {@link #sent} equals {@link #acknowledged} plus {@link #failed} and stays so.
     */
    public void stopSending() {
        synchronized (sending) {
            stopped = true;
        }
    }

    /** Parks the calling thread (the reading one, after {@link #stopSending}) until the JVM halts. */
    private void awaitHalt() {
        try {
            sending.wait();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConversationSources.Refused("interrupted: ingest stopped");
        }
    }

    /**
     * Reads a file ({@link ConversationSources}) and sends every record it yields, then flushes. A record
     * over the size limit is reported by the read at its line ({@link ConversationSources.Outcome#REJECTED})
     * and the file goes on.
     *
     * @param file LoCoMo JSON or JSON Lines
     * @param progress called with the number sent so far after each record, or null
     * @return the read report
     * @throws IOException if the file cannot be read
     */
    public ConversationSources.Report publish(final Path file, final LongConsumer progress) throws IOException {
        return publish(file, java.util.function.UnaryOperator.identity(), progress);
    }

    /**
     * As {@link #publish(Path, LongConsumer)}, each record changed by {@code change} before it is sent (the demo
     * moves the shipped sample's dates).
     *
     * @param file LoCoMo JSON or JSON Lines
     * @param change applied to every record read
     * @param progress called with the number sent so far after each record, or null
     * @return the read report
     * @throws IOException if the file cannot be read
     */
    public ConversationSources.Report publish(final Path file,
                                              final java.util.function.UnaryOperator<ConversationCompleted> change,
                                              final LongConsumer progress) throws IOException {
        final ConversationSources.Report report = ConversationSources.readLocated(file, new ConversationSources.Sink() {
            @Override
            public void accept(final String location, final ConversationCompleted c) {
                send(location, change.apply(c));
                if (progress != null) {
                    progress.accept(sent.get());
                }
            }

            @Override
            public void rejected(final String location) {
                refused.incrementAndGet();
            }
        });
        flush();
        return report;
    }

    /** Blocks until every record sent so far is acknowledged or failed. */
    public void flush() {
        producer.flush();
    }

    /** @return records handed to the producer */
    public long sent() {
        return sent.get();
    }

    /**
     * @return lines of JSON Lines or elements of a JSON array refused so far by {@link #publish} (not JSON, invalid,
     *     over the size limit, …; {@link ConversationSources.Sink#rejected}), counted as the read goes; the other
     *     formats' refusals are in the read's report only
     */
    public long refused() {
        return refused.get();
    }

    /** @return where the last record handed to the producer came from ({@code line 7}), "" before the first */
    public String lastSent() {
        return lastSent;
    }

    /** @return records the broker acknowledged */
    public long acknowledged() {
        return acknowledged.get();
    }

    /** @return records that failed to send */
    public long failed() {
        return failed.get();
    }

    /** @return the first send errors (at most ten) */
    public List<String> errors() {
        synchronized (errors) {
            return List.copyOf(errors);
        }
    }

    /** Flushes and closes the producer (waits up to 30 s). */
    @Override
    public void close() {
        producer.close(Duration.ofSeconds(30));
    }
}
