package dev.engram.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class Utf8TextTest {

    @Test
    void shouldReplaceEachMalformedSequenceAndCountItWhenBytesAreNotUtf8() {
        final byte[] bytes = {'C', 'a', 'f', (byte) 0xE9, ' ', 'o', 'k', (byte) 0xFF, (byte) 0xED, (byte) 0xA0, (byte) 0x80};

        final Utf8Text.Clean clean = Utf8Text.decode(bytes);

        // E9 (a lead byte without its continuation), FF, and the CESU-8 surrogate ED A0 80 (one sequence)
        assertThat(clean.text()).isEqualTo("Caf\uFFFD ok\uFFFD\uFFFD");
        assertThat(clean.replaced()).isEqualTo(3);
    }

    @Test
    void shouldKeepValidTextAsItIsWhenNothingIsBroken() {
        final String text = "Zoë 🌟 北京";

        assertThat(Utf8Text.decode(text.getBytes(StandardCharsets.UTF_8))).isEqualTo(new Utf8Text.Clean(text, 0));
        assertThat(Utf8Text.decode(new byte[0])).isEqualTo(new Utf8Text.Clean("", 0));
        assertThat(Utf8Text.clean(text)).isEqualTo(new Utf8Text.Clean(text, 0));
        assertThat(Utf8Text.clean(null)).isEqualTo(new Utf8Text.Clean(null, 0));
    }

    @Test
    void shouldReplaceLoneSurrogatesAndKeepPairsWhenCleaningAString() {
        final Utf8Text.Clean clean = Utf8Text.clean("a\uD83C b\uDF1F c\uD83C\uDF1F d\uD800");

        assertThat(clean.text()).isEqualTo("a\uFFFD b\uFFFD c\uD83C\uDF1F d\uFFFD");
        assertThat(clean.replaced()).isEqualTo(3);
        assertThat(clean.text().getBytes(StandardCharsets.UTF_8)).isEqualTo(
            "a\uFFFD b\uFFFD c\uD83C\uDF1F d\uFFFD".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldComposeTextAndDropInvisibleCharactersInsideWordsOnly() {
        assertThat(Utf8Text.canonical("I live in Zu\u0308rich.")).isEqualTo("I live in Z\u00fcrich.");
        assertThat(Utf8Text.canonical("I live in Zu\u200Brich.")).isEqualTo("I live in Zurich.");
        assertThat(Utf8Text.canonical("Zu\u2060ri\u00ADch \uFEFFhello")).as("a BOM before a word is not inside one")
            .isEqualTo("Zurich \uFEFFhello");
        assertThat(Utf8Text.canonical("Os\u200Clo")).isEqualTo("Oslo");
        final String persian = "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645";
        assertThat(Utf8Text.canonical(persian)).as("a ZWNJ in Persian is spelling").isEqualTo(persian);
        final String family = "\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67";
        assertThat(Utf8Text.canonical(family)).as("an emoji sequence").isEqualTo(family);
        final String clean = "Zoë 🌟 北京";
        assertThat(Utf8Text.canonical(clean)).isSameAs(clean);
        assertThat(Utf8Text.canonical(null)).isNull();
    }
}
