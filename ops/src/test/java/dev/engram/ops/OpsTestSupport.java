package dev.engram.ops;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.stack.TopicScan;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.avro.MemoryUpdated;
import dev.engram.core.MemoryIds;
import dev.engram.serde.AvroSerdes;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import dev.engram.topics.Topic;

/**
 * Shared by the fault ITs: candidates that each create exactly one memory (one candidate per user,
 * a deterministic one-hot embedding), and counting of {@code memory-updated} with a read_committed
 * consumer once the consolidator's group has no lag (public for the CLI test in deploy, OpsStackIT).
 */
public final class OpsTestSupport {

    static {
        AvroSerdes.trustGeneratedRecords();
    }

    private OpsTestSupport() {
    }

    /** @return candidate number {@code i}: user {@code t/u-i}, an episodic memory, event time 2026-01-01 + i s */
    static MemoryCandidate candidate(final int i) {
        final String user = "u-" + i;
        final String content = "Candidate number " + i + " about the user's day";
        final List<Float> embedding = new ArrayList<>(384);
        for (int d = 0; d < 384; d++) {
            embedding.add(d == i % 384 ? 1f : 0f);
        }
        return MemoryCandidate.newBuilder()
            .setCandidateId(MemoryIds.candidateId("t", user, "c-" + i, content))
            .setTenantId("t").setUserId(user).setConversationId("c-" + i).setType(MemoryType.EPISODIC)
            .setCategory(null).setKey(null).setValue(null).setDisplayName(null).setContent(content).setNegated(false)
            .setImportance(0.6).setConfidence(0.9).setSource(MemorySource.EXPLICIT).setSourceMessageIndexes(List.of(0))
            .setEventTime(Instant.parse("2026-01-01T00:00:00Z").plusSeconds(i)).setEmbedding(embedding)
            .setEmbeddingModel("one-hot-test").setExtractor("ops-it").build();
    }

    /** Sends candidates {@code from} (inclusive) to {@code to} (exclusive), keyed by user, and flushes. */
    static void sendCandidates(final String bootstrap, final int from, final int to) {
        final Serializer<MemoryCandidate> values = AvroSerdes.serde(MemoryCandidate.class).serializer();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(), new ByteArraySerializer())) {
            for (int i = from; i < to; i++) {
                final MemoryCandidate c = candidate(i);
                producer.send(new ProducerRecord<>(Topic.MEMORY_CANDIDATES.name(), null, c.getEventTime().toEpochMilli(),
                    "t/" + c.getUserId(), values.serialize(Topic.MEMORY_CANDIDATES.name(), c)));
            }
            producer.flush();
        }
    }

    /** Waits until the group has committed everything on its input topics. */
    public static void awaitNoLag(final String bootstrap, final String groupId, final Set<String> topics, final Duration timeout) {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            final GroupOffsets offsets = new GroupOffsets(admin);
            final long deadline = System.nanoTime() + timeout.toNanos();
            long lag = -1;
            while (System.nanoTime() < deadline) {
                try {
                    lag = offsets.lag(groupId, topics);
                    if (lag == 0) {
                        return;
                    }
                } catch (IllegalStateException brokerNotBackYet) {
                    lag = -1;
                }
                poll();
            }
            throw new AssertionError(groupId + " still lags by " + lag + " after " + timeout);
        }
    }

    /** @return committed (read_committed) {@code memory-updated} events, read to the last stable offsets */
    static List<MemoryUpdated> committedUpdates(final String bootstrap) {
        final Deserializer<MemoryUpdated> decoder = AvroSerdes.serde(MemoryUpdated.class).deserializer();
        final List<MemoryUpdated> out = new ArrayList<>();
        TopicScan.toEnd(TopicScan.client(bootstrap), Topic.MEMORY_UPDATED.name(), null, Duration.ofSeconds(30),
            r -> out.add(decoder.deserialize(r.topic(), r.headers(), r.value())));
        return out;
    }

    /** A short pause between two polls of a condition with a deadline (there is nothing to block on). */
    static void poll() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted", e);
        }
    }
}
