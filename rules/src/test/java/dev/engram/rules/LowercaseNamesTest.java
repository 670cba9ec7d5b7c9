package dev.engram.rules;

import static dev.engram.rules.TrialStatementsTest.episode;
import static dev.engram.rules.TrialStatementsTest.facts;
import static dev.engram.rules.TrialStatementsTest.said;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.port.ExtractedMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Session 13's trial: a user who types everything in lower case ("i live in oslo") gave no fact, since the rules read
 * a name as a capitalized word. Through the whole {@link RuleBasedExtractor}: a message with no capital letter but at
 * sentence starts and in "I" (autocorrect) has the name after a cue read as a name, capitalized in the fact; a
 * determiner, pronoun or common noun after the cue is no name; a message with a capital letter inside a sentence is
 * read as before.
 */
class LowercaseNamesTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        i live in oslo                                   | city=Oslo
        i live in oslo.                                  | city=Oslo
        i work at google                                 | employer=Google
        i work for google                                | employer=Google
        my name is tom                                   | name=Tom
        my name's tom                                    | name=Tom
        i live in new york with my wife                  | city=New York
        i've been working at deutsche bank for 3 years   | employer=Deutsche Bank
        we moved to são paulo last year                  | city=São Paulo
        we moved from vienna to graz                     | city=Graz
        i no longer live in oslo                         | !city=Oslo
        i live in oslo and i love skiing                 | city=Oslo
        i work for uber eats part time                   | employer=Uber Eats
        I live in oslo                                   | city=Oslo
        My name is tom. I work at google                 | employer=Google
        We moved to graz last year. I'm happy there      | city=Graz
        """)
    void shouldReadTheNameAfterACueAsANameWhenTheWholeMessageIsLowercase(final String text, final String fact) {
        assertThat(facts(text)).contains(fact);
    }

    @Test
    void shouldCapitalizeTheNameInTheFactsContentButKeepTheEpisodeAsTyped() {
        assertThat(said("i live in oslo")).filteredOn(ExtractedMemory::isFact).singleElement()
            .satisfies(f -> assertThat(f.content()).isEqualTo("Lives in Oslo"));
        assertThat(said("i work at google, it's fun but the commute is long and tiring every single day"))
            .filteredOn(m -> !m.isFact()).allSatisfy(m -> assertThat(m.content()).contains("google").doesNotContain("Google"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"i live in a flat", "i work at home", "i live in the city", "i work at night",
        "i work for myself", "i work for free", "my name is hard to spell", "my name is not important",
        "i live in hope", "i moved to a new place", "i work at a startup", "i work for the government"})
    void shouldReadNoNameWhenADeterminerPronounOrCommonNounFollowsTheCue(final String text) {
        assertThat(facts(text)).noneMatch(f -> f.startsWith("city=") || f.startsWith("employer=") || f.startsWith("name="));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"i live in oslo, said Tom", "My friend Anna says hi. i live in oslo", "I work at IBM in oslo"})
    void shouldReadAsBeforeWhenTheMessageHasACapitalLetterInsideASentence(final String text) {
        assertThat(facts(text)).noneMatch(f -> f.startsWith("city=") || f.startsWith("name="));
    }

    @Test
    void shouldTellAWholeLowercaseMessage() {
        assertThat(LowercaseNames.applies("i live in oslo")).isTrue();
        assertThat(LowercaseNames.applies("I live in oslo")).as("autocorrect's I: the name is still lower case").isTrue();
        assertThat(LowercaseNames.applies("Moved to graz last year. I'm happy! My name is tom")).as("sentence case").isTrue();
        assertThat(LowercaseNames.applies("I live in Oslo")).as("a capital inside a sentence: a name typed capitalized").isFalse();
        assertThat(LowercaseNames.applies("i work at IBM")).isFalse();
        assertThat(LowercaseNames.applies("ok. i live in oslo, In the centre")).isFalse();
        assertThat(LowercaseNames.applies("12:30")).as("no letter").isFalse();
        assertThat(LowercaseNames.capitalized("i live in oslo now")).isEqualTo("i live in Oslo now");
        assertThat(LowercaseNames.capitalized("i like tea")).isEqualTo("i like tea");
        assertThat(episode("i live in a flat near the river and it is lovely")).as("no fact: kept as said").isTrue();
    }
}
