package dev.engram.crypto;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the data key topic for {@link DataKeys}: one background thread reads it from the beginning
 * ({@code read_committed}, no group, partitions added as the topic grows) and hands every record to
 * {@code apply} in offset order; callers wait until it has read up to an offset ({@link #awaitPosition})
 * or up to the topic's current end ({@link #awaitEnd}). Waits are bounded by
 * {@value DataKeys#TIMEOUT_MS} ms and fail with a {@link SerializationException} (also when the reader
 * itself has failed). Thread-safe.
 */
final class KeyTopicFollower implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KeyTopicFollower.class);

    private final String topic;
    private final BiConsumer<String, byte[]> apply;
    private final Admin admin;
    private final KafkaConsumer<String, byte[]> consumer;
    private final Map<Integer, Long> position = new ConcurrentHashMap<>();
    private final Object progress = new Object();
    private final Thread reader;
    private volatile boolean closed;
    private volatile RuntimeException readerFailure;

    /**
     * Connects and starts reading the topic from its beginning.
     *
     * @param common Kafka client settings (bootstrap servers, security)
     * @param topic the compacted key topic
     * @param apply called on the reader thread with each record's key and value (null: a tombstone)
     */
    KeyTopicFollower(final Map<String, Object> common, final String topic, final BiConsumer<String, byte[]> apply) {
        this.topic = topic;
        this.apply = apply;
        admin = Admin.create(common);
        final Map<String, Object> consumerProps = new HashMap<>(common);
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString().toLowerCase());
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumer = new KafkaConsumer<>(consumerProps, new StringDeserializer(), new ByteArrayDeserializer());
        reader = new Thread(this::read, "engram-data-keys-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Waits until the reader has read up to the topic's current end (last stable offset). */
    void awaitEnd() {
        final Map<TopicPartition, OffsetSpec> wanted = new HashMap<>();
        for (final TopicPartition tp : partitions()) {
            wanted.put(tp, OffsetSpec.latest());
        }
        final Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends;
        try {
            ends = admin.listOffsets(wanted, new org.apache.kafka.clients.admin.ListOffsetsOptions(
                IsolationLevel.READ_COMMITTED)).all().get(DataKeys.TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SerializationException("Interrupted while reading " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new SerializationException("Cannot read the end of " + topic + ": " + e.getMessage(), e);
        }
        ends.forEach((tp, info) -> awaitPosition(tp.partition(), info.offset()));
    }

    private List<TopicPartition> partitions() {
        final List<TopicPartition> out = new ArrayList<>();
        try {
            for (final org.apache.kafka.clients.admin.TopicDescription d : admin.describeTopics(List.of(topic))
                .allTopicNames().get(DataKeys.TIMEOUT_MS, TimeUnit.MILLISECONDS).values()) {
                d.partitions().forEach(p -> out.add(new TopicPartition(topic, p.partition())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SerializationException("Interrupted while describing " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new SerializationException("Cannot describe the data key topic " + topic + " (created by "
                + "bin/engram topics): " + e.getMessage(), e);
        }
        return out;
    }

    void awaitPosition(final int partition, final long offset) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DataKeys.TIMEOUT_MS);
        synchronized (progress) {
            while (position.getOrDefault(partition, 0L) < offset) {
                if (readerFailure != null) {
                    throw new SerializationException("The data key reader failed: " + readerFailure.getMessage(),
                        readerFailure);
                }
                final long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0 || closed) {
                    throw new SerializationException("Data keys of " + topic + " partition " + partition
                        + " not read up to offset " + offset + " within " + DataKeys.TIMEOUT_MS + " ms");
                }
                try {
                    progress.wait(Math.min(left, 100));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SerializationException("Interrupted while waiting for data keys", e);
                }
            }
        }
    }

    private void read() {
        try {
            List<TopicPartition> assigned = List.of();
            while (!closed) {
                final List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(10));
                if (infos != null && infos.size() != assigned.size()) {
                    final List<TopicPartition> tps = new ArrayList<>();
                    infos.forEach(i -> tps.add(new TopicPartition(topic, i.partition())));
                    consumer.assign(tps);
                    if (assigned.isEmpty()) {
                        consumer.seekToBeginning(tps);
                    }
                    assigned = tps;
                }
                for (final ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    apply.accept(r.key(), r.value());
                }
                synchronized (progress) {
                    for (final TopicPartition tp : assigned) {
                        position.put(tp.partition(), consumer.position(tp));
                    }
                    progress.notifyAll();
                }
            }
        } catch (WakeupException e) {
            if (!closed) {
                readerFailure = e;
            }
        } catch (RuntimeException e) {
            readerFailure = e;
            LOG.error("Data key reader of {} stopped", topic, e);
        } finally {
            consumer.close(Duration.ofSeconds(1));
            synchronized (progress) {
                progress.notifyAll();
            }
        }
    }

    /** Stops the reader (waits up to 5 s) and closes the admin client. */
    @Override
    public void close() {
        closed = true;
        consumer.wakeup();
        dev.engram.config.KafkaConnection.join(reader);
        admin.close(Duration.ofSeconds(5));
    }
}
