package dev.engram.scoring;

import static dev.engram.testing.MemoryFixtures.memory;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.SourceRef;
import org.junit.jupiter.api.Test;

class RedundancyTest {

    private static final Instant T0 = Instant.parse("2023-05-08T13:56:00Z");

    private static ScoredMemory hit(final String id, final String content, final double score, final Integer... indexes) {
        final Memory m = memory("t1", "u-mel", id, content, T0)
            .setSources(List.of(SourceRef.newBuilder().setConversationId("locomo:conv-26:session_1")
                .setMessageIndexes(List.of(indexes)).setObservedAt(T0).build()))
            .build();
        return new ScoredMemory(m, score, score, 0, 0.5, 0);
    }

    private static List<String> ids(final List<ScoredMemory> hits) {
        return hits.stream().map(h -> h.memory().getMemoryId()).toList();
    }

    @Test
    void shouldDropATurnEpisodeBelowTheExchangeThatQuotesItAndKeepTheNextHitInstead() {
        final List<ScoredMemory> ranked = List.of(
            hit("exchange", "User: We painted a sunset last weekend! — Assistant: Wow, the colours are lovely.", 0.9, 4, 5),
            hit("turn", "We painted a sunset last weekend! (re: \"What did you paint?\")", 0.8, 4),
            hit("other", "I ran a charity race for mental health.", 0.3, 9));

        assertThat(ids(Redundancy.firstDistinct(ranked, 2))).containsExactly("exchange", "other");
    }

    @Test
    void shouldKeepAHitThatCitesAMessageTheBetterHitDoesNotOrSaysSomethingElse() {
        final List<ScoredMemory> ranked = List.of(
            hit("turn", "We painted a sunset last weekend! (re: \"What did you paint?\")", 0.9, 4),
            // cites message 5 too: below the turn, the exchange still adds the reply
            hit("exchange", "User: We painted a sunset last weekend! — Assistant: Wow, the colours are lovely.", 0.8, 4, 5),
            // the same source message, another statement: a fact from the same sentence stays
            hit("fact", "Paints with her kids", 0.7, 4),
            // the same text from another message (said again later) is its own evidence
            hit("again", "We painted a sunset last weekend!", 0.6, 11));

        assertThat(ids(Redundancy.firstDistinct(ranked, 10))).containsExactly("turn", "exchange", "fact", "again");
    }

    @Test
    void shouldDropAnExactRestatementOfTheSameMessagesAndFoldCaseAndPunctuation() {
        final List<ScoredMemory> ranked = List.of(
            hit("a", "User: Got a new puppy, Max! — Assistant: Congrats!", 0.9, 2, 3),
            hit("b", "got a NEW puppy... max", 0.8, 2));

        assertThat(ids(Redundancy.firstDistinct(ranked, 10))).containsExactly("a");
        assertThat(ids(Redundancy.firstDistinct(List.of(), 3))).isEmpty();
    }
}
