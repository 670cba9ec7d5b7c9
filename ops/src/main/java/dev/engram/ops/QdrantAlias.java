package dev.engram.ops;

import java.io.PrintStream;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.port.VectorIndexUnavailableException;
import dev.engram.qdrant.QdrantSettings;
import dev.engram.qdrant.QdrantVectorIndex;
import dev.engram.qdrant.VectorIndexes;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The Qdrant side of {@code reembed} with {@code vector.index=qdrant}: the alias {@code qdrant.collection}
 * switched to the new model's collection ({@link QdrantVectorIndex#switchAlias}, one atomic Qdrant request) once
 * the consolidator has written the re-embedded memories there, and an old model's collection dropped with
 * {@code --drop}. Without Qdrant both do nothing.
 */
final class QdrantAlias {

    private QdrantAlias() {
    }

    /**
     * @param config the deployment's config
     * @param model the model switched to
     * @param out where the outcome is printed (a failure is printed, not thrown: the Kafka side has switched, and
     *     running {@code reembed --model M} again retries the alias)
     */
    static void switchTo(final EngramConfig config, final String model, final PrintStream out) {
        if (!VectorIndexes.isQdrant(config)) {
            return;
        }
        try (QdrantVectorIndex index = open(config)) {
            index.switchAlias(model);
            out.println("Qdrant alias '" + index.collection() + "' now names '" + index.collectionFor(model) + "'");
        } catch (IllegalStateException | VectorIndexUnavailableException e) {
            out.println("Qdrant alias not switched (" + e.getMessage() + "); run reembed --model " + model
                + " again once the consolidator has applied the commands");
        }
    }

    /**
     * @param config the deployment's config
     * @param model the model whose collection goes
     * @param out where the outcome is printed
     * @throws IllegalStateException if the alias names that collection
     */
    static void drop(final EngramConfig config, final String model, final PrintStream out) {
        if (!VectorIndexes.isQdrant(config)) {
            return;
        }
        try (QdrantVectorIndex index = open(config)) {
            out.println(index.dropModel(model) ? "Dropped Qdrant collection '" + index.collectionFor(model) + "'"
                : "No Qdrant collection '" + index.collectionFor(model) + "'");
        }
    }

    private static QdrantVectorIndex open(final EngramConfig config) {
        return QdrantVectorIndex.connect(QdrantSettings.from(config), config.getString(CoreConfig.EMBEDDING_MODEL),
            config.getInt(CoreConfig.EMBEDDING_DIMENSIONS), new SimpleMeterRegistry());
    }
}
