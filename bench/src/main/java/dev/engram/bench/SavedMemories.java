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
import java.util.List;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.serde.AvroSerdes;
import dev.engram.stack.MemoryState;
import dev.engram.stack.TopicScan;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import dev.engram.topics.Topic;

/**
 * The memories a benchmark ingested, saved to a file and loaded again, so that a later run can skip the
 * ingestion ({@code bench quality --memories FILE}). The memories themselves are rebuilt from
 * {@code memory-updated} by {@link MemoryState} (as the retriever's read model holds them; the
 * benchmark ingests one tenant, so they are keyed by user id).
 *
 * <p>Why not the retriever's HTTP API: a query reports its hits on {@code memory-access}, which changes
 * access counts and recency, so the order of the benchmark's questions would change the answers.
 */
final class SavedMemories {

    private SavedMemories() {
    }

    /**
     * @param bootstrapServers the cluster
     * @return memories by user id of the one tenant ingested, as the read model holds them (DELETED and
     *     erased ones left out)
     * @throws IllegalStateException if {@code memory-updated} holds several tenants or is not read to
     *     its end within 2 minutes
     */
    static Map<String, List<Memory>> read(final String bootstrapServers) {
        return MemoryState.read(TopicScan.client(bootstrapServers), Duration.ofMinutes(2)).byUserIdOfOneTenant();
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
                    final byte[] bytes = serializer.serialize(Topic.MEMORY_UPDATED.name(), m);
                    out.writeInt(bytes.length);
                    out.write(bytes);
                }
            }
        }
    }

    /**
     * What {@code bin/engram reembed --model M} gives the read path: every memory's content embedded by M (in
     * batches of 64, as {@code reembed} does), with M as its {@code embeddingModel}; nothing else changes.
     *
     * @param memories by user
     * @param model a built-in model name ({@link dev.engram.embedder.OnnxModel#names()})
     * @return the re-embedded memories by user, same order
     * @throws IllegalArgumentException for an unknown model
     */
    static Map<String, List<Memory>> reembed(final Map<String, List<Memory>> memories, final String model) {
        final dev.engram.embedder.OnnxEmbedder embedder = dev.engram.embedder.OnnxEmbedder.shared(model);
        final Map<String, List<Memory>> out = new java.util.LinkedHashMap<>();
        memories.forEach((user, list) -> {
            final List<Memory> next = new ArrayList<>(list.size());
            for (int from = 0; from < list.size(); from += 64) {
                final List<Memory> batch = list.subList(from, Math.min(list.size(), from + 64));
                final List<float[]> vectors = embedder.embedAll(batch.stream().map(Memory::getContent).toList());
                for (int i = 0; i < batch.size(); i++) {
                    next.add(Memory.newBuilder(batch.get(i)).setEmbedding(dev.engram.scoring.Vectors.toList(vectors.get(i)))
                        .setEmbeddingModel(model).build());
                }
            }
            out.put(user, next);
        });
        return out;
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
                final Memory m = deserializer.deserialize(Topic.MEMORY_UPDATED.name(), bytes);
                byUser.computeIfAbsent(m.getUserId(), u -> new ArrayList<>()).add(m);
            }
        }
    }
}
