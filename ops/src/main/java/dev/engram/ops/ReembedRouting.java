package dev.engram.ops;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.ActiveModelEmbedder;
import dev.engram.embedder.EmbedderConfig;
import dev.engram.port.Embedder;
import dev.engram.scoring.Vectors;

/**
 * Which model a re-embedding puts each memory on, and the memories with their new vectors: the apps' per-script rule (mostly-Han text stays on the Han model), shared by reembed and its catch-up.
 */
final class ReembedRouting {

    private ReembedRouting() {
    }

    /**
     * The embedder a re-embedding to {@code target} uses: the same rule as the apps after the switch
     * ({@link ActiveModelEmbedder#switchTo}): with {@code embedding.model.han} routing on, mostly-Han text keeps the
     * Han model and everything else goes to {@code target} (Chinese stays on bge-small-zh when the switch is to an
     * English model); a switch to the Han model itself, or without routing, puts every text on {@code target}.
     *
     * @param target the new model's embedder
     * @param config the deployment's {@code embedding.*} settings
     * @return the routed embedder ({@link Embedder#modelFor} names each memory's model)
     */
    static Embedder routed(final Embedder target, final EngramConfig config) {
        final String hanModel = config.getString(CoreConfig.EMBEDDING_MODEL_HAN);
        if (!dev.engram.embedder.ScriptRoutedEmbedder.routesHan(config) || target.modelName().equals(hanModel)) {
            return target;
        }
        return new dev.engram.embedder.ScriptRoutedEmbedder(target, dev.engram.embedder.OnnxEmbedder.shared(hanModel),
            config.getDouble(EmbedderConfig.EMBEDDING_HAN_MIN_SHARE));
    }

    /**
     * @param embedder the routed new model ({@link #routed})
     * @param batch memories
     * @return each memory with the vector of its content by the model {@code embedder} routes it to; a memory
     *     already of that model keeps its own (not embedded again)
     */
    static List<Memory> embedded(final Embedder embedder, final List<Memory> batch) {
        final List<Memory> todo = batch.stream()
            .filter(m -> !embedder.modelFor(m.getContent()).equals(m.getEmbeddingModel())).toList();
        final List<float[]> vectors = todo.isEmpty() ? List.of()
            : embedder.embedAll(todo.stream().map(Memory::getContent).toList());
        final Map<String, float[]> byId = new HashMap<>();
        for (int i = 0; i < todo.size(); i++) {
            byId.put(todo.get(i).getMemoryId(), vectors.get(i));
        }
        final List<Memory> out = new ArrayList<>(batch.size());
        for (final Memory m : batch) {
            final float[] v = byId.get(m.getMemoryId());
            out.add(v == null ? m : Memory.newBuilder(m).setEmbedding(Vectors.toList(v))
                .setEmbeddingModel(embedder.modelFor(m.getContent())).build());
        }
        return out;
    }
}
