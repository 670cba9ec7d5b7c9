package dev.engram.embedder;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import dev.engram.config.KafkaConnection;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows {@value ActiveModelEmbedder#TOPIC} on one background thread (no consumer group, from the beginning, so
 * an app started after a switch starts with the switched model) and hands each model named under key
 * {@value ActiveModelEmbedder#KEY} to {@code onModel}, in offset order. The topic is created by the first
 * {@code reembed}: while it does not exist the follower looks for it every {@value #ABSENT_RETRY_MS} ms
 * (topic auto-creation off). A failure of the reader is logged and retried after a second; it never stops the app.
 */
public final class ActiveModelFollower implements AutoCloseable {

    static final long ABSENT_RETRY_MS = 2_000;
    private static final Logger LOG = LoggerFactory.getLogger(ActiveModelFollower.class);

    private final KafkaConsumer<String, byte[]> consumer;
    private final Consumer<String> onModel;
    private final Thread reader;
    private final java.util.concurrent.CountDownLatch caughtUp = new java.util.concurrent.CountDownLatch(1);
    private volatile boolean closed;

    /**
     * Connects and starts following.
     *
     * @param kafka the app's Kafka client settings (bootstrap servers and security are taken)
     * @param onModel called on the reader thread with each model named active
     */
    public ActiveModelFollower(final Map<String, Object> kafka, final Consumer<String> onModel) {
        this.onModel = onModel;
        final Map<String, Object> props = new HashMap<>(KafkaConnection.of(kafka));
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
        reader = new Thread(this::read, "engram-active-model-follower");
        reader.setDaemon(true);
        reader.start();
    }

    private void read() {
        boolean assigned = false;
        Map<TopicPartition, Long> ends = Map.of();
        try {
            while (!closed) {
                try {
                    if (!assigned) {
                        final List<PartitionInfo> infos = consumer.partitionsFor(ActiveModelEmbedder.TOPIC,
                            Duration.ofSeconds(3));
                        if (infos == null || infos.isEmpty()) {
                            caughtUp.countDown(); // no model was ever named: the configured one stands
                            pause(ABSENT_RETRY_MS);
                            continue;
                        }
                        final List<TopicPartition> tps = new ArrayList<>();
                        infos.forEach(i -> tps.add(new TopicPartition(ActiveModelEmbedder.TOPIC, i.partition())));
                        consumer.assign(tps);
                        consumer.seekToBeginning(tps);
                        ends = consumer.endOffsets(tps, Duration.ofSeconds(5));
                        assigned = true;
                    }
                    for (final ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        if (ActiveModelEmbedder.KEY.equals(r.key()) && r.value() != null) {
                            onModel.accept(new String(r.value(), StandardCharsets.UTF_8));
                        }
                    }
                    if (caughtUp.getCount() > 0 && ends.entrySet().stream()
                        .allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
                        caughtUp.countDown();
                    }
                } catch (WakeupException e) {
                    throw e;
                } catch (RuntimeException e) {
                    if (!closed) {
                        // the app does not wait for a cluster it cannot reach: it starts with its configured
                        // model and switches when the record is read
                        caughtUp.countDown();
                        LOG.warn("Reading {} failed ({}); retrying in 1 s", ActiveModelEmbedder.TOPIC, e.toString());
                        pause(1_000);
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close(Duration.ofSeconds(1));
        }
    }

    /**
     * Waits until the follower has read the topic up to the end it had at start (or found it absent), so that an
     * app starts with the active model rather than switching after its first records.
     *
     * @param timeout bound of the wait
     * @return whether it had, in time
     */
    public boolean awaitCaughtUp(final Duration timeout) {
        try {
            return caughtUp.await(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Sleeps up to {@code millis}, in steps that notice {@link #close()}. */
    private void pause(final long millis) {
        final long until = System.nanoTime() + millis * 1_000_000L;
        while (!closed && System.nanoTime() < until) {
            java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L);
        }
    }

    /** Stops the reader (waits up to 5 s). */
    @Override
    public void close() {
        closed = true;
        consumer.wakeup();
        KafkaConnection.join(reader);
    }
}
