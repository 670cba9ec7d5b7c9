package dev.engram.scoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;

import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.embedder.OnnxEmbedder;
import dev.engram.embedder.OnnxModel;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class SimilarityScaleTest {

    private final SimilarityScale scale = SimilarityScale.fromConfig(EngramConfig.defaults());

    @Test
    void shouldKeepRawCosineForMiniLmAndUnlistedModels() {
        assertThat(scale.similarity("all-minilm-l6-v2-q", 0.73)).isEqualTo(0.73);
        assertThat(scale.similarity("some-other-model", 0.73)).isEqualTo(0.73);
    }

    @Test
    void shouldMapTheFloorToZeroAndIdenticalVectorsToOne() {
        assertThat(scale.similarity("bge-small-en-v15-q", 0.52)).isCloseTo(0.0, within(1e-12));
        assertThat(scale.similarity("bge-small-en-v15-q", 1.0)).isCloseTo(1.0, within(1e-12));
        assertThat(scale.similarity("bge-small-en-v15-q", 0.76)).isCloseTo(0.5, within(1e-12));
    }

    @Test
    void shouldRefuseAMalformedFloor() {
        assertThatThrownBy(() -> SimilarityScale.fromConfig(EngramConfig.defaults().with(Map.of(
            DomainConfig.EMBEDDING_SIMILARITY_FLOORS, "bge-small-en-v15-q=1.2"))))
            .isInstanceOf(ConfigException.class).hasMessageContaining("bge-small-en-v15-q=1.2");
        assertThatThrownBy(() -> SimilarityScale.fromConfig(EngramConfig.defaults().with(Map.of(
            DomainConfig.EMBEDDING_SIMILARITY_FLOORS, "0.5"))))
            .isInstanceOf(ConfigException.class);
    }

    /** The point of the floors: the default thresholds keep their meaning with bge-small. */
    @Test
    void shouldKeepUnrelatedSentencesBelowTheJudgeBandAndParaphrasesAboveItWithBge() {
        final OnnxEmbedder bge = OnnxEmbedder.shared(OnnxModel.BGE_SMALL_EN);
        final List<float[]> v = bge.embedAll(List.of(
            "I moved to Lisbon last year.", "Last year I relocated to Lisbon.",
            "My favourite food is ramen.", "We adopted a beagle called Toby."));
        final double judge = EngramConfig.defaults().getDouble(DomainConfig.JUDGE_THRESHOLD);
        final double reinforce = EngramConfig.defaults().getDouble(DomainConfig.REINFORCE_THRESHOLD);
        assertThat(scale.similarity(bge.modelName(), Vectors.cosine(v.get(0), v.get(1)))).isGreaterThan(judge);
        assertThat(Vectors.cosine(v.get(2), v.get(3))).isGreaterThan(0.2); // raw: looks related
        assertThat(scale.similarity(bge.modelName(), Vectors.cosine(v.get(2), v.get(3)))).isLessThan(0.2);
        assertThat(scale.similarity(bge.modelName(), Vectors.cosine(v.get(0), v.get(2)))).isLessThan(reinforce);
    }
}
