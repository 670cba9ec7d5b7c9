package dev.engram.embedder;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
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
 * Texts are never padded into one tensor batch: the models are dynamically quantized (the int8 scale
 * is computed over the whole input tensor), so a padded batch changes a text's vector with its
 * batch-mates, and a replay would not reproduce it; a padded batch was also slower per text on one
 * intra-op thread (BENCHMARKS.md, "Embedding models").
 *
 * <p>Thread-safe. {@link #shared(OnnxModel)} gives one instance per model per JVM, all on one
 * JVM-wide pool of one thread per core, so texts of every caller in flight (conversations of several
 * tasks, queries) queue for the same cores. Loading takes ~0.7 s (MiniLM) to ~1.5 s (bge-small).
 */
public final class OnnxEmbedder implements Embedder {

    private static final Map<String, OnnxEmbedder> SHARED = new ConcurrentHashMap<>();
    private static volatile ExecutorService sharedPool;

    private final OnnxModel spec;
    private final ExecutorService executor;
    private final boolean ownsExecutor;
    private final OrtSession session;
    private final Model model;

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
             InputStream tokenizer = loader.getResourceAsStream(spec.tokenizerResource())) {
            if (modelBytes == null || tokenizer == null) {
                throw new IllegalStateException("Embedding model " + spec.name() + ": " + spec.modelResource()
                    + " or " + spec.tokenizerResource() + " missing from the classpath");
            }
            final OrtEnvironment environment = OrtEnvironment.getEnvironment();
            final OrtSession.SessionOptions options = new OrtSession.SessionOptions();
            options.setIntraOpNumThreads(1);
            options.setInterOpNumThreads(1);
            this.session = environment.createSession(modelBytes.readAllBytes(), options);
            // the pool counts each text's CPU time for the thread that asked (EmbeddingCpu: a benchmark's stage split)
            this.model = new Model(EmbeddingCpu.attributing(executor),
                new OnnxBertBiEncoder(environment, session, tokenizer, spec.pooling()), spec.dimensions());
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
     * @param name a built-in model name ({@link OnnxModel#names()})
     * @return its JVM-wide instance
     * @throws IllegalArgumentException for an unknown name (the message lists the known ones)
     */
    public static OnnxEmbedder shared(final String name) {
        return shared(OnnxModel.named(name).orElseThrow(() -> new IllegalArgumentException(
            "Unknown embedding model " + name + "; built in: " + OnnxModel.names())));
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
        if (texts.isEmpty()) {
            return List.of();
        }
        final List<TextSegment> segments = new ArrayList<>(texts.size());
        for (final String text : texts) {
            // TextSegment rejects blank text; a single space embeds as the empty sentence does.
            segments.add(TextSegment.from(text == null || text.isBlank() ? " " : text));
        }
        // one text runs on the caller's thread (langchain4j uses the pool for two or more)
        final List<Embedding> embeddings = segments.size() == 1
            ? EmbeddingCpu.inline(() -> model.embedAll(segments).content()) : model.embedAll(segments).content();
        final List<float[]> vectors = new ArrayList<>(embeddings.size());
        for (final Embedding embedding : embeddings) {
            vectors.add(embedding.vector());
        }
        return vectors;
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
            session.close();
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

        Model(final java.util.concurrent.Executor executor, final OnnxBertBiEncoder encoder, final int dimensions) {
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
