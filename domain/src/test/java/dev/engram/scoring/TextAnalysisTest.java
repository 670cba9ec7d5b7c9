package dev.engram.scoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The Lucene analyzer chain of BM25, on the languages the design names. */
class TextAnalysisTest {

    @Test
    void shouldSplitChineseIntoBigramsSoAChineseQuestionMeetsTheMemoryWhenBothAreChinese() {
        assertThat(TextAnalysis.terms("我住在北京，在华为工作。"))
            .containsExactly("我住", "住在", "在北", "北京", "在华", "华为", "为工", "工作");
        final Bm25 index = Bm25.index(List.of("我住在北京，在华为工作。", "我喜欢打篮球"));
        final double[] scores = index.scores("你在哪里工作？");
        assertThat(scores[0]).isPositive();
        assertThat(scores[1]).isZero();
        assertThat(index.scores("北京")[0]).isPositive();
    }

    @Test
    void shouldBigramJapaneseAndKoreanWhenTokenizing() {
        assertThat(TextAnalysis.terms("東京に住んでいます")).contains("東京");
        // a Hangul word with its particle still shares the bigram of the bare noun
        assertThat(TextAnalysis.terms("서울에 살아요")).contains("서울");
        assertThat(Bm25.index(List.of("저는 서울에 살아요", "커피를 좋아해요")).scores("서울 어디")[0]).isPositive();
    }

    @Test
    void shouldNormaliseArabicAndFoldItsDigitsWhenTokenizing() {
        // alef with hamza folds to bare alef; Arabic-Indic digits to ASCII
        assertThat(TextAnalysis.terms("أحمد ٤٤١٧")).containsExactly("احمد", "4417");
        assertThat(Bm25.index(List.of("أعيش في القاهرة")).scores("القاهرة")[0]).isPositive();
    }

    @Test
    void shouldKeepVietnameseDiacriticsAndFoldFullWidthLatinWhenTokenizing() {
        assertThat(TextAnalysis.terms("Tôi sống ở Hà Nội")).containsExactly("tôi", "sống", "ở", "hà", "nội");
        assertThat(TextAnalysis.terms("ＫＯＴＬＩＮ")).containsExactly("kotlin");
    }

    @Test
    void shouldDropEnglishStopwordsPossessivesAndSuffixesWhenTokenizing() {
        assertThat(TextAnalysis.terms("What was Caroline's LOCKER-codes again?")).containsExactly("carolin", "locker", "code");
        assertThat(TextAnalysis.terms("the albums you recommended")).isEqualTo(TextAnalysis.terms("albums recommended"));
        assertThat(TextAnalysis.terms("painting")).isEqualTo(TextAnalysis.terms("paints"));
        assertThat(TextAnalysis.terms(null)).isEmpty();
        assertThat(TextAnalysis.terms("")).isEmpty();
    }
}
