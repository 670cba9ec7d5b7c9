package dev.engram.qdrant;

import java.util.Optional;
import java.util.function.Supplier;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.port.VectorIndexFactory;
import dev.engram.port.VectorIndexUnavailableException;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the vector index from {@code vector.index}: {@code embedded} (the default, no server) or
 * {@code qdrant} ({@code qdrant.*} settings). At start the Qdrant collection is checked (and created
 * when absent): a collection of another shape, a refused API key or any other non-transient error
 * stops the app start with its message; an unreachable Qdrant only logs a warning, because every
 * later call checks again and the apps recover by themselves when Qdrant comes up.
 */
public final class VectorIndexes {

    private static final Logger LOG = LoggerFactory.getLogger(VectorIndexes.class);

    private VectorIndexes() {
    }

    /**
     * @param config {@code vector.index}, {@code qdrant.*}, {@code embedding.dimensions} (the vector size
     *     the consolidator accepts)
     * @param registry where Qdrant metrics go
     * @param embedded the embedded index over the consolidator's own store (the streams module's), for
     *     {@code vector.index=embedded}
     * @return the consolidator's factory; a {@link QdrantVectorIndexFactory} (close it) or the embedded one
     */
    public static VectorIndexFactory consolidatorFactory(final EngramConfig config, final MeterRegistry registry,
                                                         final Supplier<VectorIndexFactory> embedded) {
        if (!isQdrant(config)) {
            return embedded.get();
        }
        return new QdrantVectorIndexFactory(open(config, config.getInt(CoreConfig.EMBEDDING_DIMENSIONS), registry));
    }

    /**
     * @param config {@code vector.index}, {@code qdrant.*}
     * @param dimensions the query embedder's vector size
     * @param registry where Qdrant metrics go
     * @return the retriever's dense index when {@code vector.index=qdrant} (close it), else empty
     */
    public static Optional<QdrantVectorIndex> retrieverIndex(final EngramConfig config, final int dimensions,
                                                             final MeterRegistry registry) {
        return isQdrant(config) ? Optional.of(open(config, dimensions, registry)) : Optional.empty();
    }

    /**
     * @param config the config
     * @return whether {@code vector.index=qdrant}
     */
    public static boolean isQdrant(final EngramConfig config) {
        return QdrantConfig.VECTOR_INDEX_QDRANT.equals(config.getString(QdrantConfig.VECTOR_INDEX));
    }

    private static QdrantVectorIndex open(final EngramConfig config, final int dimensions, final MeterRegistry registry) {
        // one collection per model: a Han model of another vector size gets its own collection
        final QdrantVectorIndex index = QdrantVectorIndex.connect(QdrantSettings.from(config),
            config.getString(CoreConfig.EMBEDDING_MODEL), dimensions, registry);
        try {
            index.ensureCollection();
        } catch (VectorIndexUnavailableException e) {
            LOG.warn("Qdrant is not reachable at start ({}); calls will check the collection again until it is",
                e.getMessage());
        } catch (RuntimeException e) {
            index.close();
            throw e;
        }
        return index;
    }
}
