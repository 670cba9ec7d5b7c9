package dev.engram.qdrant;

import dev.engram.config.ConfigFields;
import dev.engram.config.ConfigFields.Importance;
import dev.engram.config.ConfigFields.Range;
import dev.engram.config.ConfigFields.Type;
import dev.engram.config.ConfigFields.ValidString;
import dev.engram.config.ConfigGroup;

/**
 * The settings the Qdrant adapter owns ({@link ConfigGroup} {@code qdrant}): which vector index the apps use ({@code
 * vector.index}) and how to reach Qdrant. Registered as a service, composed onto the core definition by {@code
 * EngramConfig}; the keys are this class's constants.
 */
public final class QdrantConfig implements ConfigGroup {

    public static final String VECTOR_INDEX = "vector.index";
    public static final String QDRANT_HOST = "qdrant.host";
    public static final String QDRANT_PORT = "qdrant.port";
    public static final String QDRANT_API_KEY = "qdrant.api.key";
    public static final String QDRANT_TLS = "qdrant.tls";
    public static final String QDRANT_COLLECTION = "qdrant.collection";
    public static final String QDRANT_TIMEOUT_MS = "qdrant.timeout.ms";
    /** {@link #VECTOR_INDEX} value: exact cosine over the consolidator's own state store. */
    public static final String VECTOR_INDEX_EMBEDDED = "embedded";
    /** {@link #VECTOR_INDEX} value: Qdrant through its gRPC client. */
    public static final String VECTOR_INDEX_QDRANT = "qdrant";

    /** Called by the service loader ({@code META-INF/services/dev.engram.config.ConfigGroup}). */
    public QdrantConfig() {
        // the keys are constants; the declaration is {@link #define}
    }

    @Override
    public String name() {
        return "qdrant";
    }

    @Override
    public void define(final ConfigFields fields) {
        fields
            .define(VECTOR_INDEX, Type.STRING, VECTOR_INDEX_EMBEDDED,
                ValidString.in(VECTOR_INDEX_EMBEDDED, VECTOR_INDEX_QDRANT), Importance.HIGH,
                "Vector index of the consolidator (dedup, writes) and the retriever (dense candidates): embedded "
                    + "(exact cosine over the local state store, no server) or qdrant.")
            .define(QDRANT_HOST, Type.STRING, "localhost", Importance.HIGH,
                "Qdrant host (gRPC), used when vector.index=qdrant.")
            .define(QDRANT_PORT, Type.INT, 6334, Range.between(1, 65535), Importance.HIGH,
                "Qdrant gRPC port (Qdrant serves gRPC on 6334, REST on 6333).")
            .define(QDRANT_API_KEY, Type.PASSWORD, null, Importance.MEDIUM,
                "Qdrant API key, sent as the api-key header on every call; empty = none.")
            .define(QDRANT_TLS, Type.BOOLEAN, false, Importance.MEDIUM,
                "Use TLS to Qdrant (the client library's own default is TLS on; Engram asks for it explicitly).")
            .define(QDRANT_COLLECTION, Type.STRING, "engram-memories", Importance.MEDIUM,
                "Base name of the Qdrant collections: the memories embedded by model M live in collection "
                    + "<qdrant.collection>-<M> (created when absent with M's vector size, cosine), and the alias "
                    + "qdrant.collection names the active model's collection (created at start, switched by "
                    + "bin/engram reembed).")
            .define(QDRANT_TIMEOUT_MS, Type.INT, 2000, Range.between(1, 60_000), Importance.MEDIUM,
                "Deadline of every Qdrant call, in milliseconds.");
    }
}
