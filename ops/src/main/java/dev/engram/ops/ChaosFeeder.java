package dev.engram.ops;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes input items at a fixed rate on a thread of its own: item {@code i} is user
 * {@code chaos/u-i} — a candidate (consolidator and retriever soaks; a one-hot embedding, so no two
 * items are similar) or a one-message conversation (extractor and scale-out soaks).
 *
 * <p><b>Every send is checked.</b> After each flush every send's result is read: a send that failed (a broker
 * killed with the batch in flight, a leader moving beyond {@code delivery.timeout.ms}) is counted in
 * {@link #failedSends()} and its item sent again, the same key and value. Sending again is idempotent for the
 * pipeline: a candidate's id is derived from its content, so a second copy of a candidate that was in fact
 * written is a redelivery the consolidator ignores, and a conversation's memories get the same candidate ids. An
 * item is <em>published</em> once one of its sends is acknowledged ({@code acks=all}); {@link #stop()} keeps
 * re-sending the unacknowledged ones for up to {@link #DRAIN_TIMEOUT}, and what is left then is {@link #unsent()}:
 * counted apart, never as lost. So "0 lost" is about items the cluster acknowledged.
 */
final class ChaosFeeder {

    /** The one-hot embedding's size: the default {@code embedding.dimensions}. */
    private static final int DIMENSIONS = 384;
    /** How long {@link #stop()} keeps re-sending items whose sends failed. */
    static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(120);
    private final String bootstrap;
    private final Duration deliveryTimeout;
    private KafkaProducer<String, byte[]> producer;
    private final Chaos.App app;
    private final int rate;
    private final boolean conversations;
    /** Items handed out: 0 … issued-1, each published, waiting for a retry, or unsent at the end. */
    private final AtomicLong issued = new AtomicLong();
    private final AtomicLong failedSends = new AtomicLong();
    /** Items none of whose sends has been acknowledged yet. */
    private final java.util.Set<Long> unacknowledged = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Items whose last send failed, sent again before new ones. */
    private final java.util.Deque<Long> retries = new java.util.concurrent.ConcurrentLinkedDeque<>();
    private final AtomicBoolean running = new AtomicBoolean();
    private Thread thread;

    ChaosFeeder(final String bootstrap, final Chaos.App app, final int rate) {
        this(bootstrap, app, rate, app == Chaos.App.EXTRACTOR);
    }

    /**
     * @param bootstrap the cluster
     * @param app the app under test (names the soak in the thread)
     * @param rate items per second
     * @param conversations true: one-message conversations on conversations-completed; false: candidates on
     *     memory-candidates
     */
    ChaosFeeder(final String bootstrap, final Chaos.App app, final int rate, final boolean conversations) {
        this(bootstrap, app, rate, conversations, Duration.ofSeconds(30));
    }

    /**
     * @param bootstrap the cluster
     * @param app the app under test (names the soak in the thread)
     * @param rate items per second
     * @param conversations conversations (true) or candidates
     * @param deliveryTimeout the producer's {@code delivery.timeout.ms}: how long it retries one send by itself
     *     before the send fails (and the feeder sends the item again)
     */
    ChaosFeeder(final String bootstrap, final Chaos.App app, final int rate, final boolean conversations,
                final Duration deliveryTimeout) {
        this.bootstrap = bootstrap;
        this.deliveryTimeout = deliveryTimeout;
        this.producer = producer();
        this.app = app;
        this.rate = rate;
        this.conversations = conversations;
    }

    private KafkaProducer<String, byte[]> producer() {
        final int delivery = (int) deliveryTimeout.toMillis();
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
            ProducerConfig.LINGER_MS_CONFIG, 5,
            // one request in flight: with more, a broker that has just restarted can fail a batch for good
            // (KAFKA-15591, OpsTestSupport#sendCandidates); such a send would be retried, but counted as failed
            ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
            // a send that fails is retried by the feeder (counted); within the producer, a leader moving after a
            // broker kill is retried for up to the delivery timeout (30 s)
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, delivery,
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(10_000, delivery - 5),
            // a send waits at most this long for metadata (a cluster unreachable): then it fails and is retried
            ProducerConfig.MAX_BLOCK_MS_CONFIG, Math.min(10_000, delivery)), new StringSerializer(), new ByteArraySerializer());
    }

    static String user(final long i) {
        return "u-" + i;
    }

    void start() {
        running.set(true);
        thread = new Thread(this::loop, "chaos-feeder-" + app.command());
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        final long start = System.nanoTime();
        while (running.get()) {
            final long due = (System.nanoTime() - start) * rate / 1_000_000_000L;
            final List<Long> batch = new ArrayList<>();
            for (Long again = retries.poll(); again != null; again = retries.poll()) {
                batch.add(again);
            }
            while (issued.get() < due && batch.size() < Math.max(10, rate)) {
                final long i = issued.getAndIncrement();
                unacknowledged.add(i);
                batch.add(i);
            }
            send(batch);
            Chaos.sleep(0.05);
        }
    }

    /** Sends the items, flushes, and reads every send's result: acknowledged, or failed and queued again. */
    private void send(final List<Long> items) {
        if (items.isEmpty()) {
            return;
        }
        final Serializer<MemoryCandidate> candidates = Topic.MEMORY_CANDIDATES.valueSerializer(EngramConfig.plain());
        final Serializer<ConversationCompleted> completed = Topic.CONVERSATIONS_COMPLETED.valueSerializer(EngramConfig.plain());
        final String topic = conversations ? Topic.CONVERSATIONS_COMPLETED.name() : Topic.MEMORY_CANDIDATES.name();
        final Map<Long, Future<RecordMetadata>> sends = new java.util.LinkedHashMap<>();
        boolean broken = false;
        for (int n = 0; n < items.size(); n++) {
            final long i = items.get(n);
            final Instant at = Instant.parse("2026-01-01T00:00:00Z").plusSeconds(i);
            final byte[] value = conversations ? completed.serialize(topic, conversation(i, at))
                : candidates.serialize(topic, candidate(i, at));
            Future<RecordMetadata> send;
            try {
                send = producer.send(new ProducerRecord<>(topic, null, at.toEpochMilli(), Chaos.TENANT + "/" + user(i), value));
            } catch (KafkaException e) {
                broken |= !(e instanceof org.apache.kafka.common.errors.RetriableException);
                send = null;
            }
            sends.put(i, send);
            if (send == null || send.isDone() && failedNow(send)) {
                // refused before it was sent (no metadata within max.block.ms, a producer in error): the rest of
                // the batch would wait as long each, so it waits for the next round, not attempted (not counted)
                retries.addAll(items.subList(n + 1, items.size()));
                break;
            }
        }
        try {
            producer.flush();
        } catch (KafkaException e) {
            broken = true;
        }
        for (final Map.Entry<Long, Future<RecordMetadata>> send : sends.entrySet()) {
            if (send.getValue() == null) {
                failed(send.getKey());
                continue;
            }
            try {
                send.getValue().get(1, TimeUnit.SECONDS); // done after the flush
                unacknowledged.remove(send.getKey());
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                failed(send.getKey());
                broken |= e.getCause() != null && !(e.getCause() instanceof org.apache.kafka.common.errors.RetriableException);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed(send.getKey());
            }
        }
        if (broken) {
            // a producer left in an error state fails every later send: start a new one (a new producer id)
            producer.close(Duration.ZERO);
            producer = producer();
        }
    }

    private static boolean failedNow(final Future<RecordMetadata> send) {
        try {
            send.get(0, TimeUnit.MILLISECONDS);
            return false;
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private void failed(final long item) {
        failedSends.incrementAndGet();
        retries.add(item);
    }

    /** Stops publishing new items, re-sends the failed ones for up to {@link #DRAIN_TIMEOUT}, and closes. */
    void stop() {
        if (running.getAndSet(false) && thread != null) {
            try {
                thread.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            final long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
            while (!retries.isEmpty() && System.nanoTime() < deadline) {
                final List<Long> batch = new ArrayList<>(retries);
                retries.clear();
                send(batch);
            }
            producer.close(Duration.ofSeconds(10));
        }
    }

    /** @return items handed out, 0 … n-1 (published or, see {@link #published(long)}, not) */
    long sent() {
        return issued.get();
    }

    /** @return whether one of item i's sends was acknowledged */
    boolean published(final long i) {
        return i < issued.get() && !unacknowledged.contains(i);
    }

    /** @return sends that failed (each retried) */
    long failedSends() {
        return failedSends.get();
    }

    /** @return items none of whose sends was acknowledged */
    long unsent() {
        return unacknowledged.size();
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
