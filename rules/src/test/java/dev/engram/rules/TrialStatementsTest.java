package dev.engram.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryType;
import dev.engram.avro.Message;
import dev.engram.port.ExtractedMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Statements a fresh user's trial (session 12) read wrongly, through the whole {@link RuleBasedExtractor}: someone
 * else's quoted words, a tool switch said by what it replaced, a rename with the old name, a denial, "still" with an
 * old value, and a fact said beside more. Each case states the facts the turn gives ({@code key=value}, a retraction as
 * {@code !key=value}) and whether the turn is also kept as an episode.
 */
class TrialStatementsTest {

    static List<ExtractedMemory> said(final String text) {
        final Instant t0 = Instant.parse("2025-02-03T09:12:00Z");
        final ConversationCompleted conversation = ConversationCompleted.newBuilder().setTenantId("t1").setUserId("u1")
            .setConversationId("c1").setCompletedAt(t0.plusSeconds(60))
            .setMessages(List.of(new Message(0, "user", text, t0))).build();
        return new RuleBasedExtractor().extract(conversation, null);
    }

    static List<String> facts(final String text) {
        return said(text).stream().filter(ExtractedMemory::isFact)
            .map(m -> (m.negated() ? "!" : "") + m.key() + "=" + m.value()).toList();
    }

    static boolean episode(final String text) {
        return said(text).stream().anyMatch(m -> m.type() == MemoryType.EPISODIC);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"My friend told me: I live in Rome.", "My sister said, \"I'm vegan now.\"",
        "\"I work at Google,\" my neighbour said.", "She says: I'm allergic to peanuts.",
        "Tom wrote: \"I use Emacs every day.\""})
    void shouldStateNoFactOfTheUserWhenTheFirstPersonIsSomeoneElseQuoted(final String text) {
        assertThat(facts(text)).isEmpty();
        assertThat(episode(text)).as("the turn is kept as said").isTrue();
    }

    /**
     * Session 12's leftovers: a quotation over several sentences (each sentence was read alone, so the ones after the
     * first were the user's), a quotation whose speaker comes after it, and indirect speech in the present tense
     * without a colon or quotation mark.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"She said: \"I live in Rome. I love my job. I work at Google.\"",
        "\"I live in Rome. I work at Google,\" she said.", "My brother wrote: \"I'm vegan now. I use Emacs.\"",
        "She says I live in Rome.", "Tom tells me I'm allergic to cats.", "My friend says I'm vegan now."})
    void shouldStateNoFactOfTheUserWhenEverySentenceIsSomeoneElsesWords(final String text) {
        assertThat(facts(text)).isEmpty();
        assertThat(episode(text)).as("the turn is kept as said").isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        She said: "I live in Rome. I love my job." I live in Paris.     | city=Paris
        I told him: "I live in Rome. I work at Google."                 | employer=Google
        "I live in Rome. I work at Google," I told her.                 | employer=Google
        I told him I live in Rome.                                      | city=Rome
        My doctor says I'm allergic to penicillin.                      | allergy:penicillin=penicillin
        She says that my Python is clean. I live in Rome.               | city=Rome
        """)
    void shouldKeepTheUsersOwnWordsAroundAndInTheirOwnQuotations(final String text, final String fact) {
        assertThat(facts(text)).contains(fact);
        assertThat(facts(text)).noneMatch(f -> f.equals("city=Rome") && text.startsWith("She said"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I told him: I live in Rome.                                 | city=Rome
        The doctor said I'm allergic to penicillin.                 | allergy:penicillin=penicillin
        To tell you the truth: I'm vegan.                           | diet=vegan
        I moved from Paris to London.                               | city=London
        """)
    void shouldKeepTheUsersOwnWordsWhenTheyReportOrQuoteThemselves(final String text, final String fact) {
        assertThat(facts(text)).contains(fact);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I use Obsidian now instead of Notion.                 | uses:obsidian=Obsidian, !uses:notion=Notion
        I use Obsidian for notes instead of Notion.           | uses:obsidian=Obsidian, !uses:notion=Notion
        I replaced Notion with Obsidian.                      | uses:obsidian=Obsidian, !uses:notion=Notion
        We swapped Jenkins for GitHub Actions.                | uses:github_actions=GitHub Actions, !uses:jenkins=Jenkins
        I switched from Notion to Obsidian.                   | uses:obsidian=Obsidian, !uses:notion=Notion
        """)
    void shouldRetractTheNamedOldToolWhenTheUserSwitchesTools(final String text, final String expected) {
        assertThat(facts(text)).containsExactlyInAnyOrder(expected.split(",\\s*"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I renamed my dog from Rex to Max.      | pet:rex=Max
        We renamed our cat from Tom to Jerry.  | pet:tom=Jerry
        """)
    void shouldKeyTheNewNameByTheOldOneWhenTheRenameSaysBoth(final String text, final String fact) {
        assertThat(facts(text)).containsExactly(fact);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        Actually I'm not allergic to peanuts, the test was wrong.  | !allergy:peanut=peanut
        I'm not allergic to cats.                                  | !allergy:cat=cat
        I am not vegetarian.                                       | !diet=vegetarian
        I'm not on warfarin.                                       | !medication:warfarin=warfarin
        """)
    void shouldRetractAndStateNothingWhenTheUserDeniesAValue(final String text, final String fact) {
        assertThat(facts(text)).containsExactly(fact);
    }

    /**
     * A fresh user's trial (t14): "I don't have a dog anymore" left "Has a pet dog" current. A pet said without its
     * name that the user no longer has retracts {@code pet:<species>}; someone else's pet, or a named one, does not.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I don't have a dog anymore.              | !pet:dog=dog
        I no longer have a dog.                  | !pet:dog=dog
        We don't own a cat any more.             | !pet:cat=cat
        Our old dog died last winter.            | !pet:dog=dog
        My sister doesn't have a dog anymore.    |
        I don't have a dog named Rex anymore.    |
        """)
    void shouldRetractAnUnnamedPetTheUserNoLongerHas(final String text, final String fact) {
        assertThat(facts(text)).containsExactlyElementsOf(fact == null ? List.of() : List.of(fact));
        assertThat(episode(text)).as("a retraction keeps the user's words").isTrue();
    }

    /**
     * A first message of retractions ("I'm no longer allergic to penicillin. I stopped taking aspirin.") stored
     * nothing: each sentence made a negated fact, which covered it, and the consolidator keeps a negated fact only as
     * the end of one it takes back. A retraction covers no sentence, so the turn is an episode.
     */
    @Test
    void shouldKeepATurnOfRetractionsAsAnEpisode() {
        final String text = "I'm no longer allergic to penicillin. I stopped taking aspirin.";
        assertThat(facts(text)).containsExactly("!allergy:penicillin=penicillin", "!medication:aspirin=aspirin");
        assertThat(episode(text)).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"I still use vim for quick edits though.", "We're still using AWS for the old services."})
    void shouldStateNoOneValueTechFactWhenTheUserStillUsesAnOldOne(final String text) {
        assertThat(facts(text)).noneMatch(f -> f.startsWith("ide=") || f.startsWith("cloud_provider="));
        assertThat(episode(text)).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I live in Lisbon, where I run a small bakery with my sister.  | city=Lisbon                  | true
        As I said before, Kotlin is my main language.                 | preferred_language=Kotlin    | false
        I live in Lisbon.                                             | city=Lisbon                  | false
        """)
    void shouldKeepTheSentenceAsAnEpisodeWhenItSaysMoreThanItsFact(final String text, final String fact,
                                                                   final boolean kept) {
        assertThat(facts(text)).containsExactly(fact);
        assertThat(episode(text)).isEqualTo(kept);
    }
}
