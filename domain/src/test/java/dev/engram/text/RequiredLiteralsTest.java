package dev.engram.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class RequiredLiteralsTest {

    @Test
    void shouldRequireTheLiteralWordsOfEveryMatch() {
        assertThat(clauses("\\bI\\s+(?:live|reside)\\s+in\\b")).isEqualTo("[[in], [live, reside]]");
        assertThat(clauses("\\b(\\d{1,2}|a|an)\\s+(days?|weeks?)\\s+ago\\b")).isEqualTo("[[ago], [day, week]]");
        assertThat(clauses("go+d")).as("the repeated o between two runs").isEqualTo("[[go], [od]]");
        assertThat(clauses("colou?r|hue")).isEqualTo("[[colo, hue]]");
        assertThat(clauses("a{2,}bc")).isEqualTo("[[abc]]");
        assertThat(clauses("\\QC++\\E\\s+dev")).isEqualTo("[[c++], [dev]]");
        assertThat(clauses("(?<who>ann|bob)\\s+\\k<who>s")).isEqualTo("[[ann, bob]]");
        assertThat(clauses("(?-i:\\p{Lu}\\w+)\\s+Labs")).isEqualTo("[[labs]]");
        assertThat(clauses("我喜欢|我爱")).isEqualTo("[[我喜欢, 我爱]]");
    }

    @Test
    void shouldRequireNothingOfOptionalPartsLookaroundsClassesAndUnreadConstructs() {
        assertThat(clauses("(?:abc|)def")).isEqualTo("[[def]]");
        assertThat(clauses("(?=abc)de")).isEqualTo("[[de]]");
        assertThat(clauses("(?!never)[xy]es")).isEqualTo("[[es]]");
        assertThat(clauses("(?:word\\s+)*")).isEqualTo("[]");
        assertThat(clauses("(?:abc){0,2}")).isEqualTo("[]");
        assertThat(clauses("\\x41bcd")).isEqualTo("[]");
        assertThat(clauses("(?x)ab cd")).as("comments flag: spaces mean nothing").isEqualTo("[]");
        assertThat(clauses("[]ab]cd")).isEqualTo("[]");
        assertThat(clauses("i\\s+am")).as("a single letter says little").isEqualTo("[[am]]");
        assertThat(clauses("i am")).as("a space is a literal").isEqualTo("[[i am]]");
    }

    @Test
    void shouldNeverRejectATextThePatternMatches() {
        final Random random = new Random(7);
        final String alphabet = "abcAB '-\u00e9\u00c9\u212A\u017F";
        int rejected = 0;
        for (int n = 0; n < 3_000; n++) {
            final String regex = alternation(random, 0);
            final CaselessPattern pattern = CaselessPattern.compile(regex);
            for (int t = 0; t < 40; t++) {
                final StringBuilder text = new StringBuilder();
                final boolean ascii = t % 2 == 0;
                for (int i = random.nextInt(16); i > 0; i--) {
                    text.append(alphabet.charAt(random.nextInt(ascii ? 8 : alphabet.length())));
                }
                final CaselessText subject = CaselessText.of(text.toString());
                final boolean found = pattern.pattern().matcher(text).find();
                assertThat(!found || pattern.mayMatch(subject)).as(regex + " on \"" + text + "\"").isTrue();
                rejected += pattern.mayMatch(subject) ? 0 : 1;
            }
        }
        assertThat(rejected).as("the test rejects texts at all").isGreaterThan(1_000);
    }

    private static String alternation(final Random random, final int depth) {
        final StringBuilder out = new StringBuilder(concatenation(random, depth));
        for (int i = random.nextInt(3); i > 0 && depth < 3; i--) {
            out.append('|').append(concatenation(random, depth));
        }
        return out.toString();
    }

    private static String concatenation(final Random random, final int depth) {
        final List<String> quantifiers = List.of("", "", "", "?", "*", "+", "{2}", "{0,2}", "{1,3}?", "++");
        final StringBuilder out = new StringBuilder();
        for (int i = 1 + random.nextInt(5); i > 0; i--) {
            final int kind = random.nextInt(depth < 3 ? 12 : 8);
            out.append(switch (kind) {
                case 0, 1, 2, 3 -> String.valueOf("abcAB '\u00e9".charAt(random.nextInt(8)));
                case 4 -> List.of("\\s", "\\b", "\\w", "\\-", ".", "\\p{L}").get(random.nextInt(6));
                case 5 -> List.of("[ab]", "[^a]", "[a-c&&[^b]]", "[\\]a]", "(?<=a\\b)", "(?<!\\w)").get(random.nextInt(6));
                case 6 -> "\\Qa-b\\E";
                case 7 -> "(?i)";
                case 8 -> "(?:" + alternation(random, depth + 1) + ")";
                case 9 -> "(" + alternation(random, depth + 1) + ")";
                case 10 -> List.of("(?=", "(?!", "(?-i:").get(random.nextInt(3)) + concatenation(random, depth + 1) + ")";
                default -> "(?-i:" + alternation(random, depth + 1) + ")";
            });
            if (kind != 4 && kind != 7 && kind != 10) {
                out.append(quantifiers.get(random.nextInt(quantifiers.size())));
            }
        }
        return out.toString();
    }

    private static String clauses(final String regex) {
        return Arrays.deepToString(RequiredLiterals.of(regex));
    }
}
