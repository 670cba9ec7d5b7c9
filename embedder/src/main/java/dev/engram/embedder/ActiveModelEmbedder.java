package dev.engram.embedder;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.kafka.TopicFollower;
import dev.engram.port.Embedder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedder of the apps that embed (extractor, retriever): the deployment's {@link ScriptRoutedEmbedder} at
 * start, switched to another built-in model when {@code bin/engram reembed --model M} completes (it names M on
 * the compacted active-model topic, followed by a {@link TopicFollower}). After the switch every text
 * that is not mostly Han is embedded by M; mostly-Han text keeps {@code embedding.model.han} (a re-embedding to
 * the Han model itself routes every text to it). So new candidates carry M's vectors once the memories they are
 * compared with do, without restarting the apps or editing {@code embedding.model}.
 *
 * <p>Every call reads the model held at that instant; a caller that embeds a batch and then records the model
 * takes {@link #current()} once, so the two agree across a switch. An unknown model name on the topic (a model
 * an {@code EmbedderProvider} plug-in brought to {@code reembed}, not built in here) is logged and ignored:
 * the apps keep their model, and the consolidator dead-letters their candidates with both model names.
 * Thread-safe.
 */
public final class ActiveModelEmbedder implements Embedder {

    /** The key of the active model's record on the compacted active-model topic (value: the model's name, UTF-8). */
    public static final String KEY = "active";

    /** How long {@link #follow} waits for the active model at start. */
    static final long START_WAIT_MS = 10_000;
    private static final Logger LOG = LoggerFactory.getLogger(ActiveModelEmbedder.class);

    private final EngramConfig config;
    private final Function<OnnxModel, Embedder> models;
    private final AtomicReference<Embedder> held;
    private volatile TopicFollower follower;
    private volatile String topic = "the active-model topic";

    /**
     * @param config the deployment's {@code embedding.*} settings (the Han routing is kept across switches)
     * @param initial the embedder to start with ({@link ScriptRoutedEmbedder#fromConfig})
     */
    public ActiveModelEmbedder(final EngramConfig config, final Embedder initial) {
        this(config, initial, OnnxEmbedder::shared);
    }

    private ActiveModelEmbedder(final EngramConfig config, final Embedder initial,
                                final Function<OnnxModel, Embedder> models) {
        this.config = Objects.requireNonNull(config, "config");
        this.held = new AtomicReference<>(Objects.requireNonNull(initial, "initial"));
        this.models = models;
    }

    /**
     * @param config the deployment's config
     * @return the embedder of {@code embedding.model} (routed by script), switchable
     */
    public static ActiveModelEmbedder fromConfig(final EngramConfig config) {
        return new ActiveModelEmbedder(config, ScriptRoutedEmbedder.fromConfig(config));
    }

    /**
     * As {@link #fromConfig}, every model (the configured ones, and one switched to) loaded when it first embeds
     * ({@link ScriptRoutedEmbedder#loadingOnUse}): for an app that needs the active model's name and its routing of
     * texts, not its vectors (the consolidator).
     *
     * @param config the deployment's config
     * @return the embedder of {@code embedding.model} (routed by script), switchable, no model loaded by it yet
     */
    public static ActiveModelEmbedder loadingOnUse(final EngramConfig config) {
        return new ActiveModelEmbedder(config, ScriptRoutedEmbedder.loadingOnUse(config), OnnxModelOnUse::new);
    }

    /**
     * Starts following the active-model topic (a {@link TopicFollower}: the record under {@value #KEY} names the model, in
     * offset order; no group, from the beginning, so an app started after a switch starts with the switched model),
     * stopped by {@link #close()}, and waits up to {@value #START_WAIT_MS} ms for the model named there, so the app
     * starts with it (after that it switches when the record comes; the topic is created by the first
     * {@code reembed}, and a cluster that cannot be reached leaves the configured model).
     *
     * @param kafka the app's Kafka client settings
     * @param topic the compacted active-model topic ({@code Topic.MEMORY_EMBEDDINGS_ACTIVE} of the streams module)
     * @return this
     */
    public synchronized ActiveModelEmbedder follow(final java.util.Map<String, Object> kafka, final String topic) {
        if (follower == null) {
            this.topic = topic;
            follower = new TopicFollower(kafka, topic, "engram-active-model-follower", (key, value) -> {
                if (KEY.equals(key) && value != null) {
                    switchTo(new String(value, java.nio.charset.StandardCharsets.UTF_8));
                }
            }, IllegalStateException::new);
            if (!follower.awaitFirstPass(java.time.Duration.ofMillis(START_WAIT_MS))) {
                LOG.warn("{} not read within {} ms: starting with {}, switching when it is read", topic, START_WAIT_MS,
                    held.get().modelName());
            }
        }
        return this;
    }

    /**
     * Switches to a model named on the active-model topic.
     *
     * @param model a model name
     * @return whether the embedder now embeds with it (false: unknown here, or already held)
     */
    public boolean switchTo(final String model) {
        if (model == null || model.isBlank() || model.equals(held.get().modelName())) {
            return false;
        }
        final Optional<OnnxModel> spec = OnnxModel.named(model);
        if (spec.isEmpty()) {
            LOG.warn("The active embedding model is now {}, which this app does not hold (built in: {}); it keeps {}",
                model, OnnxModel.names(), held.get().modelName());
            return false;
        }
        final Embedder main = models.apply(spec.get());
        final String hanModel = config.getString(CoreConfig.EMBEDDING_MODEL_HAN);
        final Embedder next = ScriptRoutedEmbedder.routesHan(config) && !model.equals(hanModel)
            ? new ScriptRoutedEmbedder(main, models.apply(OnnxModel.named(hanModel).orElseThrow(
                () -> new IllegalArgumentException("Unknown embedding model " + hanModel + "; built in: " + OnnxModel.names()))),
                config.getDouble(EmbedderConfig.EMBEDDING_HAN_MIN_SHARE))
            : main;
        final Embedder before = held.getAndSet(next);
        LOG.info("Embedding model switched from {} to {} (named active on {})", before.modelName(), model, topic);
        return true;
    }

    @Override
    public Embedder current() {
        return held.get().current();
    }

    @Override
    public String modelName() {
        return held.get().modelName();
    }

    @Override
    public int dimensions() {
        return held.get().dimensions();
    }

    @Override
    public List<String> models() {
        return held.get().models();
    }

    @Override
    public String modelFor(final String text) {
        return held.get().modelFor(text);
    }

    @Override
    public List<float[]> embedAll(final List<String> texts) {
        return held.get().embedAll(texts);
    }

    @Override
    public List<float[]> embedGroup(final List<String> texts) {
        return held.get().embedGroup(texts);
    }

    @Override
    public float[] embedQuery(final String query, final String model) {
        return held.get().embedQuery(query, model);
    }

    /** Stops the follower, if any, and closes the held embedder (a no-op for the JVM-wide built-in models). */
    @Override
    public synchronized void close() {
        if (follower != null) {
            follower.close();
            follower = null;
        }
        held.get().close();
    }
}
