package dev.engram.ops;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryUpdated;
import dev.engram.consolidation.Observations;
import dev.engram.crypto.ErasedDataException;
import dev.engram.embedder.KnownVectors;
import dev.engram.stack.TopicScan;
import dev.engram.topics.Topic;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The observation vectors a consolidator wrote on {@code memory-updated}, by model and text
 * ({@link KnownVectors#key}): every version of every observation, so a rebuild that regroups a user at other
 * moments than the live run still finds most of its texts. What {@link Rebuild} hands the rebuilt consolidator, so
 * it embeds no observation text the run being rebuilt embedded already (the one-text vector of a model is a
 * function of the text: the same vector either way).
 */
final class ObservationVectors {

    /** Most vectors kept (about 1.5 KB each at 384 dimensions): beyond it the rest are embedded again. */
    static final int LIMIT = 500_000;

    private ObservationVectors() {
    }

    /**
     * @param client consumer properties with at least {@code bootstrap.servers}
     * @param decoder the deployment's {@code memory-updated} decoder (sealing with {@code crypto.enabled})
     * @param timeout how long reading may take
     * @return key → vector, at most {@link #LIMIT}; records of erased users are skipped
     * @throws IllegalStateException if the end of the topic is not reached within the timeout
     */
    static Map<String, float[]> read(final Map<String, Object> client, final Deserializer<MemoryUpdated> decoder,
                                     final Duration timeout) {
        final Map<String, float[]> out = new HashMap<>();
        final boolean complete = TopicScan.toEnd(client, Topic.MEMORY_UPDATED.name(), null, timeout, record -> {
            if (out.size() >= LIMIT || record.value() == null) {
                return;
            }
            final MemoryUpdated event;
            try {
                event = decoder.deserialize(record.topic(), record.headers(), record.value());
            } catch (ErasedDataException e) {
                return; // an erased user's record: unreadable by design
            }
            final Memory memory = event == null ? null : event.getMemory();
            if (memory != null && Observations.isObservation(memory) && !memory.getEmbedding().isEmpty()) {
                final float[] vector = new float[memory.getEmbedding().size()];
                for (int i = 0; i < vector.length; i++) {
                    vector[i] = memory.getEmbedding().get(i);
                }
                out.put(KnownVectors.key(memory.getEmbeddingModel(), memory.getContent()), vector);
            }
        });
        if (!complete) {
            throw new IllegalStateException("memory-updated not read to its end within " + timeout);
        }
        return out;
    }
}
