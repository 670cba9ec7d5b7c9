package dev.engram.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

class CaselessPatternTest {

    /** The code points outside ASCII that Unicode case folding relates to an ASCII one, from the JDK's tables. */
    @Test
    void shouldListEveryCodePointWhoseCaseFoldsIntoAscii() {
        final StringBuilder found = new StringBuilder();
        for (int cp = 128; cp <= Character.MAX_CODE_POINT; cp++) {
            final int upper = Character.toUpperCase(cp);
            if (upper < 128 || Character.toLowerCase(cp) < 128 || Character.toLowerCase(upper) < 128) {
                found.appendCodePoint(cp);
            }
        }
        assertThat(found.toString()).isEqualTo(CaselessPattern.FOLDS_TO_ASCII);
        for (int c = 0; c < 128; c++) {
            assertThat(Character.toUpperCase(c)).as("ASCII maps into ASCII").isLessThan(128);
            assertThat(Character.toLowerCase(c)).isLessThan(128);
        }
    }

    @Test
    void shouldMatchEveryAsciiTextAsUnicodeCaseFoldingDoes() {
        final List<String> regexes = List.of("\\bI\\s+(?:love|like)\\s+(\\w+)", "(?-i:\\p{Lu}[\\p{L}'-]*)\\s+is",
            "[a-z]+ing\\b", "[^\\p{L}]+", "\\b(\\w)\\w*\\s+\\1", "(?<![\\p{L}'])(?:i|me|my)(?![\\p{L}'])",
            "caf\u00e9|na\u00efve|stra\u00dfe|\u4f60\u597d|merci|KISS", "[\u00e0-\u00ff]+|[k-s]{2}", "\\p{Ll}+\\p{Lu}");
        final Random random = new Random(42);
        final String alphabet = "aAbBeEiIkKlLmMsSyYzZ '-,.I";
        for (final String regex : regexes) {
            final CaselessPattern pattern = CaselessPattern.compile(regex);
            for (int n = 0; n < 2_000; n++) {
                final StringBuilder text = new StringBuilder();
                for (int i = random.nextInt(24); i > 0; i--) {
                    text.append(alphabet.charAt(random.nextInt(alphabet.length())));
                }
                final String sample = n % 2 == 0 ? text.toString() : "I love skiing, my KISS cafe naive MERCI " + text;
                assertThat(matches(pattern.matcher(sample, true))).as(regex + " on " + sample)
                    .isEqualTo(matches(pattern.pattern().matcher(sample)));
            }
        }
    }

    @Test
    void shouldKeepUnicodeFoldingForAPatternThatNamesACharacterFoldingIntoAscii() {
        // the Kelvin sign folds to k and the long s to s: ASCII folding would miss them in an ASCII text
        for (final String regex : List.of("\u212Aiss", "\u017Fki", "\\u212Aiss", "\\x{17F}ki", "\u0130stanbul")) {
            assertThat(CaselessPattern.asciiSafe(regex)).as(regex).isFalse();
        }
        assertThat(CaselessPattern.compile("\u212Aiss").matcher("kiss").find()).isTrue();
        assertThat(CaselessPattern.compile("\\\\u").matcher("\\U").find()).isTrue();
        assertThat(CaselessPattern.asciiSafe("\\\\u")).as("an escaped backslash, then a u").isTrue();
        assertThat(CaselessPattern.compile("caf\u00e9").matcher("CAF\u00c9").find()).as("not ASCII: Unicode folding").isTrue();
        assertThat(CaselessPattern.compile("x", Pattern.MULTILINE).pattern().flags())
            .isEqualTo(Pattern.MULTILINE | Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    }

    private static List<String> matches(final Matcher m) {
        final List<String> out = new ArrayList<>();
        while (m.find()) {
            final StringBuilder groups = new StringBuilder(m.start() + "-" + m.end());
            for (int g = 1; g <= m.groupCount(); g++) {
                groups.append(' ').append(m.start(g)).append(':').append(m.group(g));
            }
            out.add(groups.toString());
        }
        return out;
    }
}
