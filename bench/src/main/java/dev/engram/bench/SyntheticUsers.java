package dev.engram.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.core.UserKey;
import dev.engram.port.Embedder;
import dev.engram.scoring.Vectors;
import dev.engram.topics.Topic;
import dev.engram.config.EngramConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Users of a given size for {@code bench retrieval --memories-per-user}: memories made of LoCoMo
 * texts, published straight to {@code memory-updated} (CREATED), as the consolidator would, so the
 * retriever materializes and indexes them like any other user's.
 *
 * <p>Memory i of a user is two LoCoMo turns joined ("episode" memories of two turns: the pair
 * (a, b) with a = i mod T, b = (a + 1 + ⌊i / T⌋·7) mod T over the first T distinct turn texts), its vector
 * the normalised sum of the two turns' embeddings (each turn embedded once, with the benchmark's
 * embedder); importance, access count and event times vary with i. So every memory is distinct, the
 * vocabulary and the vectors are LoCoMo's, and a 10,000-memory user costs T embeddings, not 10,000.
 */
final class SyntheticUsers {

    private static final Instant START = Instant.parse("2023-01-01T00:00:00Z");

    private final List<String> texts;
    private final List<float[]> vectors;
    private final String model;

    private SyntheticUsers(final List<String> texts, final List<float[]> vectors, final String model) {
        this.texts = texts;
        this.vectors = vectors;
        this.model = model;
    }

    /**
     * @param samples LoCoMo samples (their turn texts)
     * @param maxTexts how many distinct turn texts to embed at most
     * @param embedder the retriever's embedder
     * @return the generator
     */
    static SyntheticUsers of(final List<LoCoMoQa.Sample> samples, final int maxTexts, final Embedder embedder) {
        final Set<String> distinct = new LinkedHashSet<>();
        for (final LoCoMoQa.Sample s : samples) {
            for (final LoCoMoQa.Turn t : s.turns()) {
                if (distinct.size() < maxTexts && !t.text().isBlank()) {
                    distinct.add(t.text());
                }
            }
        }
        final List<String> texts = new ArrayList<>(distinct);
        return new SyntheticUsers(texts, embedder.embedAll(texts), embedder.modelName());
    }

    /**
     * Publishes the users and returns their keys.
     *
     * @param bootstrapServers the broker
     * @param size memories per user
     * @param users how many users of that size
     * @return the user keys, tenant {@code bench}, users {@code synthetic-<size>-<n>}
     */
    List<UserKey> publish(final String bootstrapServers, final int size, final int users) {
        final List<UserKey> keys = new ArrayList<>();
        try (KafkaProducer<String, MemoryUpdated> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"),
            Topic.MEMORY_UPDATED.keySerializer(), Topic.MEMORY_UPDATED.valueSerializer(EngramConfig.plain()))) {
            for (int u = 0; u < users; u++) {
                final UserKey user = new UserKey("bench", "synthetic-" + size + "-" + u);
                keys.add(user);
                for (int i = 0; i < size; i++) {
                    final Memory m = memory(user, i);
                    final MemoryUpdated event = MemoryUpdated.newBuilder()
                        .setEventId(UUID.nameUUIDFromBytes((user.wire() + i).getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString())
                        .setTenantId(user.tenantId()).setUserId(user.userId()).setMemoryId(m.getMemoryId())
                        .setOperation(UpdateOperation.CREATED).setMemory(m).setPreviousValue(null)
                        .setCause("bench:synthetic").setMemoryEnabled(null).setEventTime(m.getUpdatedAt()).build();
                    producer.send(new ProducerRecord<>(Topic.MEMORY_UPDATED.name(), null, m.getUpdatedAt().toEpochMilli(),
                        user.wire(), event));
                }
            }
            producer.flush();
        }
        return keys;
    }

    private Memory memory(final UserKey user, final int i) {
        final int n = texts.size();
        final int a = i % n;
        final int b = (a + 1 + (i / n) * 7) % n;
        final float[] va = vectors.get(a);
        final float[] vb = vectors.get(b);
        final float[] sum = new float[va.length];
        for (int d = 0; d < sum.length; d++) {
            sum[d] = va[d] + vb[d];
        }
        final Instant at = START.plus(Duration.ofHours(i));
        return Memory.newBuilder().setMemoryId(String.format("syn-%06d", i)).setTenantId(user.tenantId())
            .setUserId(user.userId()).setType(MemoryType.EPISODIC).setCategory(null).setKey(null).setValue(null)
            .setDisplayName(null).setContent(texts.get(a) + " " + texts.get(b))
            .setImportance(0.3 + (i % 7) / 10.0).setConfidence(0.9).setSource(MemorySource.EXPLICIT)
            .setStatus(MemoryStatus.ACTIVE).setArchiveReason(null).setCreatedAt(at).setUpdatedAt(at)
            .setLastAccessedAt(at).setLastConfirmedAt(at).setAccessCount(i % 5).setReinforcementCount(1)
            .setExpiresAt(null).setValidFrom(at).setValidTo(null).setSupersededBy(null).setSupersedes(List.of())
            .setSources(List.of(SourceRef.newBuilder().setConversationId("synthetic").setMessageIndexes(List.of(i))
                .setObservedAt(at).build()))
            .setEmbedding(Vectors.toList(Vectors.normalized(sum))).setEmbeddingModel(model).build();
    }
}
