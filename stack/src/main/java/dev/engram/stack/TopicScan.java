package dev.engram.stack;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a topic from the beginning (or given offsets) to the end offsets taken at the start, with a
 * {@code read_committed} consumer without a group: what the ops tools, the benchmarks and the tests
 * use to see a topic as a downstream consumer sees it.
 */
public final class TopicScan {

    /**
     * {@code fetch.max.wait.ms} of a scan's consumer (Kafka's default is 500): how long the broker holds a fetch that
     * finds nothing new. A scan reads to an end and closes, and {@link KafkaConsumer#close()} waits for the fetch in
     * flight, which at the end of the topic is such a held one: every scan took half a second more than its reading
     * (a 2,000-record changelog: 20–35 ms to read, 510–610 ms to close; 30–50 ms at 20), and {@code bin/engram rebuild}
     * scans the consolidator's pending observations once in its reset and again to confirm its final regrouping. A
     * fetch that finds records returns at once whatever this is, so reading is not slowed; a consumer kept open on a
     * quiet topic ({@link MemoryStateTail}) fetches more often.
     */
    static final int FETCH_MAX_WAIT_MS = 20;

    private TopicScan() {
    }

    /**
     * @param clientProperties at least {@code bootstrap.servers}
     * @return a byte-array consumer reading committed records only, auto-commit off, 2000 records a poll, a fetch held at
     *     most {@value #FETCH_MAX_WAIT_MS} ms by the broker (so that closing it does not wait out a long poll)
     */
    public static KafkaConsumer<byte[], byte[]> consumer(final Map<String, Object> clientProperties) {
        final Map<String, Object> props = new HashMap<>(clientProperties);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, FETCH_MAX_WAIT_MS);
        props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "engram-topic-scan");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * @param bootstrapServers the cluster
     * @return client properties naming only {@code bootstrap.servers}
     */
    public static Map<String, Object> client(final String bootstrapServers) {
        return Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    }

    /**
     * Hands every committed record of {@code topic} between the start offsets and the end offsets taken
     * at the call to {@code each}, in partition order.
     *
     * @param clientProperties consumer properties with at least {@code bootstrap.servers}
     * @param topic the topic
     * @param fromOffsets where to start per partition; partitions not in it start at the beginning;
     *     null = every partition from the beginning
     * @param timeout how long reading may take at most (the metadata and end offsets wait up to 30 s more)
     * @param each called per record
     * @return whether the end was reached within the timeout (false: what was read so far was handed over)
     */
    public static boolean toEnd(final Map<String, Object> clientProperties, final String topic,
                                final Map<TopicPartition, Long> fromOffsets, final Duration timeout,
                                final Consumer<ConsumerRecord<byte[], byte[]>> each) {
        return between(clientProperties, topic, fromOffsets, null, timeout, each);
    }

    /**
     * Hands every committed record of {@code topic} between the start offsets and the given end offsets (exclusive) to
     * {@code each}, in partition order: a scan of the topic as it was when those ends were taken, however much is
     * written to it meanwhile (so it may run while a producer appends, e.g. beside a rebuild).
     *
     * @param clientProperties consumer properties with at least {@code bootstrap.servers}
     * @param topic the topic
     * @param fromOffsets where to start per partition; partitions not in it start at the beginning;
     *     null = every partition from the beginning
     * @param untilOffsets where to stop per partition (exclusive), e.g. last stable offsets taken earlier; a partition
     *     not in it is read to its end offset at the call; null = every partition to its end offset at the call
     * @param timeout how long reading may take at most (the metadata and end offsets wait up to 30 s more)
     * @param each called per record
     * @return whether the ends were reached within the timeout (false: what was read so far was handed over)
     */
    public static boolean between(final Map<String, Object> clientProperties, final String topic,
                                  final Map<TopicPartition, Long> fromOffsets, final Map<TopicPartition, Long> untilOffsets,
                                  final Duration timeout, final Consumer<ConsumerRecord<byte[], byte[]>> each) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(clientProperties)) {
            final List<TopicPartition> partitions = assignFrom(consumer, topic, fromOffsets);
            final Map<TopicPartition, Long> ends = new HashMap<>(consumer.endOffsets(partitions, Duration.ofSeconds(30)));
            if (untilOffsets != null) {
                untilOffsets.forEach((tp, end) -> ends.computeIfPresent(tp, (k, v) -> end));
            }
            final long deadline = System.nanoTime() + timeout.toNanos();
            while (!reached(consumer, ends)) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() < ends.get(new TopicPartition(r.topic(), r.partition()))) {
                        each.accept(r);
                    }
                }
            }
            return true;
        }
    }

    /**
     * Assigns every partition of the topic to the consumer, each at its start offset.
     *
     * @param consumer a consumer without a group
     * @param topic the topic
     * @param fromOffsets where to start per partition; partitions not in it start at the beginning; null = all
     * @return the partitions
     */
    static List<TopicPartition> assignFrom(final KafkaConsumer<?, ?> consumer, final String topic,
                                           final Map<TopicPartition, Long> fromOffsets) {
        final List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(partitions);
        for (final TopicPartition tp : partitions) {
            final Long from = fromOffsets == null ? null : fromOffsets.get(tp);
            if (from == null) {
                consumer.seekToBeginning(List.of(tp));
            } else {
                consumer.seek(tp, from);
            }
        }
        return partitions;
    }

    private static boolean reached(final KafkaConsumer<?, ?> consumer, final Map<TopicPartition, Long> ends) {
        for (final Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey(), Duration.ofSeconds(10)) < end.getValue()) {
                return false;
            }
        }
        return true;
    }
}
