package dev.engram.embedder;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.model.embedding.onnx.PoolingMode;

/**
 * Several texts through one ONNX Runtime inference: the texts are tokenized, padded to the longest of the group
 * (pad id 0, attention mask 0), run as one {@code [texts × tokens]} tensor, pooled per text (CLS: the first token's
 * state; MEAN: the mean over the text's own tokens, as the one-text path over all of its tokens) and L2-normalized.
 *
 * <p><b>Not the vectors of one text alone.</b> The built-in models are dynamically quantized: each
 * {@code DynamicQuantizeLinear} computes its int8 scale and zero point over the whole input tensor, so a text's
 * vector depends on what else is in its tensor (padding or not). The vector is a deterministic function of the
 * group (ONNX Runtime on one intra-op thread), which is what {@link #plan} makes replay-stable: the grouping is a
 * function of the set of texts only (sorted by token count, then by text; cut into runs of at most
 * {@link #MAX_TEXTS} texts of similar length), never of their order, of the machine or of what else runs. Measured difference from
 * the one-text vectors: BENCHMARKS.md, "Embedding in groups".
 *
 * <p>Thread-safe (ONNX Runtime sessions and the HuggingFace tokenizer are; each thread has its own output buffer).
 */
final class GroupedInference {

    /** Most texts in one inference: beyond it the attention's and the padding's cost outgrow the gain. */
    static final int MAX_TEXTS = 4;
    /** A group's longest text has at most this many percent more tokens than its shortest ({@link #plan}). */
    static final int SPREAD_PERCENT = 25;
    /** … or this many tokens more, whichever is more. */
    static final int SPREAD_MIN_TOKENS = 4;
    /** Tokens of a text the model takes in one window, [CLS] and [SEP] included; longer texts go one by one. */
    static final int MAX_TOKENS = 512;

    private final OrtEnvironment environment;
    private final OrtSession session;
    private final HuggingFaceTokenizer tokenizer;
    private final PoolingMode pooling;
    private final boolean typeIds;
    /** The model's first output: the last hidden states, {@code texts × tokens × dimensions}. */
    private final String output;
    private final int dimensions;
    /** Each pool thread's buffer for the hidden states of its inference ({@link #run(List)}). */
    private final ThreadLocal<FloatBuffer> stateBuffers = new ThreadLocal<>();

    /**
     * @param environment the ONNX Runtime environment
     * @param session the model's session (one intra-op thread)
     * @param tokenizer the model's {@code tokenizer.json}
     * @param pooling the model's pooling
     * @param dimensions the model's hidden size, its vectors' length
     */
    GroupedInference(final OrtEnvironment environment, final OrtSession session, final InputStream tokenizer,
                     final PoolingMode pooling, final int dimensions) {
        this.environment = environment;
        this.session = session;
        this.pooling = pooling;
        this.dimensions = dimensions;
        this.output = session.getOutputNames().iterator().next();
        try {
            this.tokenizer = HuggingFaceTokenizer.newInstance(tokenizer, Map.of("padding", "false"));
            this.typeIds = session.getInputNames().contains("token_type_ids");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the tokenizer", e);
        }
    }

    /** A tokenized text. @param text the text @param ids its token ids, [CLS] and [SEP] included */
    record Tokens(String text, long[] ids) {
    }

    /**
     * The ids {@code tokenizer.encode(text, true, false).getIds()} gives, without the rest of that {@code Encoding}: DJL
     * fetches every field of an encoding through its own JNI call (type and word ids, attention and special-token
     * masks, a {@code String} per token, a {@code CharSpan} object per token, the overflow), which cost more than the
     * tokenization itself, and the model takes the ids only. The text goes to the native tokenizer as {@code encode}
     * passes it: this tokenizer is built without the options that rewrite it first ({@code addPrefixSpace},
     * {@code doLowerCase}, {@code stripAccents}); {@code GroupedInferenceTest} holds the two ways equal.
     *
     * @param text a passage
     * @return its token ids as the model takes them
     */
    Tokens tokenize(final String text) {
        final long encoding = TokenizersLibrary.LIB.encode(tokenizer.getHandle(), text, true);
        try {
            return new Tokens(text, TokenizersLibrary.LIB.getTokenIds(encoding));
        } finally {
            TokenizersLibrary.LIB.deleteEncoding(encoding);
        }
    }

    /**
     * @param text a passage
     * @return its token ids through DJL's whole {@code Encoding}, the way {@link #tokenize} must equal (tests)
     */
    long[] encodedIds(final String text) {
        return tokenizer.encode(text, true, false).getIds();
    }

    /**
     * The replay-stable grouping: the texts that fit one window sorted by token count, then by text, and cut into
     * runs of at most {@link #MAX_TEXTS} whose longest text has at most {@value #SPREAD_PERCENT} % (at least
     * {@value #SPREAD_MIN_TOKENS}) more tokens than the shortest; a text of a whole window or more is a group of its
     * own (embedded alone, as {@link OnnxEmbedder#embedAll}).
     *
     * @param texts distinct tokenized texts, any order
     * @return the groups, each in that sorted order; the same groups for the same set of texts
     */
    static List<List<Tokens>> plan(final List<Tokens> texts) {
        return plan(texts, MAX_TEXTS);
    }

    /**
     * @param texts distinct tokenized texts, any order
     * @param maxTexts most texts per group
     * @return as {@link #plan(List)} with groups of at most {@code maxTexts}
     */
    static List<List<Tokens>> plan(final List<Tokens> texts, final int maxTexts) {
        final List<Tokens> sorted = new ArrayList<>(texts);
        sorted.sort(Comparator.<Tokens>comparingInt(t -> t.ids().length).thenComparing(Tokens::text));
        final List<List<Tokens>> groups = new ArrayList<>();
        List<Tokens> current = new ArrayList<>();
        for (final Tokens t : sorted) {
            if (t.ids().length >= MAX_TOKENS) { // the tokenizer cuts at the window: maybe longer, embedded alone
                groups.add(List.of(t));
                continue;
            }
            if (current.size() == maxTexts || !current.isEmpty() && t.ids().length > widest(current.get(0))) {
                groups.add(current);
                current = new ArrayList<>();
            }
            current.add(t);
        }
        if (!current.isEmpty()) {
            groups.add(current);
        }
        return groups;
    }

    /**
     * @param shortest the shortest text of a group
     * @return the most tokens a text of its group may have: {@value #SPREAD_PERCENT} % more, at least
     *     {@value #SPREAD_MIN_TOKENS} more (a short text padded far loses most of its int8 range to its mates)
     */
    private static int widest(final Tokens shortest) {
        final int n = shortest.ids().length;
        return n + Math.max(SPREAD_MIN_TOKENS, n * SPREAD_PERCENT / 100);
    }

    /**
     * Runs one group of two or more texts, each of at most {@link #MAX_TOKENS} tokens, as one inference. The model's
     * hidden states ({@code texts × tokens × dimensions} floats, ~90 KB per text) are written by ONNX Runtime into a
     * direct buffer this thread keeps ({@link #stateBuffer}), and only what the pooling needs is read from there: the
     * {@code float[][][]} that {@code OnnxValue#getValue} builds was a copy of all of them, a Java array per token, the
     * largest allocation per candidate of the extractor. The same floats pooled in the same order, so the same vectors
     * ({@code GroupedInferenceTest}).
     *
     * @param group the texts
     * @return text → L2-normalized vector
     */
    Map<String, float[]> run(final List<Tokens> group) {
        return run(group, true);
    }

    /**
     * @param group the texts
     * @return {@link #run(List)} with the hidden states copied out of ONNX Runtime's own output (the way it must equal)
     */
    Map<String, float[]> runCopyingStates(final List<Tokens> group) {
        return run(group, false);
    }

    private Map<String, float[]> run(final List<Tokens> group, final boolean intoStateBuffer) {
        int width = 0;
        for (final Tokens t : group) {
            width = Math.max(width, t.ids().length);
        }
        final int n = group.size();
        final long[] ids = new long[n * width];
        final long[] mask = new long[n * width];
        for (int i = 0; i < n; i++) {
            final long[] own = group.get(i).ids();
            System.arraycopy(own, 0, ids, i * width, own.length);
            Arrays.fill(mask, i * width, i * width + own.length, 1L);
        }
        final long[] shape = {n, width};
        final int floats = n * width * dimensions;
        final FloatBuffer pinned = intoStateBuffer ? stateBuffer(floats) : null;
        try (OnnxTensor idsTensor = OnnxTensor.createTensor(environment, LongBuffer.wrap(ids), shape);
             OnnxTensor maskTensor = OnnxTensor.createTensor(environment, LongBuffer.wrap(mask), shape);
             OnnxTensor typeTensor = OnnxTensor.createTensor(environment, LongBuffer.wrap(new long[n * width]), shape);
             OnnxTensor statesTensor = pinned == null ? null
                 : OnnxTensor.createTensor(environment, pinned, new long[] {n, width, dimensions})) {
            final Map<String, OnnxTensor> inputs = new HashMap<>();
            inputs.put("input_ids", idsTensor);
            inputs.put("attention_mask", maskTensor);
            if (typeIds) {
                inputs.put("token_type_ids", typeTensor);
            }
            try (OrtSession.Result result = pinned == null ? session.run(inputs) : session.run(inputs, Map.of(output, statesTensor))) {
                final FloatBuffer states = pinned != null ? pinned : ((OnnxTensor) result.get(output).orElseThrow()).getFloatBuffer();
                if (states.remaining() != floats) {
                    throw new IllegalStateException("the model gave " + states.remaining() + " hidden-state floats for "
                        + n + " × " + width + " tokens of " + dimensions);
                }
                final Map<String, float[]> out = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    out.put(group.get(i).text(), normalized(pool(states, i * width * dimensions, group.get(i).ids().length)));
                }
                return out;
            }
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime failed on a group of " + n + " texts", e);
        }
    }

    /**
     * @param floats hidden-state floats of one inference
     * @return this thread's direct buffer for them, positioned at 0 with that many remaining (grown when too small: the
     *     largest group it ran, at most {@value #MAX_TEXTS} × {@value #MAX_TOKENS} tokens × the dimensions, 4 MB, kept
     *     for the pool thread's life)
     */
    private FloatBuffer stateBuffer(final int floats) {
        FloatBuffer buffer = stateBuffers.get();
        if (buffer == null || buffer.capacity() < floats) {
            buffer = ByteBuffer.allocateDirect(Math.max(floats, 64 * 1024) * Float.BYTES).order(ByteOrder.nativeOrder())
                .asFloatBuffer();
            stateBuffers.set(buffer);
        }
        buffer.clear().limit(floats);
        return buffer;
    }

    /** Pools one text's hidden states, at {@code offset} of {@code states}, as the one-text path pools its array. */
    private float[] pool(final FloatBuffer states, final int offset, final int tokens) {
        final float[] pooled = new float[dimensions];
        if (pooling == PoolingMode.CLS) {
            states.get(offset, pooled);
            return pooled;
        }
        for (int t = 0; t < tokens; t++) {
            final int row = offset + t * dimensions;
            for (int j = 0; j < dimensions; j++) {
                pooled[j] += states.get(row + j);
            }
        }
        for (int j = 0; j < dimensions; j++) {
            pooled[j] /= tokens;
        }
        return pooled;
    }

    private static float[] normalized(final float[] v) {
        float sum = 0;
        for (final float x : v) {
            sum += x * x;
        }
        final float norm = (float) Math.sqrt(sum);
        final float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i] / norm;
        }
        return out;
    }
}
