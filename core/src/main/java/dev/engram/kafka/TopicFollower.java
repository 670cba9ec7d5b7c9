package dev.engram.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;

import dev.engram.config.KafkaConnection;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a small compacted key topic beside Kafka Streams (the data keys of {@code DataKeys}, the active embedding
 * model of {@code ActiveModelEmbedder}): one background thread reads it from the beginning, {@code read_committed},
 * without a consumer group, and hands every record's key and value (null: a tombstone) to {@code apply}, in offset
 * order per partition. Partitions are added as the topic grows; while the topic does not exist the follower looks for
 * it every {@value #ABSENT_RETRY_MS} ms (topic auto-creation off).
 *
 * <p>It never stops by itself: a failure of the consumer is logged, kept as {@link #failure()} until a later poll
 * succeeds, and retried after {@value #FAILURE_RETRY_MS} ms from the same position; a record {@code apply} throws on
 * is logged with its offset and skipped (one bad record does not stop the others). Callers wait for it:
 * {@link #awaitFirstPass} (read up to the end the topic had when first found, or found absent, or unreachable: an
 * app starts with what was there), {@link #awaitPosition} and {@link #awaitEnd} (the topic's current last stable
 * offset), the latter two bounded and failing with the caller's own exception type. Thread-safe.
 */
public final class TopicFollower implements AutoCloseable {

    /** Milliseconds between two looks for an absent topic. */
    public static final long ABSENT_RETRY_MS = 2_000;
    /** Milliseconds before a failed read is retried. */
    public static final long FAILURE_RETRY_MS = 1_000;
    private static final Logger LOG = LoggerFactory.getLogger(TopicFollower.class);

    private final String topic;
    private final BiConsumer<String, byte[]> apply;
    private final BiFunction<String, Throwable, RuntimeException> error;
    private final Map<String, Object> connection;
    private final KafkaConsumer<String, byte[]> consumer;
    private final Map<Integer, Long> position = new ConcurrentHashMap<>();
    private final Object progress = new Object();
    private final CountDownLatch firstPass = new CountDownLatch(1);
    private final Thread reader;
    private Admin admin;
    private volatile boolean closed;
    private volatile RuntimeException failure;

    /**
     * Connects and starts reading the topic from its beginning.
     *
     * @param kafka the app's Kafka client settings (bootstrap servers and security are taken)
     * @param topic the topic
     * @param threadName the reader thread's name
     * @param apply called on the reader thread with each record's key and value
     * @param error makes the exception a bounded wait throws from its message and cause (may be null), e.g.
     *     {@code SerializationException::new}
     */
    public TopicFollower(final Map<String, Object> kafka, final String topic, final String threadName,
                         final BiConsumer<String, byte[]> apply, final BiFunction<String, Throwable, RuntimeException> error) {
        this.topic = topic;
        this.apply = apply;
        this.error = error;
        this.connection = KafkaConnection.of(kafka);
        final Map<String, Object> props = new HashMap<>(connection);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString().toLowerCase(java.util.Locale.ROOT));
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
        reader = new Thread(this::read, threadName);
        reader.setDaemon(true);
        reader.start();
    }

    private void read() {
        List<TopicPartition> assigned = List.of();
        Map<TopicPartition, Long> firstEnds = null;
        try {
            while (!closed) {
                try {
                    final List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(3));
                    if (infos == null || infos.isEmpty()) {
                        firstPass.countDown(); // nothing was ever written: what the app has stands
                        pause(ABSENT_RETRY_MS);
                        continue;
                    }
                    if (infos.size() != assigned.size()) {
                        final List<TopicPartition> tps = new ArrayList<>();
                        infos.forEach(i -> tps.add(new TopicPartition(topic, i.partition())));
                        consumer.assign(tps);
                        if (assigned.isEmpty()) {
                            consumer.seekToBeginning(tps);
                            firstEnds = consumer.endOffsets(tps, Duration.ofSeconds(5));
                        }
                        assigned = tps;
                    }
                    for (final ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        applyOne(r);
                    }
                    synchronized (progress) {
                        for (final TopicPartition tp : assigned) {
                            position.put(tp.partition(), consumer.position(tp));
                        }
                        failure = null;
                        progress.notifyAll();
                    }
                    if (firstEnds != null && firstEnds.entrySet().stream()
                        .allMatch(e -> position.getOrDefault(e.getKey().partition(), 0L) >= e.getValue())) {
                        firstPass.countDown();
                        firstEnds = null;
                    }
                } catch (WakeupException e) {
                    throw e;
                } catch (RuntimeException e) {
                    if (!closed) {
                        failure = e;
                        // the app does not wait for a cluster it cannot reach: it starts with what it has
                        firstPass.countDown();
                        LOG.warn("Reading {} failed ({}); retrying in {} ms", topic, e.toString(), FAILURE_RETRY_MS);
                        pause(FAILURE_RETRY_MS);
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close(Duration.ofSeconds(1));
            synchronized (progress) {
                progress.notifyAll();
            }
        }
    }

    private void applyOne(final ConsumerRecord<String, byte[]> r) {
        try {
            apply.accept(r.key(), r.value());
        } catch (RuntimeException e) {
            LOG.error("Record {}-{}@{} could not be applied and is skipped", r.topic(), r.partition(), r.offset(), e);
        }
    }

    /**
     * @param timeout bound of the wait
     * @return whether the follower has read the topic up to the end it had when first found (or found it absent, or
     *     failed to read it), in time
     */
    public boolean awaitFirstPass(final Duration timeout) {
        try {
            return firstPass.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Waits until the follower has read a partition up to an offset.
     *
     * @param partition the partition
     * @param offset the position to reach (the offset after the record waited for)
     * @param timeout bound of the wait
     * @throws RuntimeException of the {@code error} factory when it has not in time (naming the last failure, if
     *     any), when closed or interrupted
     */
    public void awaitPosition(final int partition, final long offset, final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (progress) {
            while (position.getOrDefault(partition, 0L) < offset) {
                final long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0 || closed) {
                    final RuntimeException last = failure;
                    throw error.apply(topic + " partition " + partition + " not read up to offset " + offset + " within "
                        + timeout.toMillis() + " ms" + (last == null ? "" : " (reading fails: " + last.getMessage() + ")"), last);
                }
                try {
                    progress.wait(Math.min(left, 100));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw error.apply("Interrupted while waiting for " + topic, e);
                }
            }
        }
    }

    /**
     * Waits until the follower has read every partition up to the topic's current last stable offset.
     *
     * @param timeout bound of the wait, for asking the end and for reading up to it each
     * @throws RuntimeException of the {@code error} factory when the end cannot be asked (the topic absent, the
     *     cluster unreachable) or is not reached in time
     */
    public void awaitEnd(final Duration timeout) {
        final Map<TopicPartition, OffsetSpec> wanted = new HashMap<>();
        try {
            for (final TopicDescription d : admin().describeTopics(List.of(topic)).allTopicNames()
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS).values()) {
                d.partitions().forEach(p -> wanted.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            }
            admin().listOffsets(wanted, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .forEach((tp, info) -> awaitPosition(tp.partition(), info.offset(), timeout));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw error.apply("Interrupted while reading the end of " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            final Throwable cause = e.getCause() == null ? e : e.getCause();
            throw error.apply("Cannot read the end of " + topic + ": " + cause.getMessage(), cause);
        }
    }

    private synchronized Admin admin() {
        if (admin == null) {
            admin = Admin.create(connection);
        }
        return admin;
    }

    /** @return the last failure of reading, cleared by the next poll that succeeds; null when reading works */
    public RuntimeException failure() {
        return failure;
    }

    /** Sleeps up to {@code millis}, in steps that notice {@link #close()}. */
    private void pause(final long millis) {
        final long until = System.nanoTime() + millis * 1_000_000L;
        while (!closed && System.nanoTime() < until) {
            LockSupport.parkNanos(50_000_000L);
        }
    }

    /** Stops the reader (waits up to 5 s) and closes the admin client, if one was made. */
    @Override
    public void close() {
        closed = true;
        consumer.wakeup();
        KafkaConnection.join(reader);
        synchronized (this) {
            if (admin != null) {
                admin.close(Duration.ofSeconds(5));
            }
        }
    }
}
