package dev.engram.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryType;
import dev.engram.core.TestMemories;
import org.junit.jupiter.api.Test;

/** The kind prior's configuration text and the kinds it names. */
class KindPriorTest {

    @Test
    void shouldParseTheDefaultPriorAndGiveZeroToAKindLeftOut() {
        final KindPrior prior = KindPrior.parse("observation:2.3, summary:1.4 ,FACT:0.3");

        assertThat(prior.offset(MemoryKind.OBSERVATION)).isEqualTo(2.3);
        assertThat(prior.offset(MemoryKind.SUMMARY)).isEqualTo(1.4);
        assertThat(prior.offset(MemoryKind.FACT)).isEqualTo(0.3);
        assertThat(prior.offset(MemoryKind.STATEMENT)).isZero();
        assertThat(prior).hasToString(
            "statement:0.00,reply:0.00,recommendation:0.00,summary:1.40,fact:0.30,observation:2.30");
        final KindPrior again = KindPrior.parse(prior.toString());
        for (final MemoryKind kind : MemoryKind.values()) {
            assertThat(again.offset(kind)).as("round trip of " + kind).isEqualTo(prior.offset(kind));
        }
        assertThat(KindPrior.parse("  ")).isSameAs(KindPrior.NONE);
        assertThat(KindPrior.parse(null)).isSameAs(KindPrior.NONE);
    }

    @Test
    void shouldRefuseAnEntryThatIsNotAKnownKindWithAFiniteNumberOnce() {
        assertThatThrownBy(() -> KindPrior.parse("observation")).hasMessage("expected kind:log-odds, got 'observation'");
        assertThatThrownBy(() -> KindPrior.parse("anecdote:1")).hasMessageStartingWith("unknown memory kind 'anecdote'")
            .hasMessageContaining("observation");
        assertThatThrownBy(() -> KindPrior.parse("fact:high")).hasMessage("not a number for fact: 'high'");
        assertThatThrownBy(() -> KindPrior.parse("fact:NaN")).hasMessageStartingWith("not a finite number for fact");
        assertThatThrownBy(() -> KindPrior.parse("fact:1,Fact:2")).hasMessage("names fact twice");
    }

    @Test
    void shouldTellAMemorysKindFromItsTypeAndDisplayName() {
        final Memory episode = TestMemories.memory();

        assertThat(MemoryKind.of(episode)).isEqualTo(MemoryKind.STATEMENT);
        assertThat(MemoryKind.of(MemoryType.EPISODIC, ExtractedMemory.SUMMARY_DISPLAY_NAME)).isEqualTo(MemoryKind.SUMMARY);
        assertThat(MemoryKind.of(MemoryType.EPISODIC, ExtractedMemory.EXCHANGE_REPLY)).isEqualTo(MemoryKind.REPLY);
        assertThat(MemoryKind.of(MemoryType.EPISODIC, ExtractedMemory.EXCHANGE_RECOMMENDATION))
            .isEqualTo(MemoryKind.RECOMMENDATION);
        assertThat(MemoryKind.of(MemoryType.SEMANTIC, "Employer")).isEqualTo(MemoryKind.FACT);
        assertThat(MemoryKind.of(MemoryType.SEMANTIC, ExtractedMemory.OBSERVATION_DISPLAY_NAME))
            .isEqualTo(MemoryKind.OBSERVATION);
        assertThat(MemoryKind.named(" Reply ")).isEqualTo(MemoryKind.REPLY);
    }
}
