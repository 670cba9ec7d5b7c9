package dev.engram.ops;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.avro.Message;
import dev.engram.core.MemoryIds;
import dev.engram.topics.Topic;
import dev.engram.config.EngramConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes input items at a fixed rate on a thread of its own: item {@code i} is user
 * {@code chaos/u-i} — a candidate (consolidator and retriever soaks; a one-hot embedding, so no two
 * items are similar) or a one-message conversation (extractor soak).
 */
final class ChaosFeeder {

    /** The one-hot embedding's size: the default {@code embedding.dimensions}. */
    private static final int DIMENSIONS = 384;
    private final KafkaProducer<String, byte[]> producer;
    private final Chaos.App app;
    private final int rate;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean();
    private Thread thread;

    ChaosFeeder(final String bootstrap, final Chaos.App app, final int rate) {
        this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(),
            new ByteArraySerializer());
        this.app = app;
        this.rate = rate;
    }

    static String user(final long i) {
        return "u-" + i;
    }

    void start() {
        running.set(true);
        thread = new Thread(this::loop, "chaos-feeder");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        final Serializer<MemoryCandidate> candidates = Topic.MEMORY_CANDIDATES.valueSerializer(EngramConfig.plain());
        final Serializer<ConversationCompleted> conversations = Topic.CONVERSATIONS_COMPLETED.valueSerializer(EngramConfig.plain());
        final long start = System.nanoTime();
        while (running.get()) {
            final long due = (System.nanoTime() - start) * rate / 1_000_000_000L;
            while (sent.get() < due && running.get()) {
                final long i = sent.get();
                final Instant at = Instant.parse("2026-01-01T00:00:00Z").plusSeconds(i);
                final byte[] value = app == Chaos.App.EXTRACTOR
                    ? conversations.serialize(Topic.CONVERSATIONS_COMPLETED.name(), conversation(i, at))
                    : candidates.serialize(Topic.MEMORY_CANDIDATES.name(), candidate(i, at));
                producer.send(new ProducerRecord<>(app == Chaos.App.EXTRACTOR ? Topic.CONVERSATIONS_COMPLETED.name()
                    : Topic.MEMORY_CANDIDATES.name(), null, at.toEpochMilli(), Chaos.TENANT + "/" + user(i), value));
                sent.incrementAndGet();
            }
            producer.flush();
            Chaos.sleep(0.05);
        }
        producer.flush();
    }

    void stop() {
        if (running.getAndSet(false) && thread != null) {
            try {
                thread.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            producer.close(Duration.ofSeconds(10));
        }
    }

    long sent() {
        return sent.get();
    }

    /** A candidate of its own user, episodic, with a one-hot embedding (dimension i mod 384). */
    static MemoryCandidate candidate(final long i, final Instant at) {
        final String user = user(i);
        final String content = "Chaos item " + i + " about the user's day";
        final List<Float> embedding = new ArrayList<>(DIMENSIONS);
        for (int d = 0; d < DIMENSIONS; d++) {
            embedding.add(d == i % DIMENSIONS ? 1f : 0f);
        }
        return MemoryCandidate.newBuilder()
            .setCandidateId(MemoryIds.candidateId(Chaos.TENANT, user, "c-" + i, content))
            .setTenantId(Chaos.TENANT).setUserId(user).setConversationId("c-" + i).setType(MemoryType.EPISODIC)
            .setCategory(null).setKey(null).setValue(null).setDisplayName(null).setContent(content)
            .setNegated(false).setImportance(0.6).setConfidence(0.9).setSource(MemorySource.EXPLICIT)
            .setSourceMessageIndexes(List.of(0)).setEventTime(at).setEmbedding(embedding)
            .setEmbeddingModel("one-hot-chaos").setExtractor("chaos").build();
    }

    /** A one-message conversation the rule-based extractor turns into one preference memory. */
    static ConversationCompleted conversation(final long i, final Instant at) {
        return ConversationCompleted.newBuilder().setTenantId(Chaos.TENANT).setUserId(user(i)).setConversationId("c-" + i)
            .setMessages(List.of(Message.newBuilder().setIndex(0).setRole("user")
                .setContent("I prefer tea number " + i + " in the morning.").setTimestamp(at).build()))
            .setCompletedAt(at).setMetadata(Map.of()).build();
    }
}
