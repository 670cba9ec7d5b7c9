package dev.engram.scoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;

import org.junit.jupiter.api.Test;

class Bm25Test {

    @Test
    void shouldLowerCaseSplitAndDropStopwordsWhenTokenizing() {
        assertThat(Bm25.tokenize("My gym locker code is 4417.")).containsExactly("gym", "locker", "code", "4417");
        assertThat(Bm25.tokenize("What was my LOCKER-code again?")).containsExactly("locker", "code");
        assertThat(Bm25.tokenize("Moved to São Paulo")).containsExactly("move", "são", "paulo");
        assertThat(Bm25.tokenize(null)).isEmpty();
    }

    @Test
    void shouldStemSuffixesWhenTokenizing() {
        // Lucene's PorterStemFilter (Porter 1980): plurals and -ed/-ing forms meet their stem
        assertThat(Bm25.tokenize("codes glass lockers recommended painting"))
            .containsExactly("code", "glass", "locker", "recommend", "paint");
    }

    @Test
    void shouldScoreZeroWhenNoQueryTermOccurs() {
        final Bm25 index = Bm25.index(List.of("Likes chess", "Lives in Lisbon"));
        assertThat(index.scores("locker code")).containsExactly(0.0, 0.0);
    }

    @Test
    void shouldMatchTheOkapiFormulaWhenOneTermOccursOnce() {
        // N = 2, df(locker) = 1: idf = ln(1 + 1.5/1.5) = ln 2; |d| = 4, avgdl = (4 + 2) / 2 = 3
        final Bm25 index = Bm25.index(List.of("My gym locker code is 4417.", "Likes chess"));
        final double idf = Math.log(2);
        final double expected = idf * 1 * (Bm25.K1 + 1) / (1 + Bm25.K1 * (1 - Bm25.B + Bm25.B * 4 / 3.0));
        assertThat(index.scores("locker")[0]).isCloseTo(expected, within(1e-12));
        assertThat(index.scores("locker")[1]).isZero();
    }

    @Test
    void shouldRankRarerTermsHigherWhenDocumentsShareCommonOnes() {
        final Bm25 index = Bm25.index(List.of("uses kotlin at work", "uses java at work", "uses python at home"));
        final double[] scores = index.scores("kotlin work");
        assertThat(scores[0]).isGreaterThan(scores[1]);
        assertThat(scores[1]).isGreaterThan(scores[2]);
        assertThat(scores[2]).isZero();
    }

    @Test
    void shouldPreferShorterDocumentsWhenTermFrequencyIsEqual() {
        final Bm25 index = Bm25.index(List.of("kotlin", "kotlin plus many other unrelated words here", "java"));
        final double[] scores = index.scores("kotlin");
        assertThat(scores[0]).isGreaterThan(scores[1]);
    }
}
