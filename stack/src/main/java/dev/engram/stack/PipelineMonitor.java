package dev.engram.stack;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.topics.Topic;
import dev.engram.consolidation.Observations;
import dev.engram.config.EngramConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import dev.engram.topics.AppIds;

/**
 * Watches the pipeline from the outside, as an operator would: counts what is on the output topics
 * and measures the consumer-group lag of the three apps. Counts come from the topics, not from the
 * apps' in-memory counters: a {@code read_committed} consumer (no group, assigned every partition,
 * from the beginning) reads {@code conversations-completed}, {@code memory-candidates},
 * {@code memory-updated} (counted by {@link UpdateOperation}), {@code memory-contradictions} and every
 * dead-letter topic; aborted transactions are never counted.
 *
 * <p>Call {@link #poll(Duration)} and the getters from one thread; {@link #close()} may come from another
 * (the demo's shutdown hook on Ctrl-C): it wakes a running poll up and closes the consumer once that poll
 * has returned, since a {@link KafkaConsumer} refuses a second thread ({@code ConcurrentModificationException}).
 * After the close, the methods that ask the cluster throw {@link IllegalStateException}.
 */
public final class PipelineMonitor implements AutoCloseable {

    /**
     * An app's consumer group and the topics it reads: a partition of one with records counts before the group has
     * ever committed it (the consolidator's first {@code memory-access} records, whose processing may run a daily
     * pass of minutes: before, a group's committed partitions and its first input only were counted).
     */
    private record Stage(String groupId, List<String> inputs) {
    }

    /** In pipeline order, so that a stage is checked only after the stages feeding it. */
    private static final List<Stage> STAGES = List.of(
        // the repartition topic too: a conversation re-routed to its user's partition and not consumed again yet is
        // in no store, and its partition may have no committed offset yet (counted from the topic, as an input)
        new Stage(AppIds.EXTRACTOR, List.of(Topic.CONVERSATIONS_COMPLETED.name(),
            dev.engram.topology.ExtractionTopology.REPARTITION_TOPIC)),
        new Stage(AppIds.CONSOLIDATOR, List.of(Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_COMMANDS.name(),
            Topic.MEMORY_ACCESS.name())),
        new Stage(AppIds.RETRIEVER, List.of(Topic.MEMORY_UPDATED.name(), Topic.MEMORY_ACCESS.name())));

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Admin admin;
    private final Deserializer<MemoryUpdated> updates;
    private final List<TopicPartition> partitions = new ArrayList<>();
    private final Map<String, Long> perTopic = new HashMap<>();
    /** Partitions of the apps' inputs that are not counted, once the cluster has listed them. */
    private final Map<String, List<TopicPartition>> inputs = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<UpdateOperation, Long> operations = new EnumMap<>(UpdateOperation.class);
    private long expired;
    /** The lifecycle's ARCHIVED records (not observations) by archive reason. */
    private final Map<String, Long> archivedByReason = new java.util.concurrent.ConcurrentHashMap<>();
    private long observationsWritten;
    private long undecodableUpdates;
    /** Held while the consumer is used; {@link #close()} takes it after waking the consumer up. */
    private final Object consumerLock = new Object();
    private volatile boolean closed;

    /**
     * @param bootstrapServers the cluster; the topics of {@link dev.engram.topics.Topic#allNames()} must exist
     */
    public PipelineMonitor(final String bootstrapServers) {
        this(bootstrapServers, Topic.MEMORY_UPDATED.valueDeserializer(EngramConfig.plain()));
    }

    /**
     * @param bootstrapServers the cluster; the topics of {@link dev.engram.topics.Topic#allNames()} must exist
     * @param updates the memory-updated decoder (sealing when {@code crypto.enabled})
     */
    public PipelineMonitor(final String bootstrapServers, final Deserializer<MemoryUpdated> updates) {
        this.updates = updates;
        // named, so a benchmark tells its requests from the pipeline's (bench ingest's brokerTrafficPerCandidate)
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            AdminClientConfig.CLIENT_ID_CONFIG, "engram-demo-monitor-admin"));
        this.consumer = new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString(),
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
            ConsumerConfig.CLIENT_ID_CONFIG, "engram-demo-monitor",
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        final List<String> counted = new ArrayList<>(List.of(Topic.CONVERSATIONS_COMPLETED.name(), Topic.MEMORY_CANDIDATES.name(),
            Topic.MEMORY_UPDATED.name(), Topic.MEMORY_CONTRADICTIONS.name()));
        counted.addAll(deadLetterTopics());
        for (final String topic : counted) {
            consumer.partitionsFor(topic, Duration.ofSeconds(30))
                .forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
            perTopic.put(topic, 0L);
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** @return the dead-letter topics of the three apps */
    public static List<String> deadLetterTopics() {
        return STAGES.stream().map(s -> Topic.deadLetters(s.groupId()).name()).toList();
    }

    /**
     * Reads what is new on the counted topics for up to {@code budget}.
     *
     * @param budget how long to keep polling
     */
    public void poll(final Duration budget) {
        final long deadline = System.nanoTime() + budget.toNanos();
        synchronized (consumerLock) {
            requireOpen();
            try {
                do {
                    for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                        perTopic.merge(record.topic(), 1L, Long::sum);
                        if (record.topic().equals(Topic.MEMORY_UPDATED.name())) {
                            countUpdate(record);
                        }
                    }
                } while (System.nanoTime() < deadline && !closed);
            } catch (WakeupException e) {
                requireOpen();
                throw e;
            }
        }
    }

    /** @throws IllegalStateException after {@link #close()} */
    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("The pipeline monitor is closed");
        }
    }

    private void countUpdate(final ConsumerRecord<byte[], byte[]> record) {
        try {
            final MemoryUpdated update = updates.deserialize(record.topic(), record.headers(), record.value());
            if (update != null && update.getMemory() != null && Observations.isObservation(update.getMemory())) {
                // derived by the consolidation pass, not a memory of a candidate: counted apart
                if (update.getOperation() == UpdateOperation.CREATED) {
                    observationsWritten++;
                }
            } else if (update != null) {
                operations.merge(update.getOperation(), 1L, Long::sum);
                if (update.getOperation() == UpdateOperation.ARCHIVED && update.getMemory() != null
                    && update.getMemory().getArchiveReason() != null) {
                    archivedByReason.merge(update.getMemory().getArchiveReason().name(), 1L, Long::sum);
                    if (update.getMemory().getArchiveReason() == ArchiveReason.EXPIRED) {
                        expired++;
                    }
                }
            }
        } catch (RuntimeException e) {
            undecodableUpdates++;
        }
    }

    /**
     * @return true when the counting consumer has read every committed record (its position reached
     *     the last stable offset of every counted partition)
     */
    public boolean caughtUp() {
        synchronized (consumerLock) {
            requireOpen();
            try {
                final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(10));
                for (final TopicPartition tp : partitions) {
                    if (consumer.position(tp, Duration.ofSeconds(10)) < ends.getOrDefault(tp, 0L)) {
                        return false;
                    }
                }
                return true;
            } catch (WakeupException e) {
                requireOpen();
                throw e;
            }
        }
    }

    /**
     * Total lag of the three apps' consumer groups: for each app in pipeline order, every partition of
     * its input topics that has records must have a committed offset at its last stable offset, and so
     * must every other partition the group has committed (further inputs, repartition topics).
     *
     * @return records not yet committed as processed by the three apps (0 = all processed); a partition
     *     with records but no committed offset counts all its records
     */
    public long lag() {
        long total = 0;
        for (final Stage stage : STAGES) {
            total += lag(stage);
        }
        return total;
    }

    /** @return records of {@code conversations-completed} the extractor has committed as processed */
    public long extractorConsumed() {
        try {
            return committed(AppIds.EXTRACTOR).entrySet().stream()
                .filter(e -> e.getKey().topic().equals(Topic.CONVERSATIONS_COMPLETED.name()))
                .mapToLong(e -> e.getValue().offset()).sum();
        } catch (IllegalStateException e) {
            return 0;
        }
    }

    private long lag(final Stage stage) {
        final Map<TopicPartition, OffsetAndMetadata> committed = committed(stage.groupId());
        final Map<TopicPartition, OffsetSpec> wanted = new HashMap<>();
        committed.keySet().forEach(tp -> wanted.put(tp, OffsetSpec.latest()));
        for (final String input : stage.inputs()) {
            for (final TopicPartition tp : inputPartitions(input)) {
                wanted.put(tp, OffsetSpec.latest());
            }
        }
        final Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
            get(admin.listOffsets(wanted, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all());
        long lag = 0;
        for (final Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end : ends.entrySet()) {
            final OffsetAndMetadata done = committed.get(end.getKey());
            lag += Math.max(0, end.getValue().offset() - (done == null ? 0 : done.offset()));
        }
        return lag;
    }

    /**
     * @return the partitions of an app's input topic (a counted one known from the constructor; others from the
     *     cluster's topic list, which creates nothing: none for a topic not created yet, e.g. the extractor's repartition
     *     topic before the extractor first ran)
     */
    private List<TopicPartition> inputPartitions(final String topic) {
        final List<TopicPartition> found = partitions.stream().filter(tp -> tp.topic().equals(topic)).toList();
        if (!found.isEmpty()) {
            return found;
        }
        final List<TopicPartition> known = inputs.get(topic);
        if (known != null) {
            return known;
        }
        synchronized (consumerLock) {
            requireOpen();
            final List<TopicPartition> listed = consumer.listTopics(Duration.ofSeconds(10)).getOrDefault(topic, List.of())
                .stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            if (!listed.isEmpty()) {
                inputs.put(topic, listed); // a topic's partitions do not change under the demo or a bench
            }
            return listed;
        }
    }

    private Map<TopicPartition, OffsetAndMetadata> committed(final String groupId) {
        final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        get(admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata()).forEach((tp, o) -> {
            if (o != null) {
                offsets.put(tp, o);
            }
        });
        return offsets;
    }

    private static <T> T get(final org.apache.kafka.common.KafkaFuture<T> future) {
        try {
            return future.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while asking the cluster", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Cannot read offsets from the cluster: " + e, e);
        }
    }

    /**
     * @param topic a counted topic
     * @return committed records read from it so far
     */
    public long count(final String topic) {
        return perTopic.getOrDefault(topic, 0L);
    }

    /**
     * @param operation an update operation
     * @return {@code memory-updated} records with that operation read so far
     */
    public long updates(final UpdateOperation operation) {
        return operations.getOrDefault(operation, 0L);
    }

    /**
     * @return {@code memory-updated} CREATED records of observations (first writes and rewrites by the consolidation
     *     pass, {@link Observations}); observations are not in the other operation counts
     */
    public long observationsWritten() {
        return observationsWritten;
    }

    /** @return {@code memory-updated} ARCHIVED records whose reason is EXPIRED */
    public long expired() {
        return expired;
    }

    /** @return {@code memory-updated} records that could not be decoded */
    public long undecodableUpdates() {
        return undecodableUpdates;
    }

    /** @return records on all dead-letter topics */
    public long deadLetters() {
        return deadLetterTopics().stream().mapToLong(this::count).sum();
    }

    /**
     * The summary of everything counted so far.
     *
     * @param elapsedSeconds seconds from the start of the ingest to the end of processing
     * @return the summary
     */
    public DemoSummary summary(final double elapsedSeconds) {
        return new DemoSummary(
            count(Topic.CONVERSATIONS_COMPLETED.name()) - count(Topic.deadLetters(AppIds.EXTRACTOR).name()),
            count(Topic.MEMORY_CANDIDATES.name()),
            updates(UpdateOperation.CREATED),
            updates(UpdateOperation.REINFORCED),
            updates(UpdateOperation.SUPERSEDED),
            updates(UpdateOperation.MERGED),
            updates(UpdateOperation.ARCHIVED),
            expired,
            count(Topic.MEMORY_CONTRADICTIONS.name()),
            deadLetters(),
            Math.round(elapsedSeconds * 10) / 10.0).withArchiveReasons(Map.copyOf(archivedByReason));
    }

    /**
     * Closes the consumer and the admin client; safe from any thread and idempotent. A poll running on
     * another thread is woken up (it throws {@link IllegalStateException}) and the consumer is closed
     * once it has returned.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        consumer.wakeup();
        synchronized (consumerLock) {
            consumer.close(Duration.ofSeconds(5));
        }
        admin.close(Duration.ofSeconds(5));
    }
}
