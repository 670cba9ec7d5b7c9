package dev.engram.embedder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;

import dev.engram.port.EmbeddingModels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class OnnxEmbedderTest {

    /** The tolerance stated for grouped vectors (BENCHMARKS.md, "Embedding in groups"): cosine to the one-text vector. */
    private static final double GROUPED_MIN_COSINE = 0.98;

    /** The built-in models as a JUnit source. */
    enum Model {
        BGE_SMALL_EN(OnnxModel.BGE_SMALL_EN), BGE_SMALL_ZH(OnnxModel.BGE_SMALL_ZH), MINILM(OnnxModel.MINILM);

        final OnnxModel spec;

        Model(final OnnxModel spec) {
            this.spec = spec;
        }

        OnnxEmbedder embedder() {
            return OnnxEmbedder.shared(spec);
        }
    }

    @ParameterizedTest
    @EnumSource(Model.class)
    void shouldEmbedNormalizedVectorsOfModelDimension(final Model model) {
        final float[] v = model.embedder().embed("I prefer GCP for my side projects.");
        assertThat(v).hasSize(model.spec.dimensions()).hasSize(model == Model.BGE_SMALL_ZH ? 512 : 384);
        // the size the consolidator checks candidates of this model against, without loading it
        assertThat(EmbeddingModels.dimensions(model.spec.name())).hasValue(v.length);
        assertThat(cosine(v, v)).isCloseTo(1.0, within(1e-3));
    }

    @ParameterizedTest
    @EnumSource(value = Model.class, names = {"BGE_SMALL_EN", "MINILM"})
    void shouldRankParaphraseAboveUnrelatedSentence(final Model model) {
        final List<float[]> v = model.embedder().embedAll(List.of(
            "These days I write almost everything in Kotlin.",
            "Kotlin is my main programming language.",
            "My gym locker code is 4417."));
        assertThat(cosine(v.get(0), v.get(1))).isGreaterThan(cosine(v.get(0), v.get(2)) + 0.1);
    }

    @Test
    void shouldRankChineseParaphraseAboveUnrelatedSentenceWithTheChineseModel() {
        final List<float[]> v = Model.BGE_SMALL_ZH.embedder().embedAll(List.of(
            "我住在北京，在华为工作。", "我在华为上班，家在北京。", "今天的天气很好，我们去公园散步了。"));
        assertThat(cosine(v.get(0), v.get(1))).isGreaterThan(cosine(v.get(0), v.get(2)) + 0.1);
    }

    @ParameterizedTest
    @EnumSource(Model.class)
    void shouldGiveIdenticalVectorsInBatchAndAlone(final Model model) {
        final String text = "Started eating fish again; being vegan wasn't working for me.";
        final float[] alone = model.embedder().embed(text);
        final float[] batched = model.embedder().embedAll(List.of("something else", text, "and more")).get(1);
        assertThat(batched).containsExactly(alone);
    }

    /** A conversation's worth of texts of various lengths (one of them longer than a model window). */
    private static List<String> conversationTexts() {
        final List<String> texts = new java.util.ArrayList<>(List.of(
            "I moved to Berlin last spring.", "My sister Ana works as a nurse in Lisbon.",
            "We adopted a rescue dog called Biscuit; he is scared of thunder but loves the beach.",
            "Kotlin is my main programming language.", "I run every Tuesday.", "Thanks!",
            "Started eating fish again; being vegan wasn't working for me.",
            "My daughter starts school in September and we still have not found a bike she likes.",
            "I prefer GCP for my side projects.", "Work has been hectic since the merger in March.",
            "I'm allergic to peanuts.", "Our team ships a release every other Thursday, which keeps everyone busy."));
        texts.add("I keep a long diary of my travels. ".repeat(120));
        return texts;
    }

    @ParameterizedTest
    @EnumSource(value = Model.class, names = {"BGE_SMALL_EN", "BGE_SMALL_ZH"})
    void shouldGiveTheSameVectorsWhenTheSameTextsAreEmbeddedTogetherAgainInAnyOrder(final Model model) throws Exception {
        final List<String> texts = conversationTexts();
        final List<float[]> first = model.embedder().embedGroup(texts);
        final List<String> reversed = new java.util.ArrayList<>(texts);
        java.util.Collections.reverse(reversed);
        // another group in flight on the same pool meanwhile changes nothing
        final java.util.concurrent.CompletableFuture<List<float[]>> other = java.util.concurrent.CompletableFuture
            .supplyAsync(() -> model.embedder().embedGroup(List.of("Something else entirely.", "And more of it, longer.")));
        final List<float[]> again = model.embedder().embedGroup(reversed);
        other.get();
        for (int i = 0; i < texts.size(); i++) {
            assertThat(again.get(texts.size() - 1 - i)).as(texts.get(i)).containsExactly(first.get(i));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Model.class, names = {"BGE_SMALL_EN", "BGE_SMALL_ZH"})
    void shouldStayWithinTheStatedToleranceOfTheOneTextVectorsWhenEmbeddedInGroups(final Model model) {
        final List<String> texts = model == Model.BGE_SMALL_ZH
            ? List.of("我住在北京，在华为工作。", "我在华为上班，家在北京。", "今天的天气很好，我们去公园散步了。")
            : conversationTexts();
        final List<float[]> grouped = model.embedder().embedGroup(texts);
        boolean anyDiffers = false;
        for (int i = 0; i < texts.size(); i++) {
            final float[] alone = model.embedder().embed(texts.get(i));
            assertThat(cosine(grouped.get(i), alone)).as(texts.get(i)).isGreaterThan(GROUPED_MIN_COSINE);
            assertThat(cosine(grouped.get(i), grouped.get(i))).isCloseTo(1.0, within(1e-3));
            anyDiffers |= !java.util.Arrays.equals(grouped.get(i), alone);
        }
        assertThat(anyDiffers).as("texts were embedded together (a group's quantization scale is its tensor's)").isTrue();
    }

    @Test
    void shouldEmbedEveryTextAloneWhenTheModelIsMiniLm() {
        final OnnxEmbedder minilm = Model.MINILM.embedder();
        final List<String> texts = conversationTexts();
        final List<float[]> grouped = minilm.embedGroup(texts);
        for (int i = 0; i < texts.size(); i++) {
            assertThat(grouped.get(i)).as(texts.get(i)).containsExactly(minilm.embed(texts.get(i)));
        }
    }

    @Test
    void shouldEmbedALongTextAndASingleTextExactlyAsAloneWhenGrouped() {
        final OnnxEmbedder bge = Model.BGE_SMALL_EN.embedder();
        final String longText = conversationTexts().get(conversationTexts().size() - 1);
        assertThat(bge.embedGroup(List.of(longText, "Thanks!", "I run every Tuesday.")).get(0))
            .as("beyond one window: embedded alone, in windows").containsExactly(bge.embed(longText));
        assertThat(bge.embedGroup(List.of("I run every Tuesday.")).get(0)).containsExactly(bge.embed("I run every Tuesday."));
        assertThat(bge.embedGroup(List.of("Same text.", "Same text."))).allSatisfy(v ->
            assertThat(v).containsExactly(bge.embed("Same text.")));
    }

    @Test
    void shouldPrefixQueriesWithTheModelCardInstructionOnlyForBge() {
        final OnnxEmbedder bge = Model.BGE_SMALL_EN.embedder();
        final String question = "Which language does the user program in?";
        assertThat(bge.embedQuery(question)).containsExactly(
            bge.embed("Represent this sentence for searching relevant passages: " + question));
        assertThat(bge.embedQuery(question)).isNotEqualTo(bge.embed(question));
        final OnnxEmbedder minilm = Model.MINILM.embedder();
        assertThat(minilm.embedQuery(question)).containsExactly(minilm.embed(question));
    }

    @Test
    void shouldFindThePassageThatAnswersAQuestion() {
        final OnnxEmbedder bge = Model.BGE_SMALL_EN.embedder();
        final List<float[]> passages = bge.embedAll(List.of(
            "I've been learning to paint landscapes with watercolors.",
            "My sister Maria is moving to Lisbon next month.",
            "We adopted a beagle called Toby last spring."));
        final float[] query = bge.embedQuery("What is the name of the dog?");
        assertThat(cosine(query, passages.get(2)))
            .isGreaterThan(cosine(query, passages.get(0)))
            .isGreaterThan(cosine(query, passages.get(1)));
    }

    @Test
    void shouldRefuseAQueryForAnotherModel() {
        assertThatThrownBy(() -> Model.BGE_SMALL_EN.embedder().embedQuery("q", OnnxModel.MINILM.name()))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(OnnxModel.MINILM.name());
    }

    @Test
    void shouldNameTheKnownModelsForAnUnknownOne() {
        assertThatThrownBy(() -> OnnxEmbedder.shared("e5-large"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("e5-large").hasMessageContaining("bge-small-en-v15-q");
    }

    /** Cosine of two L2-normalized vectors: their dot product. */
    private static double cosine(final float[] a, final float[] b) {
        double dot = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
        }
        return dot;
    }
}
