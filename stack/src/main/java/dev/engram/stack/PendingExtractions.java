package dev.engram.stack;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

import dev.engram.topics.AppIds;
import dev.engram.topology.StoreNames;

/**
 * The conversations the extractor has consumed whose candidates are not committed on {@code memory-candidates} yet, as
 * Kafka holds them: the extractor's {@code extraction-pending-store} read from its changelog by a {@code read_committed}
 * consumer without a group, incrementally (each call reads only what was committed since the last).
 *
 * <p>Why this and not the extractor's pending gauge ({@code ExtractorApp#pendingConversations}): the gauge drops when
 * a conversation's candidates are handed to the producer, and they sit in its buffer until the next commit (Streams'
 * {@code linger.ms}, the commit interval); a settle that took the gauge's 0 could read {@code memory-candidates}' end
 * offsets before the candidates were there, and end early. A conversation consumed before its candidates were forwarded
 * is committed in the pending store with its input offset, and its tombstone is written in the transaction of its
 * candidates; a conversation forwarded before its input offset was committed had its candidates in that same
 * transaction. So once the extractor's group has committed its input up to some offsets, an empty committed store read
 * after that means every conversation up to them has its candidates committed — the exact settle condition (what
 * {@code OpsTestSupport.awaitExtracted} established for the tests, here for the demo, the benchmarks and
 * {@code rebuild --re-extract}).
 *
 * <p>The broker writes a transaction's commit markers partition by partition, so the changelog's tombstone can be
 * readable a moment before the candidates of its transaction are: {@link #settled} also asks that
 * {@code memory-candidates} has no record beyond its last stable offsets (no transaction open there), and with that an
 * empty store means the candidates are readable.
 *
 * <p>One thread at a time (a {@link KafkaConsumer}); the changelog is looked up again until it exists (the extractor
 * creates it when it first runs; before, it has consumed nothing). A changelog deleted and created again (an app reset)
 * needs a new instance.
 */
public final class PendingExtractions implements AutoCloseable {

    /** The changelog of the extractor's {@code extraction-pending-store}. */
    public static final String CHANGELOG = AppIds.EXTRACTOR + "-" + StoreNames.EXTRACTION_PENDING + "-changelog";

    private final KafkaConsumer<byte[], byte[]> consumer;
    /** The same cluster read without isolation: its end offsets are the high watermarks. */
    private final KafkaConsumer<byte[], byte[]> uncommitted;
    private final Set<String> pending = new HashSet<>();
    private List<TopicPartition> partitions = List.of();

    /** @param clientProperties consumer properties with at least {@code bootstrap.servers} */
    public PendingExtractions(final Map<String, Object> clientProperties) {
        final Map<String, Object> props = new java.util.HashMap<>(clientProperties);
        props.putIfAbsent(org.apache.kafka.clients.consumer.ConsumerConfig.CLIENT_ID_CONFIG, "engram-pending-extractions");
        this.consumer = TopicScan.consumer(props);
        final Map<String, Object> raw = new java.util.HashMap<>(props);
        raw.put(org.apache.kafka.clients.consumer.ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            org.apache.kafka.common.IsolationLevel.READ_UNCOMMITTED.toString());
        raw.put(org.apache.kafka.clients.consumer.ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        raw.put(org.apache.kafka.clients.consumer.ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        this.uncommitted = new KafkaConsumer<>(raw, new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
            new org.apache.kafka.common.serialization.ByteArrayDeserializer());
    }

    /**
     * Whether every conversation the extractor consumed (as its group had committed before this call) has its
     * candidates readable on {@code memory-candidates}: {@link #count} is 0, and then {@link #openCandidates} is 0; and
     * no transaction is open on the extractor's repartition topic, so that a lag taken after this call counts every
     * conversation re-routed to its user's partition and not consumed again yet (such a conversation is in no store).
     *
     * @param timeout how long each read may take at most
     * @return true when both hold
     * @throws IllegalStateException if the changelog is not read to its end within the timeout
     */
    public boolean settled(final Duration timeout) {
        return count(timeout) == 0 && openCandidates(timeout) == 0
            && openRecords(dev.engram.topology.ExtractionTopology.REPARTITION_TOPIC, timeout) == 0;
    }

    /**
     * @param timeout bound of the offset look-ups
     * @return records of {@code memory-candidates} beyond its last stable offsets ({@link #openRecords})
     */
    public long openCandidates(final Duration timeout) {
        return openRecords(dev.engram.topics.Topic.MEMORY_CANDIDATES.name(), timeout);
    }

    /**
     * @param topic a topic the extractor writes transactionally ({@code memory-candidates}, its repartition topic)
     * @param timeout bound of the offset look-ups
     * @return records beyond its last stable offsets: in transactions not committed or aborted yet, or whose markers
     *     are not written yet; 0 for a topic that does not exist
     */
    public long openRecords(final String topic, final Duration timeout) {
        final List<PartitionInfo> infos = uncommitted.partitionsFor(topic, timeout);
        if (infos == null || infos.isEmpty()) {
            return 0;
        }
        final List<TopicPartition> tps = infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
        final Map<TopicPartition, Long> stable = consumer.endOffsets(tps, timeout);
        long open = 0;
        for (final Map.Entry<TopicPartition, Long> high : uncommitted.endOffsets(tps, timeout).entrySet()) {
            open += Math.max(0, high.getValue() - stable.getOrDefault(high.getKey(), 0L));
        }
        return open;
    }

    /**
     * Reads the changelog up to its last stable offsets as they are now.
     *
     * @param timeout how long reading may take at most
     * @return conversations in the committed store (per partition, the latest record of each key that is not a
     *     tombstone); 0 while the changelog does not exist
     * @throws IllegalStateException if the end is not reached within the timeout
     */
    public int count(final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        if (partitions.isEmpty()) {
            final List<PartitionInfo> infos = consumer.listTopics(timeout).get(CHANGELOG);
            if (infos == null || infos.isEmpty()) {
                return 0;
            }
            final List<TopicPartition> found = new ArrayList<>();
            infos.forEach(p -> found.add(new TopicPartition(p.topic(), p.partition())));
            consumer.assign(found);
            consumer.seekToBeginning(found);
            partitions = found;
        }
        final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
        while (!reached(ends)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(CHANGELOG + " not read to its end within " + timeout);
            }
            for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                final String entry = r.partition() + "/" + HexFormat.of().formatHex(r.key());
                if (r.value() == null) {
                    pending.remove(entry);
                } else {
                    pending.add(entry);
                }
            }
        }
        return pending.size();
    }

    private boolean reached(final Map<TopicPartition, Long> ends) {
        for (final TopicPartition tp : partitions) {
            if (consumer.position(tp) < ends.getOrDefault(tp, 0L)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        try {
            consumer.close(Duration.ofSeconds(5));
        } finally {
            uncommitted.close(Duration.ofSeconds(5));
        }
    }
}
