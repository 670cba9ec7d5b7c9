package dev.engram.retriever;

import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.engram.avro.MemoryAccessed;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.engram.topics.AppIds;

/**
 * Publishes one {@code MemoryAccessed} per retrieval to {@code MEMORY_ACCESS}, keyed by the user
 * key {@code tenant/user} (co-partitioned with the consolidator's other inputs).
 *
 * <p>{@code accessedAt} is the time of the request (this reporter's clock): an access is a new event
 * that happens now, unlike the conversation-derived times of the memories. Sends are asynchronous
 * (idempotent producer, acks=all); a failed send is logged and counted, it does not fail the request
 * that already got its answer.
 */
public final class KafkaAccessReporter implements AccessReporter {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaAccessReporter.class);

    private final Producer<String, MemoryAccessed> producer;
    private final Clock clock;

    /**
     * @param producer the producer (owned: closed with this reporter)
     * @param clock the clock of accessedAt
     */
    public KafkaAccessReporter(final Producer<String, MemoryAccessed> producer, final Clock clock) {
        this.producer = producer;
        this.clock = clock;
    }

    /**
     * @param config the Engram config ({@code kafka.*} settings)
     * @return a reporter with its own producer
     */
    public static KafkaAccessReporter create(final EngramConfig config) {
        final Map<String, Object> props = new HashMap<>(config.kafkaProperties());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, AppIds.RETRIEVER + "-access");
        return new KafkaAccessReporter(new KafkaProducer<>(props, Topic.MEMORY_ACCESS.keySerializer(),
            Topic.MEMORY_ACCESS.valueSerializer(config)), Clock.systemUTC());
    }

    @Override
    public void report(final UserKey user, final List<String> memoryIds) {
        if (memoryIds.isEmpty()) {
            return;
        }
        final MemoryAccessed event = MemoryAccessed.newBuilder().setTenantId(user.tenantId())
            .setUserId(user.userId()).setMemoryIds(List.copyOf(memoryIds)).setAccessedAt(clock.instant()).build();
        producer.send(new ProducerRecord<>(Topic.MEMORY_ACCESS.name(), null, event.getAccessedAt().toEpochMilli(),
            user.wire(), event), (metadata, error) -> {
                if (error != null) {
                    LOG.warn("Could not report access of {} memories of {}: {}", memoryIds.size(), user,
                        error.toString());
                }
            });
    }

    @Override
    public void close() {
        producer.close(java.time.Duration.ofSeconds(5));
    }
}
