package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.OnnxEmbedder;
import dev.engram.embedder.OnnxModel;
import dev.engram.port.Embedder;
import dev.engram.scoring.Vectors;
import dev.engram.testing.MemoryFixtures;
import org.junit.jupiter.api.Test;

/**
 * {@code reembed --model M} keeps each memory on the model of its script, as the apps embed after the switch
 * (real models): with the default Han routing a switch to an English model moves English memories to it and
 * leaves Chinese ones on bge-small-zh (a Chinese memory on another model is moved to bge-small-zh); a switch to the
 * Han model itself, or routing off, puts every memory on M. Observations and topic lists are not embedded: they
 * follow their statements.
 */
class ReembedRoutingTest {

    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");
    private static final String EN = OnnxModel.BGE_SMALL_EN.name();
    private static final String ZH = OnnxModel.BGE_SMALL_ZH.name();
    private static final String MINILM = OnnxModel.MINILM.name();

    @Test
    void shouldKeepChineseOnTheHanModelAndMoveTheRestWhenSwitchingToAnEnglishModel() {
        final Memory english = on(memory("m1", "Lives in Lisbon and writes Kotlin"), MINILM);
        final Memory chinese = on(memory("m2", "我住在北京，喜欢喝茶"), ZH);
        final Memory chineseElsewhere = on(memory("m3", "我每天早上跑步"), MINILM);
        final Embedder routed = ReembedRouting.routed(OnnxEmbedder.shared(OnnxModel.BGE_SMALL_EN), EngramConfig.defaults());

        final List<Memory> out = ReembedRouting.embedded(routed, List.of(english, chinese, chineseElsewhere));

        assertThat(out).extracting(Memory::getEmbeddingModel).containsExactly(EN, ZH, ZH);
        assertThat(out.get(1)).as("already on its script's model: not embedded again").isSameAs(chinese);
        assertThat(Vectors.cosine(Vectors.toArray(out.get(0).getEmbedding()),
            OnnxEmbedder.shared(OnnxModel.BGE_SMALL_EN).embed(english.getContent()))).isGreaterThan(0.999);
        assertThat(Vectors.cosine(Vectors.toArray(out.get(2).getEmbedding()),
            OnnxEmbedder.shared(OnnxModel.BGE_SMALL_ZH).embed(chineseElsewhere.getContent()))).isGreaterThan(0.999);
    }

    @Test
    void shouldPutEveryMemoryOnTheModelWhenItIsTheHanModelOrRoutingIsOff() {
        final Memory english = on(memory("m1", "Lives in Lisbon"), MINILM);
        final Memory chinese = on(memory("m2", "我住在北京"), MINILM);

        assertThat(ReembedRouting.embedded(ReembedRouting.routed(OnnxEmbedder.shared(OnnxModel.BGE_SMALL_ZH), EngramConfig.defaults()),
            List.of(english, chinese))).extracting(Memory::getEmbeddingModel).containsExactly(ZH, ZH);
        final EngramConfig noRouting = EngramConfig.defaults().with(Map.of(CoreConfig.EMBEDDING_MODEL_HAN, ""));
        assertThat(ReembedRouting.embedded(ReembedRouting.routed(OnnxEmbedder.shared(OnnxModel.BGE_SMALL_EN), noRouting),
            List.of(english, chinese))).extracting(Memory::getEmbeddingModel).containsExactly(EN, EN);
    }

    /**
     * An observation's and a topic list's vectors are their statements' centroid: the tool embeds neither (a command
     * would find the list gone, its id naming the old model, and give the observation its text's vector); the
     * regrouping after the statements' commands writes them on the new model. An observation the user corrected
     * carries its corrected text's vector, kept by the regrouping: re-embedded like a statement.
     */
    @Test
    void shouldEmbedTheStatementsAndCorrectedObservationsButNotTheDerivedMemoriesWhenSelectingWhatToReembed() {
        final Memory statement = memory("m1", "Adopted a cat named Bailey");
        final Memory observation = derived("m2", dev.engram.port.ExtractedMemory.OBSERVATION_DISPLAY_NAME).build();
        final Memory list = derived("m3", dev.engram.port.ExtractedMemory.TOPIC_LIST_DISPLAY_NAME).build();
        final Memory corrected = derived("m4", dev.engram.port.ExtractedMemory.OBSERVATION_DISPLAY_NAME)
            .setSource(dev.engram.avro.MemorySource.CORRECTED).build();
        final Memory correctedList = derived("m5", dev.engram.port.ExtractedMemory.TOPIC_LIST_DISPLAY_NAME)
            .setSource(dev.engram.avro.MemorySource.CORRECTED).build();

        assertThat(Reembed.toEmbed(List.of(List.of(statement, observation, list), List.of(corrected, correctedList))))
            .extracting(Memory::getMemoryId).containsExactly("m1", "m4");
    }

    private static Memory.Builder derived(final String id, final String displayName) {
        return Memory.newBuilder(memory(id, "Adopted a cat named Bailey. Bailey and Max played all day."))
            .setType(dev.engram.avro.MemoryType.SEMANTIC).setDisplayName(displayName)
            .setSource(dev.engram.avro.MemorySource.INFERRED);
    }

    private static Memory memory(final String id, final String content) {
        return MemoryFixtures.memory("t", "u1", id, content, AT).build();
    }

    private static Memory on(final Memory memory, final String model) {
        final int dimensions = ZH.equals(model) ? 512 : 384;
        final float[] vector = new float[dimensions];
        vector[0] = 1f;
        return Memory.newBuilder(memory).setEmbedding(Vectors.toList(vector)).setEmbeddingModel(model).build();
    }
}
