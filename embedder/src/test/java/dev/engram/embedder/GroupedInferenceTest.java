package dev.engram.embedder;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

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
}
