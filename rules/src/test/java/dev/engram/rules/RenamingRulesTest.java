package dev.engram.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.port.ExtractedMemory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Renaming statements (a fresh user's trial): the fact of the new name is keyed by what it replaces, the old name's
 * key or, when no old name is said, the kind's, so the consolidator finds the fact it renames ({@code Renames}); a
 * statement naming two pets, or one name, is no rename.
 */
class RenamingRulesTest {

    private static List<String> facts(final String text) {
        final Instant t0 = Instant.parse("2025-02-03T09:12:00Z");
        final ConversationCompleted conversation = ConversationCompleted.newBuilder().setTenantId("t1").setUserId("u1")
            .setConversationId("c1").setCompletedAt(t0.plusSeconds(60))
            .setMessages(List.of(new Message(0, "user", text, t0))).build();
        return new RuleBasedExtractor().extract(conversation, null).stream().filter(ExtractedMemory::isFact)
            .map(m -> m.key() + "=" + m.value() + "|" + m.content()).toList();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        Correction: my cat's name is Mia, not Luna.          | pet:luna=Mia  | Has a cat named Mia
        Sorry, my dog is actually called Max, not Rex.       | pet:rex=Max   | Has a dog named Max
        My dog is named Max, not Rex.                        | pet:rex=Max   | Has a dog named Max
        We renamed our dog, he is called Max now.            | pet:dog=Max   | Has a dog named Max
        We renamed our dog to Max.                           | pet:dog=Max   | Has a dog named Max
        I renamed my hamster Nibbles.                        | pet:hamster=Nibbles | Has a hamster named Nibbles
        My dog is called Max now.                            | pet:dog=Max   | Has a dog named Max
        My son's name is Jonas, not Jonah.                   | family:son:jonah=Jonas | Has a son named Jonas
        My cat is now called Jerry, not Tom.                 | pet:tom=Jerry | Has a cat named Jerry
        My cat's name is now Jerry, not Tom.                 | pet:tom=Jerry | Has a cat named Jerry
        My dog is now called Max.                            | pet:dog=Max   | Has a dog named Max
        Our cat's name is now Jerry.                         | pet:cat=Jerry | Has a cat named Jerry
        """)
    void shouldKeyTheNewNameByWhatItReplacesWhenTheUserRenamesSomeone(final String text, final String fact,
                                                                      final String content) {
        assertThat(facts(text)).containsExactly(fact + "|" + content);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        My cat Luna and my dog Max are best friends.   | pet:luna=Luna, pet:max=Max
        My cat is called Luna.                         | pet:luna=Luna
        My dog's name is Max.                          | pet:max=Max
        """)
    void shouldKeyEachNameByItselfWhenNothingIsRenamed(final String text, final String expected) {
        assertThat(facts(text)).extracting(f -> f.substring(0, f.indexOf('|')))
            .containsExactlyInAnyOrder(expected.split(",\\s*"));
    }
}
