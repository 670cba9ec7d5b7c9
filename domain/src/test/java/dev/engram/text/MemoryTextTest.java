package dev.engram.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

class MemoryTextTest {

    /** The definition: the {@code (re: "…")} context at the end, with the blanks around it. */
    private static final Pattern CONTEXT = Pattern.compile("\\s*\\(re: \".*\"\\)\\s*$", Pattern.DOTALL);

    private static final List<String> CONTENTS = List.of(
        "Caroline went to a LGBTQ support group on 7 May 2023.",
        "  Melanie paints sunsets.  ",
        "Yes, I did (re: \"Did you go to the concert?\")",
        "Yes, I did (re: \"Did you go to the concert?\")  \n",
        "I said (re: \"no\") and then more",
        "He wrote (re: \"a\nsecond line\")",
        "(re: \"only a context\")",
        "quoted (re: 'single') text",
        "open (re: \"never closed",
        "");

    @Test
    void shouldReadTheOwnWordsAndTheContextAsTheContextPatternDoes() {
        for (final String content : CONTENTS) {
            final var m = CONTEXT.matcher(content);
            final boolean has = m.find();
            assertThat(MemoryText.ownWords(content)).as(content)
                .isEqualTo(CONTEXT.matcher(content).replaceFirst("").strip());
            assertThat(MemoryText.context(content)).as(content).isEqualTo(has ? m.group().strip() : "");
        }
    }

    @Test
    void shouldStripTheContextOfAnExchangeAnswerWhenItHasOne() {
        assertThat(MemoryText.ownWords("Yes, I did (re: \"Did you go?\")")).isEqualTo("Yes, I did");
        assertThat(MemoryText.context("Yes, I did (re: \"Did you go?\")")).isEqualTo("(re: \"Did you go?\")");
        assertThat(MemoryText.ownWords(" Melanie paints. ")).isEqualTo("Melanie paints.");
        assertThat(MemoryText.context("Melanie paints.")).isEmpty();
    }
}
