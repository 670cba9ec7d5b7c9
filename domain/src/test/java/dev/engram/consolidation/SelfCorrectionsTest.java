package dev.engram.consolidation;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which sentences correct which values ({@link SelfCorrections}): a value named as replaced, or one typing error away
 * when none is named; never a statement that only looks like one.
 */
class SelfCorrectionsTest {

    private static boolean corrects(final String statement, final String value) {
        return SelfCorrections.said(statement).stream().anyMatch(s -> SelfCorrections.corrects(s, value));
    }

    @ParameterizedTest(name = "{0} corrects {1}")
    @CsvSource(delimiter = '|', textBlock = """
        I meant Lisbon, not Lisbn.                 | Lisbn
        I meant Lisbon not Porto.                  | Porto
        Sorry, I meant Lisbon.                     | Lisbn
        I meant to say Lisbon instead of Lisbn!    | Lisbn
        Sorry, Lisbon, not Lisbn.                  | Lisbn
        It was late. Oops, I meant Barcelona.      | Barcleonna
        I mean Initech, not Initek.                | Initek
        I'm 41. Sorry, I meant 42.                 | 41
        Sorry, 42, not 41.                         | 41
        """)
    void shouldCorrectTheValueWhenTheUserSaysWhatTheyMeant(final String statement, final String value) {
        assertThat(corrects(statement, value)).isTrue();
    }

    @ParameterizedTest(name = "{0} leaves {1}")
    @CsvSource(delimiter = '|', textBlock = """
        Sorry, I meant Lisbon.                     | Porto
        I meant Lisbon, not Lisbn.                 | Porto
        I meant Lisbon.                            | Lisbon
        I'm vegan, not vegetarian.                 | vegetarian
        I meant it, not the other thing.           | the other thing
        I meant to call you yesterday.             | Lisbn
        I live in Lisbon, not far from the sea.    | the sea
        Sorry, I meant 42.                         | 35
        Sorry, I meant 42.                         | 142a
        Sorry, I meant 4.                          | Lisbn
        """)
    void shouldLeaveTheValueWhenTheSentenceCorrectsAnotherOrNone(final String statement, final String value) {
        assertThat(corrects(statement, value)).isFalse();
    }

    @ParameterizedTest(name = "{0} over {1} is {2}")
    @CsvSource(delimiter = '|', textBlock = """
        lisbon     | Lisbn  | Lisbon
        new york   | Nwe York | New York
        Lisbon     | lisbn  | Lisbon
        """)
    void shouldKeepANameCapitalizedWhenTheCorrectionIsTypedInLowerCase(final String said, final String old,
                                                                        final String expected) {
        assertThat(SelfCorrections.cased(said, old)).isEqualTo(expected);
    }
}
