package dev.engram.stack;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.engram.avro.MemoryUpdated;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * {@link MemoryState} of {@code memory-updated} from given offsets on, folded on a thread of its own while the topic is
 * still written ({@code read_committed}, no group): whoever needs the state once a writer is done ({@code bin/engram
 * rebuild}'s state after, the events its rebuilt consolidator appends) asks {@link #readTo} for the rest only, instead
 * of reading every record after the writer stopped (a second or so for a LoCoMo-sized rebuild). The same fold as
 * {@link MemoryState#read}. Thread-safe: the fold belongs to the reader thread until {@link #readTo} has joined it.
 */
public final class MemoryStateTail implements AutoCloseable {

    private static final Duration POLL = Duration.ofMillis(50);

    private final MemoryState.Fold fold = new MemoryState.Fold();
    private final Map<String, Object> clientProperties;
    private final Map<TopicPartition, Long> fromOffsets;
    private KafkaConsumer<byte[], byte[]> consumer;
    private final Deserializer<MemoryUpdated> decoder;
    private final Thread reader;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile Map<TopicPartition, Long> target;
    private volatile boolean closed;
    private volatile RuntimeException failure;

    private MemoryStateTail(final Map<String, Object> clientProperties, final Map<TopicPartition, Long> fromOffsets,
                            final Deserializer<MemoryUpdated> decoder, final String threadName) {
        this.decoder = decoder;
        this.clientProperties = clientProperties;
        this.fromOffsets = fromOffsets == null ? null : Map.copyOf(fromOffsets);
        this.reader = new Thread(this::follow, threadName);
        reader.setDaemon(true);
    }

    /**
     * Starts folding {@code memory-updated} from the given offsets.
     *
     * @param clientProperties consumer properties with at least {@code bootstrap.servers}
     * @param fromOffsets where to start per partition; partitions not in it start at the beginning; null = all
     * @param decoder the MemoryUpdated deserializer (with {@code crypto.enabled} the sealing one)
     * @param threadName the reader thread's name
     * @return the tail, reading
     */
    public static MemoryStateTail start(final Map<String, Object> clientProperties,
                                        final Map<TopicPartition, Long> fromOffsets,
                                        final Deserializer<MemoryUpdated> decoder, final String threadName) {
        final MemoryStateTail tail = new MemoryStateTail(clientProperties, fromOffsets, decoder, threadName);
        tail.reader.start();
        return tail;
    }

    /**
     * Reads on up to the given ends and returns the state; the tail stops reading.
     *
     * @param ends where to stop per partition (exclusive): the topic's last stable offsets once the writer is done
     * @param timeout how long reading the rest may take at most
     * @return the state of everything folded from the start offsets up to those ends
     * @throws IllegalStateException if the ends are not reached within the timeout, or reading failed
     */
    public MemoryState readTo(final Map<TopicPartition, Long> ends, final Duration timeout) {
        target = Map.copyOf(ends);
        final boolean reached;
        try {
            reached = done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("Interrupted while reading memory-updated", e);
        }
        if (!reached) {
            close();
            throw new IllegalStateException("memory-updated not read to its end within " + timeout);
        }
        if (failure != null) {
            throw new IllegalStateException("memory-updated could not be read: " + failure, failure);
        }
        return fold.state();
    }

    /** The reader thread: polls and folds until the target is reached or the tail is closed. */
    private void follow() {
        try {
            // made here, not in the caller: the consumer's metadata round trips are not the caller's to wait for
            consumer = TopicScan.consumer(clientProperties);
            TopicScan.assignFrom(consumer, Topic.MEMORY_UPDATED.name(), fromOffsets);
            while (!closed && !reached(target)) {
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                    // a poll returns only what was stable when fetched, below any end taken after it; the check keeps
                    // the fold at the target whatever comes later
                    final Map<TopicPartition, Long> t = target;
                    if (t == null || r.offset() < t.getOrDefault(new TopicPartition(r.topic(), r.partition()), Long.MAX_VALUE)) {
                        fold.add(decoder, r);
                    }
                }
            }
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            if (consumer != null) {
                consumer.close();
            }
            done.countDown();
        }
    }

    private boolean reached(final Map<TopicPartition, Long> ends) {
        if (ends == null) {
            return false;
        }
        for (final Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey(), Duration.ofSeconds(10)) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** Stops reading (the state so far is dropped unless {@link #readTo} returned it). */
    @Override
    public void close() {
        closed = true;
    }
}
