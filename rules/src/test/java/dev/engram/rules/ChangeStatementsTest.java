package dev.engram.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.engram.port.ExtractedMemory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Changes a user trial (session 15) said in words the rules did not read as one, through the whole
 * {@link RuleBasedExtractor}: a drink given up for another. Each case states the facts the turn gives
 * ({@code key=value}, a retraction as {@code !key=value}).
 */
class ChangeStatementsTest {

    private static List<String> facts(final String text) {
        return TrialStatementsTest.facts(text);
    }

    private static List<String> contents(final String text) {
        return TrialStatementsTest.said(text).stream().filter(ExtractedMemory::isFact).map(ExtractedMemory::content).toList();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I drink coffee every morning.              | preference:coffee=like
        I have a cup of green tea every day.       | preference:green_tea=like
        I only drink tea now.                      | preference:tea=like
        I quit coffee, only tea now.               | avoids:coffee=coffee, preference:tea=like
        I gave up coffee and switched to tea.      | avoids:coffee=coffee, preference:tea=like
        I've quit alcohol.                         | avoids:alcohol=alcohol
        I quit drinking soda, just water now.      | avoids:soda=soda
        """)
    void shouldReadADrinkGivenUpAndTheDrinkTakenUpInItsPlace(final String text, final String expected) {
        assertThat(facts(text)).containsExactlyInAnyOrder(expected.split(",\\s*"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"My wife switched to tea.", "I quit smoking.", "I had a coffee with Tom.",
        "Only tea now, she says.", "I switched to Linear."})
    void shouldStateNoDrinkOfTheUserWhenSomeoneElseDrinksOrNoDrinkIsNamed(final String text) {
        assertThat(facts(text)).noneMatch(f -> f.startsWith("preference:") || f.startsWith("avoids:"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I drink coffee every morning. | Drinks coffee
        I quit coffee, only tea now.  | Drinks tea now
        """)
    void shouldWordADrinkAsTheHabitItIs(final String text, final String content) {
        assertThat(contents(text)).contains(content);
    }
}
