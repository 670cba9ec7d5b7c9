package dev.engram.client;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.serde.RecordSerdes;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes completed conversations to {@value #TOPIC}, as a chat platform does: key {@code tenant/user} (the key
 * every Engram topic is partitioned by, so a user's conversations are processed in order), value the Avro
 * {@link ConversationCompleted} in the format the pipeline is configured for ({@link RecordSerdes}: single-object
 * by default, or the schema registry wire format), record timestamp = {@code completedAt} (event time).
 * Event times ({@code completedAt}, each message's timestamp) may lie at most {@code input.max.future.ms} (1 h by
 * default) after the extractor's clock: a later one is dead-lettered ({@code engram-extractor-dlq}), since it would age
 * every user of its partition.
 * The producer is idempotent with {@code acks=all}, so a retry neither duplicates nor reorders a user's
 * conversations. Thread-safe as {@link KafkaProducer} is.
 */
public final class ConversationPublisher implements AutoCloseable {

    /** The input topic of the pipeline. */
    public static final String TOPIC = "conversations-completed";

    private final KafkaProducer<String, ConversationCompleted> producer;

    /**
     * A publisher writing single-object encoded records (the pipeline's default {@code serde.format}).
     *
     * @param bootstrapServers the Kafka cluster
     */
    public ConversationPublisher(final String bootstrapServers) {
        this(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), RecordSerdes.singleObject());
    }

    /**
     * @param producerConfig Kafka producer settings ({@code bootstrap.servers} at least; they win over the defaults)
     * @param serdes the value format, the same as the pipeline's {@code serde.format}
     */
    public ConversationPublisher(final Map<String, Object> producerConfig, final RecordSerdes serdes) {
        final Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "engram-client");
        props.putAll(producerConfig);
        this.producer = new KafkaProducer<>(props, new StringSerializer(), serdes.serde(ConversationCompleted.class).serializer());
    }

    /**
     * @param tenantId the tenant (no {@code /})
     * @param userId the user
     * @return the record key {@code tenant/user}
     * @throws IllegalArgumentException if either is blank or the tenant contains {@code /}
     */
    public static String key(final String tenantId, final String userId) {
        if (tenantId == null || tenantId.isBlank() || userId == null || userId.isBlank()) {
            throw new IllegalArgumentException("tenantId and userId must not be blank");
        }
        if (tenantId.indexOf('/') >= 0) {
            throw new IllegalArgumentException("tenantId must not contain '/': " + tenantId);
        }
        return tenantId + "/" + userId;
    }

    /**
     * Builds a conversation from its turns, indexed in order; completed at the last turn's time.
     *
     * @param tenantId the tenant
     * @param userId the user
     * @param conversationId the platform's conversation id (publishing it again is a replay, not new facts)
     * @param turns the turns in order, at least one
     * @return the record
     */
    public static ConversationCompleted conversation(final String tenantId, final String userId,
                                                     final String conversationId, final List<Turn> turns) {
        if (turns.isEmpty()) {
            throw new IllegalArgumentException("a conversation needs at least one turn");
        }
        final List<Message> messages = new ArrayList<>(turns.size());
        for (int i = 0; i < turns.size(); i++) {
            final Turn turn = turns.get(i);
            messages.add(new Message(i, turn.role(), turn.content(), turn.at()));
        }
        return ConversationCompleted.newBuilder().setTenantId(tenantId).setUserId(userId)
            .setConversationId(conversationId).setMessages(messages).setCompletedAt(turns.get(turns.size() - 1).at())
            .setMetadata(Map.of()).build();
    }

    /**
     * One turn of a conversation.
     *
     * @param role {@code user}, {@code assistant}, {@code system} or {@code tool}
     * @param content what was said
     * @param at when (event time)
     */
    public record Turn(String role, String content, Instant at) {
        /** @throws NullPointerException if a part is null */
        public Turn {
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(content, "content");
            Objects.requireNonNull(at, "at");
        }
    }

    /**
     * Sends one conversation.
     *
     * @param conversation the conversation
     * @return completes with the record's partition and offset once the broker has it, or exceptionally
     */
    public CompletableFuture<RecordMetadata> publish(final ConversationCompleted conversation) {
        final CompletableFuture<RecordMetadata> done = new CompletableFuture<>();
        producer.send(new ProducerRecord<>(TOPIC, null, conversation.getCompletedAt().toEpochMilli(),
            key(conversation.getTenantId(), conversation.getUserId()), conversation), (metadata, error) -> {
                if (error != null) {
                    done.completeExceptionally(error);
                } else {
                    done.complete(metadata);
                }
            });
        return done;
    }

    /** Blocks until every sent conversation is acknowledged or failed. */
    public void flush() {
        producer.flush();
    }

    @Override
    public void close() {
        producer.close();
    }
}
