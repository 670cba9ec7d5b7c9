package dev.engram.ops;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.ActiveModelEmbedder;
import dev.engram.port.Embedder;
import dev.engram.scoring.Vectors;
import dev.engram.stack.MemoryState;
import dev.engram.stack.PendingExtractions;
import dev.engram.stack.TopicScan;
import dev.engram.topology.DeadLetters;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import dev.engram.topics.AppIds;

/**
 * What {@link Reembed} does after it has named the new model active, so that the switch ends with every memory
 * and every candidate on the new model (see docs/ARCHITECTURE.md, "Changing the embedding model"):
 *
 * <ol>
 *   <li>waits until the extractor has consumed every conversation published up to a few seconds after the
 *       switch (its {@code ActiveModelEmbedder} switches within ~2 s) and committed their candidates
 *       ({@link #awaitExtracted}), then until the consolidator has applied
 *       every command and candidate written up to then ({@link #awaitApplied}: committed offsets of the apps'
 *       consumer groups at or past the end offsets taken at that moment);</li>
 *   <li>reads the memory state again and re-embeds the memories still of another model (created from candidates
 *       the extractor embedded before it switched), as REEMBED commands, and waits again; at most
 *       {@value #ROUNDS} rounds;</li>
 *   <li>re-drives the candidates the consolidator dead-lettered for an embedding model mismatch
 *       ({@link DeadLetters#REASON_MODEL_MISMATCH}): each is embedded again by the new model and published to
 *       {@code memory-candidates} again, once — a watermark per dead-letter partition (key
 *       {@code redriven-<partition>} on {@code memory-embeddings-active}) keeps a later run from re-driving it
 *       twice. A dead letter that no longer decodes (its user was erased: the data key is gone) is skipped and
 *       counted.</li>
 * </ol>
 * Nothing waits for an app that is not running (no members in its group): the report says the catch-up was not
 * done, and running {@code reembed --model M} again later completes it (memories already of M are not embedded
 * again).
 */
final class ReembedCatchUp {

    /** Catch-up rounds at most. */
    static final int ROUNDS = 3;
    /** Time given to the apps' followers to switch before the extractor's input is snapshotted. */
    static final Duration FOLLOWER_GRACE = Duration.ofSeconds(4);
    private static final String WATERMARK_PREFIX = "redriven-";

    /**
     * What the catch-up did.
     *
     * @param done whether the apps were running and every wait ended in time
     * @param commands REEMBED commands of memories created during the switch
     * @param redriven dead-lettered candidates published again with the new model's vector
     * @param undecodable dead letters skipped because they no longer decode (erased users)
     */
    record Result(boolean done, long commands, long redriven, long undecodable) {
    }

    private final Map<String, Object> client;
    private final EngramConfig config;
    private final PrintStream out;
    private final Duration timeout;

    ReembedCatchUp(final Map<String, Object> client, final EngramConfig config, final PrintStream out,
                   final Duration timeout) {
        this.client = client;
        this.config = config;
        this.out = out;
        this.timeout = timeout;
    }

    /**
     * @param embedder the new model, routed by script ({@link Reembed#routed}): each memory's target model is
     *     {@code embedder.modelFor(content)}
     * @param producer the tool's producer
     * @return what was done
     */
    Result run(final Embedder embedder, final KafkaProducer<String, byte[]> producer)
        throws InterruptedException, ExecutionException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        Thread.sleep(FOLLOWER_GRACE.toMillis());
        if (!awaitApplied(AppIds.EXTRACTOR, Set.of(Topic.CONVERSATIONS_COMPLETED.name()), deadline)
            || !awaitExtracted(deadline)
            || !awaitApplied(AppIds.CONSOLIDATOR, Set.of(Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_COMMANDS.name()), deadline)) {
            return new Result(false, 0, 0, 0);
        }
        long commands = 0;
        for (int round = 1; round <= ROUNDS; round++) {
            final List<Memory> left = leftovers(embedder);
            if (left.isEmpty()) {
                break;
            }
            out.printf(Locale.ROOT, "  catch-up round %d: %,d memories still of another model%n", round, left.size());
            commands += Reembed.publishCommands(producer, ReembedRouting.embedded(embedder, left), config);
            if (!awaitApplied(AppIds.CONSOLIDATOR, Set.of(Topic.MEMORY_COMMANDS.name()), deadline)) {
                return new Result(false, commands, 0, 0);
            }
        }
        final long[] redrive = redrive(embedder, producer);
        final boolean applied = redrive[0] == 0
            || awaitApplied(AppIds.CONSOLIDATOR, Set.of(Topic.MEMORY_CANDIDATES.name()), deadline);
        return new Result(applied && leftovers(embedder).isEmpty(), commands, redrive[0], redrive[1]);
    }

    /**
     * @return the memories (not deleted) whose vector is not of the model their content is routed to, but the
     *     observations and topic lists, which the consolidator's regrouping moves with their statements
     *     ({@link Reembed#toEmbed})
     */
    List<Memory> leftovers(final Embedder embedder) {
        return Reembed.toEmbed(MemoryState.read(client, null, Duration.ofMinutes(10),
                Topic.MEMORY_UPDATED.valueDeserializer(config)).memories().values()).stream()
            .filter(m -> !m.getEmbedding().isEmpty() && !embedder.modelFor(m.getContent()).equals(m.getEmbeddingModel()))
            .toList();
    }

    /**
     * Waits until the group has committed, on every partition of the topics, at least the end offset each has now.
     *
     * @return false if the group has no members (the app is not running) or the deadline passed first
     */
    boolean awaitApplied(final String group, final Set<String> topics, final long deadline)
        throws InterruptedException {
        try (Admin admin = Admin.create(client)) {
            final GroupOffsets offsets = new GroupOffsets(admin);
            if (!offsets.hasMembers(group)) {
                out.println("  " + group + " is not running: not waiting for it");
                return false;
            }
            final Map<TopicPartition, Long> ends = offsets.ends(topics);
            for (int polls = 1; ; polls++) {
                final Map<TopicPartition, Long> committed = offsets.committed(group);
                if (ends.entrySet().stream().allMatch(e -> committed.getOrDefault(e.getKey(), 0L) >= e.getValue())) {
                    return true;
                }
                if (System.nanoTime() > deadline) {
                    out.println("  " + group + " has not processed its input within the time allowed");
                    return false;
                }
                // a stopped Streams app stays a member until its session times out: look again every 5 s
                if (polls % 20 == 0 && !offsets.hasMembers(group)) {
                    out.println("  " + group + " stopped: not waiting for it");
                    return false;
                }
                Thread.sleep(250);
            }
        }
    }

    /**
     * Waits, after the extractor consumed {@code conversations-completed}, until the candidates of what it consumed are
     * committed, so that the consolidator's targets taken next include them: {@link PendingExtractions#settled} (its
     * pending gauge, which drops before the candidates are committed, is another process's), then the conversations it
     * re-routed to their users' partitions consumed ({@link #awaitApplied} on its repartition topic, whose end offsets
     * are complete once no transaction is open there), then settled again for those.
     *
     * @return false if the extractor stopped or the deadline passed first
     */
    private boolean awaitExtracted(final long deadline) throws InterruptedException {
        try (PendingExtractions pending = new PendingExtractions(client)) {
            return awaitSettled(pending, deadline)
                && awaitApplied(AppIds.EXTRACTOR, Set.of(dev.engram.topology.ExtractionTopology.REPARTITION_TOPIC), deadline)
                && awaitSettled(pending, deadline);
        }
    }

    private boolean awaitSettled(final PendingExtractions pending, final long deadline) throws InterruptedException {
        while (true) {
            try {
                if (pending.settled(Duration.ofSeconds(30))) {
                    return true;
                }
            } catch (IllegalStateException | org.apache.kafka.common.KafkaException notReadYet) {
                // the changelog not read to its end in 30 s: ask again until the deadline
            }
            if (System.nanoTime() > deadline) {
                out.println("  " + AppIds.EXTRACTOR + " has not committed the candidates of what it consumed within the "
                    + "time allowed");
                return false;
            }
            Thread.sleep(250);
        }
    }

    /** @return {re-driven, undecodable} */
    private long[] redrive(final Embedder embedder, final KafkaProducer<String, byte[]> producer)
        throws InterruptedException, ExecutionException {
        final String dlq = Topic.deadLetters(AppIds.CONSOLIDATOR).name();
        final Map<TopicPartition, Long> from = watermarks(dlq);
        final Map<TopicPartition, Long> next = new HashMap<>(from);
        final Deserializer<MemoryCandidate> decoder = Topic.MEMORY_CANDIDATES.valueDeserializer(config);
        final List<ProducerRecord<String, MemoryCandidate>> again = new ArrayList<>();
        final long[] undecodable = {0};
        TopicScan.toEnd(client, dlq, from, Duration.ofMinutes(10), r -> {
            next.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
            if (!Topic.MEMORY_CANDIDATES.name().equals(header(r.headers().lastHeader(DeadLetters.HEADER_SOURCE_TOPIC)))
                || !header(r.headers().lastHeader(DeadLetters.HEADER_REASON)).startsWith(DeadLetters.REASON_MODEL_MISMATCH)
                || r.value() == null) {
                return;
            }
            final MemoryCandidate candidate;
            try {
                candidate = decoder.deserialize(Topic.MEMORY_CANDIDATES.name(), r.value());
            } catch (RuntimeException e) {
                undecodable[0]++; // an erased user's record: its data key is gone
                return;
            }
            again.add(new ProducerRecord<>(Topic.MEMORY_CANDIDATES.name(), null, r.timestamp(),
                new String(r.key(), StandardCharsets.UTF_8), candidate));
        });
        final List<String> texts = again.stream().map(p -> p.value().getContent()).toList();
        final List<float[]> vectors = texts.isEmpty() ? List.of() : embedder.embedAll(texts);
        final Serializer<MemoryCandidate> encoder = Topic.MEMORY_CANDIDATES.valueSerializer(config);
        final List<Future<?>> sent = new ArrayList<>();
        for (int i = 0; i < again.size(); i++) {
            final ProducerRecord<String, MemoryCandidate> p = again.get(i);
            final MemoryCandidate redriven = MemoryCandidate.newBuilder(p.value())
                .setEmbedding(Vectors.toList(vectors.get(i))).setEmbeddingModel(embedder.modelFor(p.value().getContent())).build();
            sent.add(producer.send(new ProducerRecord<>(p.topic(), null, p.timestamp(), p.key(),
                encoder.serialize(p.topic(), redriven))));
        }
        producer.flush();
        for (final Future<?> f : sent) {
            Reembed.written(f, Topic.MEMORY_CANDIDATES.name());
        }
        for (final Map.Entry<TopicPartition, Long> mark : next.entrySet()) {
            Reembed.written(producer.send(new ProducerRecord<>(Reembed.ACTIVE_TOPIC, WATERMARK_PREFIX + mark.getKey().partition(),
                Long.toString(mark.getValue()).getBytes(StandardCharsets.UTF_8))), Reembed.ACTIVE_TOPIC);
        }
        if (!again.isEmpty() || undecodable[0] > 0) {
            out.printf(Locale.ROOT, "  re-drove %,d dead-lettered candidates with %s (%,d no longer decode)%n",
                again.size(), embedder.models(), undecodable[0]);
        }
        return new long[] {again.size(), undecodable[0]};
    }

    /** @return the dead-letter offsets already re-driven, per partition */
    private Map<TopicPartition, Long> watermarks(final String dlq) {
        final Map<TopicPartition, Long> out = new HashMap<>();
        TopicScan.toEnd(client, Reembed.ACTIVE_TOPIC, null, Duration.ofSeconds(30), r -> {
            final String key = r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8);
            if (key.startsWith(WATERMARK_PREFIX) && r.value() != null) {
                out.put(new TopicPartition(dlq, Integer.parseInt(key.substring(WATERMARK_PREFIX.length()))),
                    Long.parseLong(new String(r.value(), StandardCharsets.UTF_8)));
            }
        });
        return out;
    }

    private static String header(final Header header) {
        return header == null ? "" : new String(header.value(), StandardCharsets.UTF_8);
    }
}
