package dev.engram.ops;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.engram.avro.CommandKind;
import dev.engram.avro.MemoryCommand;
import dev.engram.config.EngramConfig;
import dev.engram.consolidation.Observations;
import dev.engram.core.MemoryIds;
import dev.engram.embedder.ActiveModelEmbedder;
import dev.engram.kafka.KafkaOperationFailed;
import dev.engram.stack.MemoryState;
import dev.engram.stack.TopicScan;
import dev.engram.avro.Memory;
import dev.engram.port.Embedder;
import dev.engram.topics.Topic;
import dev.engram.config.EngramConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Re-embeds every memory under another embedding model, and switches the pipeline to it.
 *
 * <ol>
 *   <li>reads the memory state ({@code memory-updated}, read_committed, folded per user; DELETED memories
 *       left out), and leaves out the observations and topic lists ({@link Observations#rebuiltByRegrouping}):
 *       their vector is the centroid of their statements' vectors, so the consolidator writes them again, on the
 *       new model, when it regroups the user after the statements' commands; a command of theirs would find a topic
 *       list gone (its id names its model) and would give an observation its text's vector instead of the
 *       centroid;</li>
 *   <li>embeds each memory's content with the new model in batches of {@value #BATCH}, by the apps' per-script
 *       rule ({@link #routed}): with {@code embedding.model.han} set, a mostly-Han memory is kept on (or moved to)
 *       the Han model, as a memory created after the switch would be; the report counts the memories per model;</li>
 *   <li>writes each memory, with the new {@code embedding} and {@code embeddingModel}, to its own compacted
 *       topic {@code memory-embeddings-<model>} (key {@code tenant/user\0memoryId}, value Memory in
 *       Avro single-object encoding), idempotently (a re-run overwrites the same keys): the new model's vectors
 *       side by side, before anything changes;</li>
 *   <li>when every record is acknowledged and their count equals the memories read, switches: one
 *       {@code REEMBED} command per memory of another model on {@code memory-commands} (the new vector, its model and the content
 *       it embeds), which the consolidator applies like any other command (its store and vector index, a
 *       {@code REEMBEDDED} event on {@code memory-updated}), so the retriever's read model and kept index, the
 *       consolidator's dedup and the lifecycle pass use the new vectors; then the model name is written under
 *       key {@value #ACTIVE_KEY} to the compacted {@code memory-embeddings-active};</li>
 *   <li>keeps the previous model's topic until {@link #drop} is called for it (refused while active).</li>
 * </ol>
 * Each command's {@code issuedAt} (and record timestamp) is the memory's own latest time (updated, confirmed or
 * accessed), not the wall clock, so the switch never moves the consolidator's event-time clock (which drives
 * the lifecycle pass) forward. A memory corrected after it was read keeps its corrected vector (the command
 * carries the content it embedded; the consolidator skips it as stale). While the commands are applied a
 * user's memories carry two models; each is compared only with a query or candidate of its own model (the
 * retriever embeds the query per model, {@code OnDemandQueryModels}); the extractor's {@code embedding.model}
 * is switched to the new model afterwards (until then its candidates are dead-lettered with both model names).
 */
public final class Reembed {

    /** The compacted topic naming the active embedding model. */
    public static final String ACTIVE_TOPIC = Topic.MEMORY_EMBEDDINGS_ACTIVE.name();
    /** The key of the active model's record. */
    public static final String ACTIVE_KEY = ActiveModelEmbedder.KEY;
    private static final int BATCH = 64;

    /**
     * What a re-embedding did.
     *
     * @param model the new model
     * @param topic its side-by-side topic
     * @param memories memories read and re-embedded: every one but the observations and topic lists
     * @param written records acknowledged on the topic
     * @param dimensions the new vectors' size
     * @param switched whether the new model became active
     * @param commands REEMBED commands acknowledged on {@code memory-commands} (0 without the switch)
     * @param caughtUp whether the switch ended with every memory on the new model and the model-mismatch dead
     *     letters re-driven ({@link ReembedCatchUp}; false when an app was not running or did not catch up in time)
     * @param catchUpCommands REEMBED commands of memories created while the switch was going on
     * @param redriven dead-lettered candidates published again with the new model's vector
     * @param seconds wall time
     * @param perModel memories per embedding model after the re-embedding, by model name (with the per-script
     *     rule, mostly-Han memories stay on {@code embedding.model.han})
     * @param derived observations and topic lists read and left to the consolidator's regrouping (not in
     *     {@code memories})
     */
    public record Report(String model, String topic, long memories, long written, int dimensions, boolean switched,
                         long commands, boolean caughtUp, long catchUpCommands, long redriven, double seconds,
                         Map<String, Long> perModel, long derived) {
    }

    /** How long the catch-up waits for the apps at most unless told otherwise. */
    public static final Duration DEFAULT_APPLY_TIMEOUT = Duration.ofMinutes(10);

    private Reembed() {
    }

    /**
     * @param model a model name
     * @return its topic, {@code memory-embeddings-<model>} with every character outside {@code [a-z0-9-]} as {@code -}
     */
    public static String topicFor(final String model) {
        return Topic.memoryEmbeddings(model).name();
    }

    /**
     * Re-embeds every memory; see the class comment.
     *
     * @param client admin/consumer/producer properties (bootstrap.servers at least)
     * @param provider the new model
     * @param partitions partitions of the new topic if it has to be created
     * @param switchWhenComplete write the active-model record once complete
     * @param out progress
     * @return the report
     */
    public static Report run(final Map<String, Object> client, final EmbedderProvider provider, final int partitions,
                             final boolean switchWhenComplete, final PrintStream out) {
        return run(client, provider, partitions, switchWhenComplete, out, EngramConfig.plain());
    }

    /**
     * As {@link #run(Map, EmbedderProvider, int, boolean, PrintStream)}, with the deployment's config: with
     * {@code crypto.enabled} memory-updated is opened and the side-by-side records are sealed with each
     * user's data key, like every other personal record.
     *
     * @param client admin/consumer/producer properties (bootstrap.servers at least)
     * @param provider the new model
     * @param partitions partitions of the new topic if it has to be created
     * @param switchWhenComplete write the active-model record once complete
     * @param out progress
     * @param config the deployment's config ({@code crypto.*})
     * @return the report
     */
    public static Report run(final Map<String, Object> client, final EmbedderProvider provider, final int partitions,
                             final boolean switchWhenComplete, final PrintStream out,
                             final EngramConfig config) {
        return run(client, provider, partitions, switchWhenComplete, out, config, DEFAULT_APPLY_TIMEOUT);
    }

    /**
     * As {@link #run(Map, EmbedderProvider, int, boolean, PrintStream, EngramConfig)}, with a bound on the
     * catch-up's waits for the apps.
     *
     * @param client admin/consumer/producer properties (bootstrap.servers at least)
     * @param provider the new model
     * @param partitions partitions of the new topic if it has to be created
     * @param switchWhenComplete switch once complete
     * @param out progress
     * @param config the deployment's config ({@code crypto.*}, {@code vector.index}, {@code qdrant.*})
     * @param applyTimeout how long the catch-up waits for the extractor and the consolidator at most
     * @return the report
     */
    public static Report run(final Map<String, Object> client, final EmbedderProvider provider, final int partitions,
                             final boolean switchWhenComplete, final PrintStream out,
                             final EngramConfig config, final Duration applyTimeout) {
        final long started = System.nanoTime();
        final String topic = topicFor(provider.model());
        try (Admin admin = Admin.create(client)) {
            create(admin, new NewTopic(topic, Optional.of(partitions), Optional.empty()));
            create(admin, new NewTopic(ACTIVE_TOPIC, Optional.of(1), Optional.empty()));
        }
        final MemoryState state = MemoryState.read(client, null, Duration.ofMinutes(10),
            Topic.MEMORY_UPDATED.valueDeserializer(config));
        final List<Memory> memories = toEmbed(state.memories().values());
        final long derived = state.memories().values().stream().mapToLong(List::size).sum() - memories.size();
        out.printf("Re-embedding %,d memories with %s into %s (%,d observations and topic lists follow their "
            + "statements)…%n", memories.size(), provider.model(), topic, derived);
        final Serializer<Memory> encoder = Topic.memoryEmbeddings(provider.model()).valueSerializer(config);
        final AtomicLong acked = new AtomicLong();
        final AtomicReference<Exception> failure = new AtomicReference<>();
        final Embedder target = provider.create();
        final Embedder embedder = ReembedRouting.routed(target, config);
        final Map<String, Long> perModel = new java.util.TreeMap<>();
        final List<Memory> reembedded = new ArrayList<>(memories.size());
        final Map<String, Memory> memoriesById = new HashMap<>();
        memories.forEach(m -> memoriesById.put(m.getMemoryId(), m));
        int dimensions = 0;
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(producerProps(client),
            new StringSerializer(), new ByteArraySerializer())) {
            for (int from = 0; from < memories.size(); from += BATCH) {
                final List<Memory> batch = memories.subList(from, Math.min(memories.size(), from + BATCH));
                for (final Memory next : ReembedRouting.embedded(embedder, batch)) {
                    perModel.merge(next.getEmbeddingModel(), 1L, Long::sum);
                    if (provider.model().equals(next.getEmbeddingModel())) {
                        dimensions = next.getEmbedding().size();
                    }
                    if (!sameVector(next, memoriesById.get(next.getMemoryId()))) {
                        reembedded.add(next); // a memory already of that model keeps its vector: no command
                    }
                    final String key = next.getTenantId() + "/" + next.getUserId() + '\0' + next.getMemoryId();
                    producer.send(new ProducerRecord<>(topic, key, encoder.serialize(topic, next)), (md, e) -> {
                        if (e != null) {
                            failure.compareAndSet(null, e);
                        } else {
                            acked.incrementAndGet();
                        }
                    });
                }
                out.printf(Locale.ROOT, "  %,d / %,d embedded%n", Math.min(memories.size(), from + BATCH), memories.size());
            }
            producer.flush();
            if (failure.get() != null) {
                throw new KafkaOperationFailed("write", "topic " + topic, failure.get());
            }
            final boolean complete = acked.get() == memories.size();
            final boolean switched = switchWhenComplete && complete;
            long commands = 0;
            ReembedCatchUp.Result caughtUp = new ReembedCatchUp.Result(false, 0, 0, 0);
            if (switched) {
                commands = publishCommands(producer, reembedded, config);
                written(producer.send(new ProducerRecord<>(ACTIVE_TOPIC, ACTIVE_KEY,
                    provider.model().getBytes(StandardCharsets.UTF_8))), ACTIVE_TOPIC);
                out.printf("Named %s active; catching up (memories created meanwhile, dead-lettered candidates)…%n",
                    provider.model());
                caughtUp = new ReembedCatchUp(client, config, out, applyTimeout).run(embedder, producer);
                QdrantAlias.switchTo(config, provider.model(), out);
            }
            final Report report = new Report(provider.model(), topic, memories.size(), acked.get(), dimensions, switched,
                commands, caughtUp.done(), caughtUp.commands(), caughtUp.redriven(), (System.nanoTime() - started) / 1e9,
                Map.copyOf(perModel), derived);
            out.printf(Locale.ROOT, "Re-embedded %,d of %,d memories (%d dimensions) into %s in %.1f s; per model: %s; %s%n",
                report.written(), report.memories(), dimensions, topic, report.seconds(), perModel,
                switched ? "active model is now " + provider.model() + " (" + commands + " REEMBED commands on "
                    + Topic.MEMORY_COMMANDS.name() + (report.caughtUp() ? "; caught up: " + report.catchUpCommands()
                    + " more commands, " + report.redriven() + " candidates re-driven)"
                    : "; NOT caught up: run reembed --model " + provider.model() + " again once the extractor and the "
                    + "consolidator run)") : "active model unchanged");
            return report;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Cannot switch the active model", e.getCause());
        } finally {
            target.close(); // a no-op for the built-in models (and the Han model): JVM-wide shared instances
        }
    }

    /**
     * @param byUser memories, per user
     * @return those the tool embeds: all but the ones the consolidator writes again from their statements
     *     ({@link Observations#rebuiltByRegrouping}), in order
     */
    static List<Memory> toEmbed(final java.util.Collection<List<Memory>> byUser) {
        final List<Memory> out = new ArrayList<>();
        byUser.forEach(memories -> memories.stream().filter(m -> !Observations.rebuiltByRegrouping(m)).forEach(out::add));
        return out;
    }

    /**
     * Publishes one REEMBED command per memory (see the class comment) and waits for every acknowledgement.
     *
     * @return the commands acknowledged
     * @throws KafkaOperationFailed if a send failed ("not authorized to write topic memory-commands" when denied)
     * @throws InterruptedException if interrupted while waiting
     */
    static long publishCommands(final org.apache.kafka.clients.producer.Producer<String, byte[]> producer,
                                final List<Memory> reembedded, final EngramConfig config) throws InterruptedException {
        final Serializer<MemoryCommand> commands = Topic.MEMORY_COMMANDS.valueSerializer(config);
        final List<java.util.concurrent.Future<?>> sent = new ArrayList<>(reembedded.size());
        for (final Memory m : reembedded) {
            final Instant at = latest(m.getUpdatedAt(), latest(m.getLastConfirmedAt(), m.getLastAccessedAt()));
            final String model = m.getEmbeddingModel();
            final MemoryCommand command = MemoryCommand.newBuilder()
                .setCommandId(MemoryIds.uuid("reembed", m.getTenantId(), m.getUserId(), m.getMemoryId(), model,
                    m.getContent()))
                .setTenantId(m.getTenantId()).setUserId(m.getUserId()).setKind(CommandKind.REEMBED)
                .setMemoryId(m.getMemoryId()).setContent(m.getContent()).setValue(null).setMemoryEnabled(null)
                .setActor("bin/engram reembed").setEmbedding(m.getEmbedding()).setEmbeddingModel(model)
                .setIssuedAt(at).build();
            sent.add(producer.send(new ProducerRecord<>(Topic.MEMORY_COMMANDS.name(), null, at.toEpochMilli(),
                m.getTenantId() + "/" + m.getUserId(), commands.serialize(Topic.MEMORY_COMMANDS.name(), command))));
        }
        producer.flush();
        for (final java.util.concurrent.Future<?> f : sent) {
            written(f, Topic.MEMORY_COMMANDS.name());
        }
        return sent.size();
    }

    /**
     * Waits for one send's acknowledgement.
     *
     * @throws KafkaOperationFailed naming the write and the topic (a denied write reads as one)
     * @throws InterruptedException if interrupted while waiting
     */
    static void written(final java.util.concurrent.Future<?> send, final String topic) throws InterruptedException {
        try {
            send.get();
        } catch (ExecutionException e) {
            throw new KafkaOperationFailed("write", "topic " + topic, e.getCause());
        }
    }

    private static boolean sameVector(final Memory next, final Memory before) {
        return before != null && next.getEmbeddingModel().equals(before.getEmbeddingModel())
            && next.getEmbedding().equals(before.getEmbedding());
    }

    private static Instant latest(final Instant a, final Instant b) {
        return a == null ? b : b == null || a.isAfter(b) ? a : b;
    }

    /**
     * @param client client properties
     * @return the active model, if one was switched to
     */
    public static Optional<String> active(final Map<String, Object> client) {
        try (KafkaConsumer<byte[], byte[]> consumer = TopicScan.consumer(client)) {
            if (consumer.listTopics(Duration.ofSeconds(30)).get(ACTIVE_TOPIC) == null) {
                return Optional.empty();
            }
        }
        final String[] model = {null};
        TopicScan.toEnd(client, ACTIVE_TOPIC, null, Duration.ofSeconds(30), r -> {
            if (r.value() != null && r.key() != null && ACTIVE_KEY.equals(new String(r.key(), StandardCharsets.UTF_8))) {
                model[0] = new String(r.value(), StandardCharsets.UTF_8);
            }
        });
        return Optional.ofNullable(model[0]);
    }

    /**
     * Deletes a model's side-by-side topic.
     *
     * @param client client properties
     * @param model the model to drop
     * @throws IllegalStateException if it is the active model
     */
    public static void drop(final Map<String, Object> client, final String model) {
        drop(client, model, EngramConfig.defaults(), System.out);
    }

    /**
     * Deletes a model's side-by-side topic and, with {@code vector.index=qdrant}, its Qdrant collection.
     *
     * @param client client properties
     * @param model the model to drop
     * @param config the deployment's config ({@code vector.index}, {@code qdrant.*})
     * @param out where the Qdrant outcome is printed
     * @throws IllegalStateException if it is the active model
     */
    public static void drop(final Map<String, Object> client, final String model, final EngramConfig config,
                            final PrintStream out) {
        if (active(client).filter(model::equals).isPresent()) {
            throw new IllegalStateException(model + " is the active embedding model: switch to another before dropping it");
        }
        try (Admin admin = Admin.create(client)) {
            GroupOffsets.get(admin.deleteTopics(Set.of(topicFor(model))).all(), "delete", "topic " + topicFor(model));
        }
        QdrantAlias.drop(config, model, out);
    }

    private static void create(final Admin admin, final NewTopic topic) {
        topic.configs(Map.of("cleanup.policy", "compact"));
        try {
            admin.createTopics(List.of(topic)).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new KafkaOperationFailed("create", "topic " + topic.name(), e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    private static Map<String, Object> producerProps(final Map<String, Object> client) {
        final Map<String, Object> props = new HashMap<>(client);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        return props;
    }
}
