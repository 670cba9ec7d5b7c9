package dev.engram.consolidation;

import static dev.engram.consolidation.TopicListsTest.statement;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.port.MemoryMerger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The text of an observation ({@link Observations#voiced}): each thing said once, a fact told by the user's turn that
 * says it (README trial: "Has a dog named Max. I have a dog named Max.").
 */
class ObservationTextTest {

    @BeforeAll
    static void trustRecords() {
        dev.engram.serde.AvroSerdes.trustGeneratedRecords();
    }

    private static Memory fact(final String id, final String key, final String value, final String content) {
        return statement(id, key, value, "Pet dog", content, "c-1", 0);
    }

    private static Memory said(final String id, final String content, final int hour) {
        return statement(id, null, null, null, content, "c-" + hour, hour);
    }

    @Test
    void shouldLeaveOutAFactWhenAStatementOfTheGroupSaysItInTheUsersWords() {
        final Memory fact = fact("a", "pet:max", "Max", "Has a dog named Max");
        final Memory turn = said("b", "I have a dog named Max.", 0);
        final Memory more = said("c", "Max loves chasing tennis balls at the park.", 1);

        final ObservationText.Voiced voiced = ObservationText.voiced(List.of(fact, turn, more));

        assertThat(voiced.text()).isEqualTo("I have a dog named Max. Max loves chasing tennis balls at the park.");
        assertThat(voiced.statements()).containsExactly(turn, more);
        assertThat(Observations.text(List.of(turn, fact))).isEqualTo("I have a dog named Max.");
    }

    @Test
    void shouldKeepAFactWhenNoStatementSaysAllOfItOrTheOneThatDoesIsNegative() {
        final Memory fact = fact("a", "pet:max", "Max", "Has a dog named Max");
        assertThat(Observations.text(List.of(fact, said("b", "Max loves the park.", 0))))
            .isEqualTo("Has a dog named Max. Max loves the park.");
        assertThat(Observations.text(List.of(fact, said("b", "I never wanted a dog named Max.", 0))))
            .isEqualTo("Has a dog named Max. I never wanted a dog named Max.");
        assertThat(Observations.text(List.of(fact, fact("b", "friend:max", "Max", "Has a friend named Max, a dog lover"))))
            .as("a fact is told by the user's words, not by another fact").contains("Has a dog named Max.");
    }

    @Test
    void shouldKeepAFactWhenTheStatementSayingItIsBeyondTheLengthBound() {
        final Memory fact = fact("a", "pet:max", "Max", "Has a dog named Max");
        final Memory longer = said("b", "x".repeat(MemoryMerger.MAX_CHARS - 40) + ".", 0);
        final Memory turn = said("c", "I have a dog named Max and he is a very good boy.", 1);

        final ObservationText.Voiced voiced = ObservationText.voiced(List.of(fact, longer, turn));

        assertThat(voiced.statements()).containsExactly(fact, longer);
    }
}
