package dev.engram.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryUpdated;
import dev.engram.serde.AvroSerdes;
import dev.engram.topology.Topics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The state of every memory as the retriever's read model holds it, rebuilt from {@code memory-updated}
 * (the event carries the full state after the change, and one memory's events share the user's
 * partition, so the last event per memory id is its state). Read with a {@code read_committed}
 * consumer without a group, from the beginning to the end offsets taken at the start.
 *
 * <p>Why not the retriever's HTTP API: a query reports its hits on {@code memory-access}, which changes
 * access counts and recency, so the order of the benchmark's questions would change the answers.
 */
final class MemorySnapshot {

    private MemorySnapshot() {
    }

    /**
     * @param bootstrapServers the cluster
     * @return memories by user id (tenant ignored: one tenant per benchmark), every status
     */
    static Map<String, List<Memory>> read(final String bootstrapServers) {
        final Map<String, Memory> byId = new LinkedHashMap<>();
        try (KafkaConsumer<String, MemoryUpdated> consumer = new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString(),
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
            ConsumerConfig.CLIENT_ID_CONFIG, "engram-bench-snapshot",
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000),
            new StringDeserializer(), AvroSerdes.serde(MemoryUpdated.class).deserializer())) {
            final List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(Topics.MEMORY_UPDATED, Duration.ofSeconds(30))
                .forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            final long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (!atEnd(consumer, ends)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Could not read memory-updated to its end within 2 minutes");
                }
                for (final ConsumerRecord<String, MemoryUpdated> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() != null && r.value().getMemory() != null) {
                        byId.put(r.value().getMemory().getMemoryId(), r.value().getMemory());
                    }
                }
            }
        }
        final Map<String, List<Memory>> byUser = new HashMap<>();
        byId.values().forEach(m -> byUser.computeIfAbsent(m.getUserId(), u -> new ArrayList<>()).add(m));
        return byUser;
    }

    /**
     * Saves memories for a later {@link #load}: each as a 4-byte length and its Avro single-object encoding.
     *
     * @param memories by user
     * @param file target
     * @throws IOException if it cannot be written
     */
    static void save(final Map<String, List<Memory>> memories, final Path file) throws IOException {
        final Serializer<Memory> serializer = AvroSerdes.serde(Memory.class).serializer();
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
            for (final List<Memory> list : memories.values()) {
                for (final Memory m : list) {
                    final byte[] bytes = serializer.serialize(Topics.MEMORY_UPDATED, m);
                    out.writeInt(bytes.length);
                    out.write(bytes);
                }
            }
        }
    }

    /**
     * @param file written by {@link #save}
     * @return memories by user id
     * @throws IOException if it cannot be read
     */
    static Map<String, List<Memory>> load(final Path file) throws IOException {
        final Deserializer<Memory> deserializer = AvroSerdes.serde(Memory.class).deserializer();
        final Map<String, List<Memory>> byUser = new HashMap<>();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            while (true) {
                final int length;
                try {
                    length = in.readInt();
                } catch (EOFException end) {
                    return byUser;
                }
                final byte[] bytes = in.readNBytes(length);
                final Memory m = deserializer.deserialize(Topics.MEMORY_UPDATED, bytes);
                byUser.computeIfAbsent(m.getUserId(), u -> new ArrayList<>()).add(m);
            }
        }
    }

    private static boolean atEnd(final KafkaConsumer<?, ?> consumer, final Map<TopicPartition, Long> ends) {
        for (final Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            if (consumer.position(e.getKey(), Duration.ofSeconds(10)) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}
