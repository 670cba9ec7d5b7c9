package dev.engram.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import org.junit.jupiter.api.Test;

class TurnHeuristicsWordsTest {

    @Test
    void shouldCountAsciiWordsAsTheSplitDoes() {
        final Random random = new Random(11);
        final String alphabet = "aZ09' -,.!?_\t\n\"()[]:;/&";
        for (int n = 0; n < 20_000; n++) {
            final StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(30); i > 0; i--) {
                text.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            assertThat(TurnHeuristics.asciiWords(text.toString())).as(text.toString())
                .isEqualTo(TurnHeuristics.wordUnitsOfAnyScript(text.toString()));
        }
        for (int c = 0; c < 128; c++) {
            final String one = "x" + (char) c + "y";
            assertThat(TurnHeuristics.asciiWords(one)).as("character " + c).isEqualTo(TurnHeuristics.wordUnitsOfAnyScript(one));
        }
    }

    @Test
    void shouldCountUnspacedLettersInPairs() {
        assertThat(TurnHeuristics.wordUnits("我喜欢看电影")).isEqualTo(3);
        assertThat(TurnHeuristics.wordUnits("I'm from Cork, 2 cats")).isEqualTo(5);
    }
}
