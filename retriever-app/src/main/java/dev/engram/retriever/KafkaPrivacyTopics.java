package dev.engram.retriever;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.engram.avro.AuditRecord;
import dev.engram.avro.MemoryCommand;
import dev.engram.config.EngramConfig;
import dev.engram.runtime.ApiProblem;
import dev.engram.serde.RecordSerdes;
import dev.engram.topology.TopicSerdes;
import dev.engram.topology.Topics;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One idempotent producer (acks=all) for the retriever's writes: {@link CommandPublisher} to
 * {@code memory-commands} (synchronous: the 202 is sent only once the broker has the command) and
 * {@link AuditReporter} to {@code memory-audit} (asynchronous; a failed send is logged with the audit
 * id only). Both keyed by the user key {@code tenant/user} (the tenant alone when no user is named).
 */
public final class KafkaPrivacyTopics implements CommandPublisher, AuditReporter {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaPrivacyTopics.class);

    private final Producer<String, byte[]> producer;
    private final RecordSerdes serdes;

    /** @param producer the producer (owned); values single-object encoded */
    public KafkaPrivacyTopics(final Producer<String, byte[]> producer) {
        this(producer, RecordSerdes.singleObject());
    }

    /**
     * @param producer the producer (owned)
     * @param serdes the topics' value format ({@code serde.format})
     */
    public KafkaPrivacyTopics(final Producer<String, byte[]> producer, final RecordSerdes serdes) {
        this.producer = producer;
        this.serdes = serdes;
    }

    /**
     * @param config {@code kafka.*} settings
     * @return a publisher with its own producer
     */
    public static KafkaPrivacyTopics create(final EngramConfig config) {
        final Map<String, Object> props = new HashMap<>(config.kafkaProperties());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, Topics.RETRIEVER_APP + "-commands");
        return new KafkaPrivacyTopics(new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer()),
            TopicSerdes.of(config));
    }

    @Override
    public void publish(final MemoryCommand command) {
        final byte[] value = serdes.serde(MemoryCommand.class).serializer().serialize(Topics.MEMORY_COMMANDS, command);
        try {
            producer.send(new ProducerRecord<>(Topics.MEMORY_COMMANDS, null, command.getIssuedAt().toEpochMilli(),
                command.getTenantId() + "/" + command.getUserId(), value)).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiProblem.unavailable("Interrupted while publishing the command; retry.", 1);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("Could not publish command {}: {}", command.getCommandId(), e.toString());
            throw ApiProblem.unavailable("The command could not be published; retry shortly.", 1);
        }
    }

    @Override
    public void record(final AuditRecord record) {
        final byte[] value = serdes.serde(AuditRecord.class).serializer().serialize(Topics.MEMORY_AUDIT, record);
        final String key = record.getUserId() == null ? record.getTenantId() : record.getTenantId() + "/" + record.getUserId();
        try {
            producer.send(new ProducerRecord<>(Topics.MEMORY_AUDIT, null, record.getOccurredAt().toEpochMilli(), key, value),
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
        producer.close(Duration.ofSeconds(5));
    }
}
