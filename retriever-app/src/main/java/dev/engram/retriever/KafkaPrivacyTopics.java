package dev.engram.retriever;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.engram.avro.AuditRecord;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryCommand;
import dev.engram.config.EngramConfig;
import dev.engram.runtime.ApiProblem;
import dev.engram.validation.ConversationValidator;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * The retriever's writes, on idempotent producers (acks=all): {@link CommandPublisher} to
 * {@code memory-commands} and {@code conversations-completed} (synchronous: the 202 is sent only once the broker has
 * the record, so its producer does not linger) and {@link AuditReporter} to {@code memory-audit} (asynchronous; a failed send is logged with
 * the audit id only). Both keyed by the user key {@code tenant/user} (the tenant alone when no user is named).
 * {@link #create} gives the audit records a producer of their own that lingers {@value #AUDIT_LINGER_MS} ms:
 * there is one per answered request, and without a linger each was a produce request of its own to the broker.
 */
public final class KafkaPrivacyTopics implements CommandPublisher, AuditReporter {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaPrivacyTopics.class);

    /** How long the audit producer collects records into one produce request, ms. */
    static final int AUDIT_LINGER_MS = 20;

    private final Producer<String, byte[]> producer;
    private final Producer<String, byte[]> auditProducer;
    private final Serializer<MemoryCommand> commands;
    private final Serializer<ConversationCompleted> conversations;
    private final Serializer<AuditRecord> audits;
    private final ConversationValidator limits;

    /** @param producer the producer (owned); records are written plain, without crypto-shredding ({@link EngramConfig#plain()}) */
    public KafkaPrivacyTopics(final Producer<String, byte[]> producer) {
        this(producer, EngramConfig.plain());
    }

    /**
     * @param producer the producer (owned)
     * @param config the deployment's config: the value Serdes of {@link Topic#MEMORY_COMMANDS} (sealing with the
     *     user's data key when {@code crypto.enabled}) and {@link Topic#MEMORY_AUDIT}
     */
    public KafkaPrivacyTopics(final Producer<String, byte[]> producer, final EngramConfig config) {
        this(producer, producer, config);
    }

    /**
     * @param producer the producer of commands (owned)
     * @param auditProducer the producer of audit records (owned; may be {@code producer})
     * @param config the deployment's config, as for {@link #KafkaPrivacyTopics(Producer, EngramConfig)}
     */
    public KafkaPrivacyTopics(final Producer<String, byte[]> producer, final Producer<String, byte[]> auditProducer,
                              final EngramConfig config) {
        this.producer = producer;
        this.auditProducer = auditProducer;
        this.commands = Topic.MEMORY_COMMANDS.valueSerializer(config);
        this.conversations = Topic.CONVERSATIONS_COMPLETED.valueSerializer(config);
        this.audits = Topic.MEMORY_AUDIT.valueSerializer(config);
        this.limits = ConversationValidator.from(config);
    }

    /**
     * @param config {@code kafka.*} settings
     * @return a publisher with its own producer
     */
    public static KafkaPrivacyTopics create(final EngramConfig config) {
        return new KafkaPrivacyTopics(producer(config, "-commands", 0), producer(config, "-audit", AUDIT_LINGER_MS),
            config);
    }

    private static Producer<String, byte[]> producer(final EngramConfig config, final String suffix, final int lingerMs) {
        final Map<String, Object> props = new HashMap<>(config.kafkaProperties());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, AppIds.RETRIEVER + suffix);
        return new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer());
    }

    @Override
    public void publish(final MemoryCommand command) {
        final byte[] value;
        try {
            value = commands.serialize(Topic.MEMORY_COMMANDS.name(), command);
        } catch (org.apache.kafka.common.errors.SerializationException e) {
            LOG.warn("Could not seal command {}: {}", command.getCommandId(), e.getMessage());
            throw ApiProblem.unavailable("The command could not be encrypted (data keys unavailable); retry shortly.", 1);
        }
        send(Topic.MEMORY_COMMANDS.name(), command.getTenantId() + "/" + command.getUserId(),
            command.getIssuedAt().toEpochMilli(), value, "command", command.getCommandId());
    }

    @Override
    public void publish(final ConversationCompleted conversation) {
        final byte[] value = conversations.serialize(Topic.CONVERSATIONS_COMPLETED.name(), conversation);
        limits.sizeProblem(value.length).ifPresent(problem -> {
            throw new ApiProblem(413, "The conversation is too large: " + problem + "; split it or raise the limit.");
        });
        send(Topic.CONVERSATIONS_COMPLETED.name(), conversation.getTenantId() + "/" + conversation.getUserId(),
            conversation.getCompletedAt().toEpochMilli(), value, "conversation", conversation.getConversationId());
    }

    /** Sends one record and waits (10 s at most) for the broker's acknowledgement; a 503 when it does not come. */
    private void send(final String topic, final String key, final long timestamp, final byte[] value, final String kind,
                      final String id) {
        try {
            producer.send(new ProducerRecord<>(topic, null, timestamp, key, value)).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiProblem.unavailable("Interrupted while publishing the " + kind + "; retry.", 1);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("Could not publish {} {}: {}", kind, id, e.toString());
            throw ApiProblem.unavailable("The " + kind + " could not be published; retry shortly.", 1);
        }
    }

    @Override
    public void record(final AuditRecord record) {
        final byte[] value = audits.serialize(Topic.MEMORY_AUDIT.name(), record);
        final String key = record.getUserId() == null ? record.getTenantId() : record.getTenantId() + "/" + record.getUserId();
        try {
            auditProducer.send(new ProducerRecord<>(Topic.MEMORY_AUDIT.name(), null, record.getOccurredAt().toEpochMilli(), key, value),
                (metadata, error) -> {
                    if (error != null) {
                        LOG.warn("Could not write audit record {}: {}", record.getAuditId(), error.toString());
                    }
                });
        } catch (RuntimeException e) {
            LOG.warn("Could not write audit record {}: {}", record.getAuditId(), e.toString());
        }
    }

    @Override
    public void close() {
        if (auditProducer != producer) {
            auditProducer.close(Duration.ofSeconds(5));
        }
        producer.close(Duration.ofSeconds(5));
    }
}
