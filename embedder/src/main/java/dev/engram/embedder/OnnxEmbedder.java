package dev.engram.embedder;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.engram.core.ExitDrains;
import dev.engram.port.Embedder;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;

/**
 * One {@link OnnxModel} (bge-small-en-v1.5, bge-small-zh-v1.5, all-MiniLM-L6-v2; quantized ONNX from
 * the langchain4j jars) run in-process through our own ONNX Runtime session: 384 dimensions (512 for
 * bge-small-zh), the model's pooling, L2-normalized vectors, no network. Texts longer than the model's 510 tokens are
 * embedded in windows and averaged (langchain4j's {@link OnnxBertBiEncoder}).
 *
 * <p>Throughput: ONNX Runtime's default session spins an intra-op pool on every core for each call,
 * and langchain4j runs one inference per text. A session with one intra-op and one inter-op thread,
 * fed one text per core, embeds faster than that stock setup on the 2-core machines, with bit-identical
 * vectors (figures in BENCHMARKS.md). That is what this class does, for every model.
 * {@link #embedAll} never puts two texts in one tensor: the models are dynamically quantized (the int8 scale
 * is computed over the whole input tensor), so a text's vector would change with its batch-mates. Where the
 * texts to embed together are a replay-stable set (a conversation's candidates), {@link #embedGroup} runs
 * them in groups of similar length as one inference each ({@link GroupedInference}): cheaper per text, and
 * the same vectors whenever the same set is embedded again (BENCHMARKS.md, "Embedding in groups").
 *
 * <p>Thread-safe. {@link #shared(OnnxModel)} gives one instance per model per JVM, all on one
 * JVM-wide pool of one thread per core, so texts of every caller in flight (conversations of several
 * tasks, queries) queue for the same cores. Loading takes ~0.7 s (MiniLM) to ~1.5 s (bge-small).
 */
public final class OnnxEmbedder implements Embedder {

    private static final Map<String, OnnxEmbedder> SHARED = new ConcurrentHashMap<>();
    private static volatile ExecutorService sharedPool;
    /** Every inference of every model passes it, so that the JVM does not exit under one ({@link ExitDrains}). */
    private static final InferenceGate GATE = new InferenceGate();

    static {
        ExitDrains.register(GATE);
    }

    private final OnnxModel spec;
    private final ExecutorService executor;
    private final boolean ownsExecutor;
    private final OrtSession session;
    private final Model model;
    private final Executor attributed;
    private final GroupedInference grouped;

    /**
     * Loads a model on its own pool of {@code threads} threads.
     *
     * @param spec the model
     * @param threads inference threads (one text per thread), ≥ 1
     * @throws IllegalStateException if the model cannot be loaded (resources missing from the classpath,
     *     ONNX Runtime failure)
     */
    public OnnxEmbedder(final OnnxModel spec, final int threads) {
        this(spec, newPool(threads), true);
    }

    private OnnxEmbedder(final OnnxModel spec, final ExecutorService executor, final boolean ownsExecutor) {
        ensureTempDirectory();
        this.spec = spec;
        this.executor = executor;
        this.ownsExecutor = ownsExecutor;
        final ClassLoader loader = OnnxEmbedder.class.getClassLoader();
        try (InputStream modelBytes = loader.getResourceAsStream(spec.modelResource());
             InputStream tokenizer = loader.getResourceAsStream(spec.tokenizerResource());
             InputStream groupTokenizer = loader.getResourceAsStream(spec.tokenizerResource())) {
            if (modelBytes == null || tokenizer == null || groupTokenizer == null) {
                throw new IllegalStateException("Embedding model " + spec.name() + ": " + spec.modelResource()
                    + " or " + spec.tokenizerResource() + " missing from the classpath");
            }
            final OrtEnvironment environment = OrtEnvironment.getEnvironment();
            final OrtSession.SessionOptions options = new OrtSession.SessionOptions();
            options.setIntraOpNumThreads(1);
            options.setInterOpNumThreads(1);
            this.session = environment.createSession(modelBytes.readAllBytes(), options);
            // the pool counts each text's CPU time for the thread that asked (EmbeddingCpu: a benchmark's stage split)
            this.attributed = EmbeddingCpu.attributing(executor);
            this.model = new Model(attributed, new OnnxBertBiEncoder(environment, session, tokenizer, spec.pooling()),
                spec.dimensions());
            this.grouped = new GroupedInference(environment, session, groupTokenizer, spec.pooling(), spec.dimensions());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the embedding model " + spec.name(), e);
        } catch (OrtException e) {
            throw new IllegalStateException("Cannot start ONNX Runtime for the embedding model " + spec.name(), e);
        }
    }

    /**
     * @param spec a model
     * @return the JVM-wide instance of that model, loaded on first use, on the JVM-wide pool of one
     *     thread per core
     */
    public static OnnxEmbedder shared(final OnnxModel spec) {
        return SHARED.computeIfAbsent(spec.name(), name -> new OnnxEmbedder(spec, pool(), false));
    }

    /**
     * @param spec a model
     * @return whether its JVM-wide instance ({@link #shared(OnnxModel)}) is loaded
     */
    static boolean isShared(final OnnxModel spec) {
        return SHARED.containsKey(spec.name());
    }

    /**
     * @param name a built-in model name ({@link OnnxModel#names()})
     * @return its JVM-wide instance
     * @throws IllegalArgumentException for an unknown name (the message lists the known ones)
     */
    public static OnnxEmbedder shared(final String name) {
        return shared(OnnxModel.named(name).orElseThrow(() -> new IllegalArgumentException(
            "Unknown embedding model " + name + "; built in: " + OnnxModel.names())));
    }

    /** @return the grouped inference of this model (tests and measurements in this package) */
    GroupedInference groupedForTest() {
        return grouped;
    }

    /** @return the model this embedder runs */
    public OnnxModel spec() {
        return spec;
    }

    @Override
    public String modelName() {
        return spec.name();
    }

    @Override
    public int dimensions() {
        return spec.dimensions();
    }

    /**
     * @param texts passages, in order; empty strings are allowed
     * @return L2-normalized vectors of {@link #dimensions()}, same order
     */
    @Override
    public List<float[]> embedAll(final List<String> texts) {
        return GATE.run(() -> embedEach(texts));
    }

    private List<float[]> embedEach(final List<String> texts) {
        if (texts.isEmpty()) {
            return List.of();
        }
        final List<TextSegment> segments = new ArrayList<>(texts.size());
        for (final String text : texts) {
            segments.add(TextSegment.from(passage(text)));
        }
        // one text runs on the caller's thread (langchain4j uses the pool for two or more)
        EmbeddingCpu.count(segments.size(), segments.size()); // a text beyond one window takes more: counted as one
        final List<Embedding> embeddings = segments.size() == 1
            ? EmbeddingCpu.inline(() -> model.embedAll(segments).content()) : model.embedAll(segments).content();
        final List<float[]> vectors = new ArrayList<>(embeddings.size());
        for (final Embedding embedding : embeddings) {
            vectors.add(embedding.vector());
        }
        return vectors;
    }

    /**
     * Embeds texts in the replay-stable groups of {@link GroupedInference#plan}: the distinct texts sorted by token
     * count (then text) and cut into runs of at most {@value GroupedInference#MAX_TEXTS} of similar length, one inference per run, the
     * runs spread over the pool. A run of one text (and a text longer than one window) is embedded alone, exactly as
     * {@link #embedAll}; a text's vector in a run of several depends on its run-mates (the quantization scale is the
     * tensor's), within the tolerance measured in BENCHMARKS.md ("Embedding in groups"), and is the same whenever the
     * same set of texts is embedded together. all-MiniLM-L6-v2 embeds every text alone ({@link #groups}).
     *
     * @param texts passages, in order; duplicates and empty strings are allowed
     * @return L2-normalized vectors of {@link #dimensions()}, same order
     */
    @Override
    public List<float[]> embedGroup(final List<String> texts) {
        return GATE.run(() -> texts.size() < 2 || !groups(spec) ? embedEach(texts) : embedRuns(texts));
    }

    private List<float[]> embedRuns(final List<String> texts) {
        final Map<String, GroupedInference.Tokens> distinct = new LinkedHashMap<>();
        for (final String text : texts) {
            distinct.computeIfAbsent(passage(text), grouped::tokenize);
        }
        final List<CompletableFuture<Map<String, float[]>>> runs = new ArrayList<>();
        final List<List<GroupedInference.Tokens>> groups = GroupedInference.plan(new ArrayList<>(distinct.values()));
        EmbeddingCpu.count(distinct.size(), groups.size());
        for (final List<GroupedInference.Tokens> group : groups) {
            runs.add(CompletableFuture.supplyAsync(() -> group.size() == 1
                ? Map.of(group.get(0).text(), model.embed(group.get(0).text()).content().vector())
                : grouped.run(group), attributed));
        }
        final Map<String, float[]> vectors = new HashMap<>();
        for (final CompletableFuture<Map<String, float[]>> run : runs) {
            vectors.putAll(run.join());
        }
        final List<float[]> out = new ArrayList<>(texts.size());
        for (final String text : texts) {
            out.add(vectors.get(passage(text)).clone());
        }
        return out;
    }

    /**
     * @param model a built-in model
     * @return whether {@link #embedGroup} runs its texts together: the bge models (cosine to the one-text vectors
     *     ≥ 0.99 on LoCoMo turns), not all-MiniLM-L6-v2, whose short texts moved to a cosine of 0.95 in a group
     */
    static boolean groups(final OnnxModel model) {
        return !model.name().equals(OnnxModel.MINILM.name());
    }

    /** TextSegment rejects blank text; a single space embeds as the empty sentence does. */
    private static String passage(final String text) {
        return text == null || text.isBlank() ? " " : text;
    }

    /**
     * @param query a search query
     * @param model must be {@link #modelName()}
     * @return the vector of the model's query instruction followed by the query
     */
    @Override
    public float[] embedQuery(final String query, final String model) {
        if (!spec.name().equals(model)) {
            throw new IllegalArgumentException("Embedder " + spec.name() + " cannot embed with model " + model);
        }
        return embed(spec.queryText(query == null ? "" : query));
    }

    @Override
    public void close() {
        if (!ownsExecutor) {
            return; // a shared instance lives as long as the JVM
        }
        executor.shutdownNow();
        try {
            // a run still inside the session would read freed memory (ONNX Runtime ignores the interrupt)
            if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("Embedding model " + spec.name() + ": inferences still running after 10 s;"
                    + " its session is left open");
            }
            session.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while closing the embedding model " + spec.name(), e);
        } catch (OrtException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ExecutorService pool() {
        ExecutorService local = sharedPool;
        if (local == null) {
            synchronized (OnnxEmbedder.class) {
                local = sharedPool;
                if (local == null) {
                    local = newPool(Runtime.getRuntime().availableProcessors());
                    sharedPool = local;
                }
            }
        }
        return local;
    }

    private static ExecutorService newPool(final int threads) {
        final AtomicInteger n = new AtomicInteger();
        return Executors.newFixedThreadPool(Math.max(1, threads), r -> {
            final Thread t = new Thread(r, "engram-embedder-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** ONNX Runtime extracts its native library into java.io.tmpdir, which must exist. */
    private static void ensureTempDirectory() {
        try {
            Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create java.io.tmpdir", e);
        }
    }

    /** langchain4j's in-process model over our own session and executor. */
    private static final class Model extends AbstractInProcessEmbeddingModel {
        private final OnnxBertBiEncoder encoder;
        private final int dimensions;

        Model(final Executor executor, final OnnxBertBiEncoder encoder, final int dimensions) {
            super(executor);
            this.encoder = encoder;
            this.dimensions = dimensions;
        }

        @Override
        protected OnnxBertBiEncoder model() {
            return encoder;
        }

        @Override
        protected Integer knownDimension() {
            return dimensions;
        }
    }
}
