package dev.engram.topology;

import dev.engram.avro.ConversationCompleted;
import dev.engram.core.UserKey;
import io.micrometer.core.instrument.Counter;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import dev.engram.topics.Topic;

/**
 * Node {@value ExtractionTopology#ROUTE_PROCESSOR}: decides, per conversation read from {@code conversations-completed},
 * whether it is on its user's partition ({@link UserPartitions}): there, the task also holds the user's profile (the
 * co-partitioned {@code user-profiles}), so the conversation goes straight on to extraction; elsewhere (a producer whose
 * partitioner is not Java's murmur2, e.g. librdkafka's CRC32 default, or a key that is not {@code tenant/user}) it is
 * forwarded keyed by its user key to the repartition topic, which puts it on the right partition, and counted on
 * {@value ExtractionTopology#METER_REROUTED}.
 *
 * <p>A record whose user cannot be read (it does not decode, a tombstone, an invalid tenant or user) goes straight on:
 * extraction dead-letters it with the reason. Output: the original key for a record in place, the user key for a
 * misplaced one; the value is the bytes as received, wrapped with the decision ({@link Routed}).
 */
final class RouteConversationsProcessor implements Processor<String, byte[], String, RouteConversationsProcessor.Routed> {

    /**
     * A conversation's bytes and where they go.
     *
     * @param value the record's value as received
     * @param misplaced true when it is to be re-routed through the repartition topic
     */
    record Routed(byte[] value, boolean misplaced) {
    }

    private final UserPartitions partitions;
    private final Deserializer<ConversationCompleted> decoder;
    private final Counter rerouted;
    private ProcessorContext<String, Routed> context;
    private int count;

    RouteConversationsProcessor(final UserPartitions partitions, final Deserializer<ConversationCompleted> decoder,
                                final Counter rerouted) {
        this.partitions = partitions;
        this.decoder = decoder;
        this.rerouted = rerouted;
    }

    @Override
    public void init(final ProcessorContext<String, Routed> context) {
        this.context = context;
        this.count = partitions.count(context.appConfigs());
    }

    @Override
    public void process(final Record<String, byte[]> record) {
        final String userKey = userKey(record);
        final int partition = context.recordMetadata().map(m -> m.partition()).orElse(-1);
        if (userKey == null || partition < 0 || UserPartitions.partition(userKey, count) == partition) {
            context.forward(record.withValue(new Routed(record.value(), false)));
            return;
        }
        rerouted.increment();
        context.forward(record.withKey(userKey).withValue(new Routed(record.value(), true)));
    }

    /** @return the record's user key, or null when it cannot be read (extraction dead-letters the record) */
    private String userKey(final Record<String, byte[]> record) {
        if (record.value() == null) {
            return null;
        }
        try {
            final ConversationCompleted conversation = decoder.deserialize(Topic.CONVERSATIONS_COMPLETED.name(), record.value());
            return new UserKey(conversation.getTenantId(), conversation.getUserId()).wire();
        } catch (RuntimeException e) {
            return null;
        }
    }
}
