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
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import dev.engram.testing.Waits;
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

    /**
     * Sends candidates {@code from} (inclusive) to {@code to} (exclusive), keyed by user, flushes, and checks
     * every send: a failed send is an {@link AssertionError} naming how many failed, their numbers and the
     * first error, never a silent gap that shows up later as a missing update.
     *
     * <p>One request in flight per connection ({@code max.in.flight.requests.per.connection=1}): sent to a
     * broker that has just restarted, an idempotent producer with several requests in flight can lose a
     * batch (KAFKA-15591: the first batch gets NOT_LEADER_OR_FOLLOWER while the partition is not loaded
     * yet, the next batch is appended because the broker has no state for the new producer id and so
     * accepts any first sequence, and every retry of the first batch then gets OUT_OF_ORDER_SEQUENCE_NUMBER
     * until {@code delivery.timeout.ms} expires it). {@code BrokerRestartIT} lost 9-99 of 300 candidates
     * that way at load 10-20, with the log repeating "incoming seq. number 0, current end 44".
     */
    static void sendCandidates(final String bootstrap, final int from, final int to) {
        final Serializer<MemoryCandidate> values = AvroSerdes.serde(MemoryCandidate.class).serializer();
        final java.util.concurrent.ConcurrentSkipListMap<Integer, String> failed = new java.util.concurrent.ConcurrentSkipListMap<>();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
            // a broker restarting under load may take minutes to lead its partitions again
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000, ProducerConfig.MAX_BLOCK_MS_CONFIG, 300_000,
            ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(), new ByteArraySerializer())) {
            for (int i = from; i < to; i++) {
                final MemoryCandidate c = candidate(i);
                final int number = i;
                producer.send(new ProducerRecord<>(Topic.MEMORY_CANDIDATES.name(), null, c.getEventTime().toEpochMilli(),
                    "t/" + c.getUserId(), values.serialize(Topic.MEMORY_CANDIDATES.name(), c)), (metadata, error) -> {
                        if (error != null) {
                            failed.put(number, error.toString());
                        }
                    });
            }
            producer.flush();
        }
        if (!failed.isEmpty()) {
            throw new AssertionError(failed.size() + " of " + (to - from) + " candidate sends failed, candidates "
                + firstOf(failed.keySet()) + "; first error: " + failed.firstEntry().getValue());
        }
    }

    /**
     * Asserts that the updates hold exactly one event per candidate {@code 0..count-1} (memory id = candidate
     * id) and nothing else, naming counts and candidate numbers (at most 20), never whole records.
     *
     * @param updates committed {@code memory-updated} events
     * @param count candidates sent
     * @param partitions partitions of {@code memory-candidates} (to say where the missing ones were)
     */
    static void assertExactlyOncePerCandidate(final List<MemoryUpdated> updates, final int count, final int partitions) {
        final Map<String, Integer> numberById = new java.util.HashMap<>();
        for (int i = 0; i < count; i++) {
            numberById.put(candidate(i).getCandidateId(), i);
        }
        final Map<String, Long> seen = updates.stream().collect(java.util.stream.Collectors.groupingBy(
            MemoryUpdated::getMemoryId, java.util.TreeMap::new, java.util.stream.Collectors.counting()));
        final java.util.TreeSet<Integer> missing = new java.util.TreeSet<>();
        numberById.forEach((id, n) -> {
            if (!seen.containsKey(id)) {
                missing.add(n);
            }
        });
        final java.util.TreeSet<Integer> duplicated = new java.util.TreeSet<>();
        final List<String> unexpected = new ArrayList<>();
        seen.forEach((id, times) -> {
            if (!numberById.containsKey(id)) {
                unexpected.add(id);
            } else if (times > 1) {
                duplicated.add(numberById.get(id));
            }
        });
        if (!missing.isEmpty() || !duplicated.isEmpty() || !unexpected.isEmpty()) {
            final Map<Integer, Long> byPartition = new java.util.TreeMap<>();
            missing.forEach(n -> byPartition.merge(org.apache.kafka.common.utils.Utils.toPositive(
                org.apache.kafka.common.utils.Utils.murmur2(("t/u-" + n).getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                % partitions, 1L, Long::sum));
            throw new AssertionError(updates.size() + " updates for " + count + " candidates: " + missing.size()
                + " missing (candidates " + firstOf(missing) + "; per partition " + byPartition + "), "
                + duplicated.size() + " duplicated (candidates " + firstOf(duplicated) + "), " + unexpected.size()
                + " unexpected ids " + firstOf(unexpected));
        }
    }

    /** @return at most the first 20 elements, then how many more */
    private static String firstOf(final java.util.Collection<?> items) {
        final List<String> shown = items.stream().limit(20).map(String::valueOf).toList();
        return shown + (items.size() > shown.size() ? " and " + (items.size() - shown.size()) + " more" : "");
    }

    /**
     * Waits until the group has consumed its input as it stood when the wait began: the read_committed end offset of
     * every partition of the topics, read once at the start, must be reached by the group's committed offset. A
     * partition with records and no committed offset is not consumed (a group that has not started, or has not
     * committed yet, is not "without lag"); records that arrive during the wait are not waited for (a stream still being
     * fed cannot hold the wait forever). Consumed is not forwarded: the extractor commits a conversation with its
     * pending store before its candidates are out ({@link #awaitExtracted}).
     *
     * @param bootstrap the cluster
     * @param groupId the app's group ({@code application.id})
     * @param topics its input topics
     * @param timeout bound of the wait (the end offsets are asked again until the cluster answers)
     * @throws AssertionError naming the partitions behind, with their committed and target offsets
     */
    public static void awaitNoLag(final String bootstrap, final String groupId, final Set<String> topics, final Duration timeout) {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            final GroupOffsets offsets = new GroupOffsets(admin);
            final long deadline = System.nanoTime() + timeout.toNanos();
            Map<TopicPartition, Long> targets = null;
            Map<TopicPartition, String> behind = Map.of();
            String failure = "the end offsets were never read";
            while (System.nanoTime() < deadline) {
                try {
                    if (targets == null) {
                        targets = offsets.ends(topics);
                    }
                    behind = behind(targets, offsets.committed(groupId));
                    if (behind.isEmpty()) {
                        return;
                    }
                    failure = null;
                } catch (IllegalStateException brokerNotBackYet) {
                    failure = brokerNotBackYet.getMessage();
                }
                poll();
            }
            throw new AssertionError(groupId + " has not consumed " + topics + " up to where it ended when the wait began, "
                + "after " + timeout + ": " + (failure != null ? failure : "partition=committed/target " + behind));
        }
    }

    /** @return each partition with records whose committed offset has not reached its target, as "committed/target" */
    static Map<TopicPartition, String> behind(final Map<TopicPartition, Long> targets, final Map<TopicPartition, Long> committed) {
        final Map<TopicPartition, String> out = new java.util.TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        targets.forEach((tp, target) -> {
            final Long at = committed.get(tp);
            if (target > 0 && (at == null || at < target)) {
                out.put(tp, (at == null ? "none" : at.toString()) + "/" + target);
            }
        });
        return out;
    }

    /**
     * Waits until the extractor's candidates for everything it consumed are committed on {@code memory-candidates}, so
     * that the next stage's {@link #awaitNoLag} (whose targets are the read_committed end offsets at its start) waits
     * for them. In order:
     * <ol>
     *   <li>{@code conversations-completed}, then the repartition topic that a conversation read from another
     *       partition than its user key's crosses, consumed as they stood ({@link #awaitNoLag});</li>
     *   <li>the extractor's pending count is 0 (a quick first look: the gauge drops when a conversation's candidates
     *       are handed to the producer, before they are even sent, let alone committed);</li>
     *   <li>the extractor's {@code extraction-pending-store}, read from its changelog with a read_committed consumer,
     *       holds no conversation. A conversation consumed before its candidates were forwarded is committed in that
     *       store with its input offset, and its tombstone is written in the transaction of its candidates: an empty
     *       committed store means every consumed conversation's candidates are committed. (A conversation forwarded
     *       before the commit of its input offset had its candidates in that same transaction.)</li>
     *   <li>then no open transaction on {@code memory-candidates}: the broker writes a transaction's markers partition
     *       by partition, so the tombstone may be readable a moment before the candidates are
     *       ({@code PendingExtractions#settled}, which the demo, the benchmarks and the rebuild share).</li>
     * </ol>
     * Waiting for "no open transaction on memory-candidates" after the count reached 0 was not enough: the candidates
     * may still sit in the producer's buffer (Kafka Streams' {@code linger.ms} 100 under exactly-once, sent at the next
     * commit), so nothing was open yet and the wait returned before they existed on the broker
     * ({@code KnowledgeUpdateRebuildIT}'s "no ACTIVE employer" under load).
     *
     * @param bootstrap the cluster
     * @param pendingConversations the extractor's {@code ExtractorApp#pendingConversations}
     * @param timeout bound of each wait
     * @throws AssertionError naming what was not reached
     */
    public static void awaitExtracted(final String bootstrap, final java.util.function.LongSupplier pendingConversations,
                                      final Duration timeout) {
        awaitNoLag(bootstrap, dev.engram.topics.AppIds.EXTRACTOR, Set.of(Topic.CONVERSATIONS_COMPLETED.name()), timeout);
        awaitNoLag(bootstrap, dev.engram.topics.AppIds.EXTRACTOR,
            Set.of(dev.engram.topology.ExtractionTopology.REPARTITION_TOPIC), timeout);
        Waits.until("the extractor's pending conversations forwarded", timeout, pendingConversations::getAsLong,
            pending -> pending == 0);
        try (dev.engram.stack.PendingExtractions committed = new dev.engram.stack.PendingExtractions(TopicScan.client(bootstrap))) {
            Waits.until("no conversation in the extractor's committed " + dev.engram.stack.PendingExtractions.CHANGELOG
                + " (its candidates committed), then no open transaction on memory-candidates", timeout,
                () -> committed.settled(timeout), settled -> settled);
        }
    }

    /**
     * Waits until the consolidator has consumed its inputs as they stood ({@link #awaitNoLag}) and its output on
     * {@code memory-updated} is readable: no record there beyond the last stable offsets. The group's offsets and its
     * output are committed in one transaction, but the broker writes the commit markers of the transaction's
     * partitions one by one (those of {@code __consumer_offsets} through the group coordinator, the others through the
     * log), so the offsets can be visible a moment before the output is; a read_committed reader that takes its end
     * offsets in that moment stops short of the output.
     *
     * @param bootstrap the cluster
     * @param inputs the consolidator's input topics to wait for
     * @param timeout bound of each wait
     * @throws AssertionError naming what was not reached
     */
    public static void awaitConsolidated(final String bootstrap, final Set<String> inputs, final Duration timeout) {
        awaitNoLag(bootstrap, dev.engram.topics.AppIds.CONSOLIDATOR, inputs, timeout);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            Waits.until("memory-updated without an open transaction (last stable offsets = high watermarks)", timeout,
                () -> openTransactionRecords(admin, Topic.MEMORY_UPDATED.name()), open -> open == 0);
        }
    }

    /** @return records of the topic beyond its last stable offsets (in transactions not committed or aborted yet) */
    private static long openTransactionRecords(final Admin admin, final String topic) throws Exception {
        final Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new java.util.HashMap<>();
        admin.describeTopics(Set.of(topic)).allTopicNames().get(30, java.util.concurrent.TimeUnit.SECONDS).get(topic)
            .partitions().forEach(p -> latest.put(new TopicPartition(topic, p.partition()),
                org.apache.kafka.clients.admin.OffsetSpec.latest()));
        long open = 0;
        final var stable = admin.listOffsets(latest, new org.apache.kafka.clients.admin.ListOffsetsOptions(
            org.apache.kafka.common.IsolationLevel.READ_COMMITTED)).all().get(30, java.util.concurrent.TimeUnit.SECONDS);
        final var high = admin.listOffsets(latest, new org.apache.kafka.clients.admin.ListOffsetsOptions(
            org.apache.kafka.common.IsolationLevel.READ_UNCOMMITTED)).all().get(30, java.util.concurrent.TimeUnit.SECONDS);
        for (final TopicPartition tp : latest.keySet()) {
            open += high.get(tp).offset() - stable.get(tp).offset();
        }
        return open;
    }

    /**
     * @return committed (read_committed) {@code memory-updated} events, read to the last stable offsets
     * @throws AssertionError naming how many were read when the end was not reached within 2 minutes (a partial
     *     read would otherwise show up as "missing" updates that were never lost)
     */
    static List<MemoryUpdated> committedUpdates(final String bootstrap) {
        final Deserializer<MemoryUpdated> decoder = AvroSerdes.serde(MemoryUpdated.class).deserializer();
        final List<MemoryUpdated> out = new ArrayList<>();
        final Duration timeout = Duration.ofMinutes(2);
        if (!TopicScan.toEnd(TopicScan.client(bootstrap), Topic.MEMORY_UPDATED.name(), null, timeout,
            r -> out.add(decoder.deserialize(r.topic(), r.headers(), r.value())))) {
            throw new AssertionError("memory-updated not read to its end within " + timeout + ": " + out.size()
                + " events read; the counts would be wrong");
        }
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
