package dev.engram.embedder;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class GroupedInferenceTest {

    /** Texts that exercise the tokenizer: cases, accents, scripts, punctuation, emoji, blanks, beyond one window. */
    private static List<String> texts() {
        final List<String> texts = new ArrayList<>(List.of(" ", "Thanks!", "I moved to Berlin last spring.",
            "ÉCOLE São Paulo Zürich naïve café", "I’m “quoted” — with dashes… and ellipses", "我住在北京，在华为工作。",
            "私は東京に住んでいます", "저는 서울에 살아요", "أعيش في القاهرة", "Tôi sống ở Hà Nội",
            "Emoji 🎉🐶 and symbols ©®™ 42 % 3.14 $99", "  leading and trailing spaces  ", "tab\tand\nnewline",
            "User: I adopted a dog — Assistant: Congratulations! What breed is it? [image: a puppy on a sofa]",
            "ＦＵＬＬＷＩＤＴＨ letters and ﬁ ligatures", "e\u0301 combining accent, zero\u200Bwidth"));
        texts.add("I keep a long diary of my travels. ".repeat(120));
        return texts;
    }

    @ParameterizedTest
    @EnumSource(value = OnnxEmbedderTest.Model.class)
    void shouldTokenizeToTheIdsOfDjlsWholeEncodingForEveryModel(final OnnxEmbedderTest.Model model) {
        final GroupedInference grouped = model.embedder().groupedForTest();
        for (final String text : texts()) {
            assertThat(grouped.tokenize(text).ids()).as(text).containsExactly(grouped.encodedIds(text));
        }
    }

    @ParameterizedTest
    @EnumSource(value = OnnxEmbedderTest.Model.class)
    void shouldPoolTheSameVectorsFromTheThreadsStateBufferAsFromACopyOfTheOutput(final OnnxEmbedderTest.Model model) {
        final GroupedInference grouped = model.embedder().groupedForTest();
        final List<GroupedInference.Tokens> tokens = texts().stream().filter(t -> !t.isBlank()).map(grouped::tokenize)
            .filter(t -> t.ids().length < GroupedInference.MAX_TOKENS).toList();
        // groups of every size up to the largest, then a wider one after them: the thread's buffer is reused and grown
        for (final List<GroupedInference.Tokens> group : List.of(tokens.subList(0, 2), tokens.subList(2, 6),
                tokens.subList(6, 7), tokens.subList(0, tokens.size()), tokens.subList(3, 5))) {
            final Map<String, float[]> pinned = grouped.run(group);
            final Map<String, float[]> copied = grouped.runCopyingStates(group);
            assertThat(pinned).hasSameSizeAs(group).containsOnlyKeys(copied.keySet());
            copied.forEach((text, vector) -> assertThat(pinned.get(text)).as(text).containsExactly(vector));
        }
    }
}
