package dev.engram.config;

import java.util.Optional;

import dev.engram.config.ConfigFields.Importance;
import dev.engram.config.ConfigFields.Range;
import dev.engram.config.ConfigFields.Type;

/**
 * Core's own settings ({@link ConfigGroup} {@code core}), the ones every side reads: where the Kafka cluster is,
 * the largest record (the topics' and producers' limits follow from it) and the embedding models (the domain, the
 * embedder, Qdrant and the tools all name them). The keys are this class's constants, Kafka-free like the
 * declaration; every other module's settings are declared in its own group and composed onto these by
 * {@link EngramConfig}.
 */
public final class CoreConfig implements ConfigGroup {

    /** Prefix of the settings passed through to Kafka clients and Streams. */
    public static final String KAFKA_PREFIX = "kafka.";

    /** The Kafka cluster every app, tool and background reader connects to. */
    public static final String BOOTSTRAP_SERVERS = "kafka.bootstrap.servers";
    /** Threads of the in-process embedding model; the retriever embeds at most this many queries at once. */
    public static final String EMBEDDING_THREADS = "embedding.threads";
    /** Largest serialized conversation record, bytes; the topics' and producers' limits follow from it. */
    public static final String MAX_RECORD_BYTES = "input.max.record.bytes";
    /** Room above {@link #MAX_RECORD_BYTES} for headers (dead letters carry the reason) and batch overhead. */
    public static final int RECORD_HEADROOM_BYTES = 1024 * 1024;
    /** Vector size of {@link #EMBEDDING_MODEL}. */
    public static final String EMBEDDING_DIMENSIONS = "embedding.dimensions";
    /** The embedding model of every text that is not mostly Han. */
    public static final String EMBEDDING_MODEL = "embedding.model";
    /** The embedding model of text mostly in Han characters; empty = {@link #EMBEDDING_MODEL} for every text. */
    public static final String EMBEDDING_MODEL_HAN = "embedding.model.han";
    /** Vector size of {@link #EMBEDDING_MODEL_HAN}. */
    public static final String EMBEDDING_HAN_DIMENSIONS = "embedding.han.dimensions";
    /** The default of {@link #MAX_RECORD_BYTES}: 4 MiB. */
    public static final int DEFAULT_MAX_RECORD_BYTES = 4 * 1024 * 1024;

    /** Core's group; {@link EngramConfig} composes it first. */
    public CoreConfig() {
        // the keys are constants; the declaration is {@link #define}
    }

    @Override
    public String name() {
        return "core";
    }

    @Override
    public void define(final ConfigFields fields) {
        fields
            .define(BOOTSTRAP_SERVERS, Type.STRING, "localhost:9092", Importance.HIGH,
                "Kafka bootstrap servers.")
            .define(EMBEDDING_THREADS, Type.INT, Math.max(1, Runtime.getRuntime().availableProcessors()),
                Range.atLeast(1), Importance.LOW,
                "Threads of the in-process embedding model (one text per thread, one ONNX thread each); the retriever "
                    + "embeds at most this many queries at once, the others wait their turn.")
            .define(MAX_RECORD_BYTES, Type.INT, DEFAULT_MAX_RECORD_BYTES, Range.between(1024, 64 * 1024 * 1024), Importance.LOW,
                "Largest conversation record (serialized Avro, bytes) ingest publishes; a larger one is refused at ingest "
                    + "with this limit named. Topics are created with max.message.bytes and producers run with "
                    + "max.request.size of this plus 1 MiB (headers, dead-letter reasons), so what ingest accepts the "
                    + "broker and the dead-letter topic accept too; a larger record that reaches the extractor anyway (another "
                    + "producer) is dead-lettered with this limit named.")
            .define(EMBEDDING_DIMENSIONS, Type.INT, 384, Range.atLeast(1), Importance.LOW,
                "Vector size of embedding.model (bge-small-en and all-MiniLM-L6-v2: 384); candidates of another size go to the "
                    + "dead-letter topic.")
            .define(EMBEDDING_MODEL, Type.STRING, "bge-small-en-v15-q", Importance.HIGH,
                "In-process embedding model of every text that is not mostly Han: bge-small-en-v15-q (bge-small-en-v1.5, "
                    + "quantized; queries get the model card's instruction), all-minilm-l6-v2-q (about twice as fast, weaker "
                    + "retrieval) or bge-small-zh-v15-q. Every memory records its model; vectors of two models are never compared.")
            .define(EMBEDDING_MODEL_HAN, Type.STRING, "bge-small-zh-v15-q", Importance.MEDIUM,
                "Embedding model of text mostly in Han characters (Chinese; Japanese kanji and kana count too), see "
                    + "embedding.han.min.share; empty = embedding.model for every text. Queries are embedded with the model of "
                    + "the memories they are compared with.")
            .define(EMBEDDING_HAN_DIMENSIONS, Type.INT, 512, Range.atLeast(1), Importance.LOW,
                "Vector size of embedding.model.han (bge-small-zh-v1.5: 512); with vector.index=qdrant its vectors "
                    + "get their own collection.");
    }

    @Override
    public Optional<String> shownDefault(final String key) {
        return EMBEDDING_THREADS.equals(key) ? Optional.of("cores") : Optional.empty();
    }
}
