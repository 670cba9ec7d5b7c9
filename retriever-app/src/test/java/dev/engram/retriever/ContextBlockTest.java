package dev.engram.retriever;

import static dev.engram.testing.MemoryFixtures.fact;
import static dev.engram.testing.MemoryFixtures.memory;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryType;
import dev.engram.port.ExtractedMemory;
import dev.engram.scoring.ScoredMemory;
import org.junit.jupiter.api.Test;

class ContextBlockTest {

    private static final Instant T0 = Instant.parse("2025-04-01T07:00:00Z");

    private static ScoredMemory hit(final Memory m, final double score) {
        return new ScoredMemory(m, score, 0, 0, 0, 0);
    }

    private final List<ScoredMemory> hits = List.of(
        hit(memory("t1", "u", "e1", "Asked about the gym locker", T0).build(), 0.9),
        hit(fact("t1", "u", "f1", FactCategory.TECHNICAL, "preferred_language", "Kotlin", "Prefers Kotlin", T0), 0.8),
        hit(Memory.newBuilder(memory("t1", "u", "p1", "Wants short answers", T0).build())
            .setType(MemoryType.PROCEDURAL).build(), 0.7),
        hit(fact("t1", "u", "f2", FactCategory.PERSONAL, "city", "Lisbon", "Lives in Lisbon", T0), 0.6));

    @Test
    void shouldGroupByTypeAndCategoryInAFixedOrderWhenTheBudgetIsAmple() {
        final ContextBlock.Result result = ContextBlock.build(hits, 1000);
        assertThat(result.text()).isEqualTo("""
            Known facts about the user:
            ## TECHNICAL
            - Prefers Kotlin
            ## PERSONAL
            - Lives in Lisbon
            How the user wants to be served:
            - Wants short answers
            Relevant past conversations:
            ## 2025-04-01
            - Asked about the gym locker
            """);
        assertThat(result.included()).containsExactly("e1", "f1", "p1", "f2");
        assertThat(result.estimatedTokens()).isEqualTo((result.text().length() + 3) / 4);
    }

    @Test
    void shouldPutPinnedMemoriesFirstAndNotRepeatThemWhenTheRankingAlsoFoundThem() {
        final Memory allergy = fact("t1", "u", "s1", FactCategory.CONSTRAINT, "allergy:shellfish", "shellfish",
            "Is allergic to shellfish", T0);
        final List<ScoredMemory> ranked = new java.util.ArrayList<>(hits);
        ranked.add(hit(allergy, 0.1));
        final ContextBlock.Result result = ContextBlock.build(List.of(allergy), ranked, 22);
        assertThat(result.included()).as("the pinned fact first, whatever its rank; then the best that fit")
            .startsWith("s1").doesNotHaveDuplicates();
        assertThat(result.text()).startsWith("Known facts about the user:\n## CONSTRAINT\n- Is allergic to shellfish\n");
        assertThat(result.estimatedTokens()).isLessThanOrEqualTo(22);
    }

    @Test
    void shouldHeadAFactOfTheTenantsOwnCategoryWithItsNameWhenItHasOne() {
        final Memory dose = Memory.newBuilder(fact("health", "u", "f9", FactCategory.CONTEXT, "medications:amlodipine",
            "I take 5 mg of amlodipine daily", "I take 5 mg of amlodipine daily", T0)).setCategory(null)
            .setCustomCategory("medications").build();

        final ContextBlock.Result result = ContextBlock.build(List.of(hit(dose, 0.9), hits.get(3)), 1000);

        assertThat(result.text()).startsWith("""
            Known facts about the user:
            ## medications
            - I take 5 mg of amlodipine daily
            ## PERSONAL
            - Lives in Lisbon
            """);
        assertThat(ApiViews.MemoryView.of(dose).category()).isEqualTo("medications");
    }

    @Test
    void shouldKeepTheBestMemoriesWithinTheBudgetWhenItIsTight() {
        final ContextBlock.Result result = ContextBlock.build(hits, 20);
        assertThat(result.estimatedTokens()).isLessThanOrEqualTo(20);
        assertThat(result.included()).startsWith("e1").doesNotContain("f2");
    }

    @Test
    void shouldWriteEachDayOnceAndLeaveOutWhatTheBlockAlreadySays() {
        final Instant t1 = T0.plusSeconds(86_400);
        final List<ScoredMemory> episodes = List.of(
            hit(memory("t1", "u", "x1", "Asked for painters; the assistant recommended Monet and Turner.", T0).build(), 0.9),
            hit(memory("t1", "u", "x2", "The assistant recommended Monet and Turner", T0).build(), 0.8),
            hit(memory("t1", "u", "x3", "Went to the Tate to see the Turners", T0).build(), 0.7),
            hit(memory("t1", "u", "x4", "Booked a pottery class", t1).build(), 0.6));
        final ContextBlock.Result result = ContextBlock.build(episodes, 1000);
        assertThat(result.text()).isEqualTo("""
            Relevant past conversations:
            ## 2025-04-01
            - Asked for painters; the assistant recommended Monet and Turner.
            - Went to the Tate to see the Turners
            ## 2025-04-02
            - Booked a pottery class
            """);
        assertThat(result.included()).containsExactly("x1", "x3", "x4");
    }

    @Test
    void shouldLeaveOutTheQuestionALongTurnAnsweredButKeepItForAShortOne() {
        final String long_ = "We went camping at the beach with the kids and roasted marshmallows by the fire";
        final List<ScoredMemory> episodes = List.of(
            hit(memory("t1", "u", "e1", long_ + " (re: \"What did you do last weekend with your family?\")", T0).build(), 0.9),
            hit(memory("t1", "u", "e2", "Luna and Oliver! (re: \"How are your pets?\")", T0).build(), 0.8));
        final ContextBlock.Result result = ContextBlock.build(episodes, 1000);
        assertThat(result.text()).isEqualTo("Relevant past conversations:\n## 2025-04-01\n- " + long_
            + "\n- Luna and Oliver! (re: \"How are your pets?\")\n");
        assertThat(result.included()).containsExactly("e1", "e2");
    }

    @Test
    void shouldReplaceALineWithTheLaterMemoryThatQuotesItAndTellBothWhenItFits() {
        final List<ScoredMemory> episodes = List.of(
            hit(memory("t1", "u", "e1", "We adopted a second cat, a tabby called Miso, from the shelter on Saturday", T0).build(), 0.9),
            hit(memory("t1", "u", "e2", "Booked a pottery class", T0).build(), 0.8),
            hit(memory("t1", "u", "x1", "User: We adopted a second cat, a tabby called Miso, from the shelter on Saturday"
                + " — Assistant: Tabbies are playful; give Miso a separate bowl at first.", T0)
                .setDisplayName(ExtractedMemory.EXCHANGE_REPLY).build(), 0.7));
        final ContextBlock.Result result = ContextBlock.build(episodes, 1000);
        assertThat(result.text()).isEqualTo("""
            Relevant past conversations:
            ## 2025-04-01
            - Booked a pottery class
            - User: We adopted a second cat, a tabby called Miso, from the shelter on Saturday — Assistant: Tabbies are \
            playful; give Miso a separate bowl at first.
            """);
        assertThat(result.included()).containsExactly("e1", "e2", "x1");
    }

    @Test
    void shouldKeepAnOutdatedMemoryUnderEarlierWhenACurrentLineLaterQuotesIt() {
        final Memory old = memory("t1", "u", "o1", "I live in Lisbon and cycle to work every day along the river", T0)
            .setValidTo(T0.plusSeconds(30 * 86_400)).build();
        final Memory current = memory("t1", "u", "c1", "I live in Lisbon and cycle to work every day along the river,"
            + " said before the move", T0).build();
        final ContextBlock.Result result = ContextBlock.build(List.of(hit(old, 0.9), hit(current, 0.8)), 1000);
        assertThat(result.text()).as("a value that stopped being true is never told as current only")
            .contains("Earlier, no longer current:\n- I live in Lisbon and cycle to work every day along the river"
                + " (2025-04-01 until 2025-05-01)");
        assertThat(result.included()).containsExactly("o1", "c1");
    }

    @Test
    void shouldTellWhatAChangeDidNotReachAsCurrentAndTheWholeMemoryAsPast() {
        final String said = "User: I love sushi, any good places in Lisbon? \u2014 Assistant: Try Sushi Caf\u00e9 Avenida.";
        final Memory sushi = memory("t1", "u", "x1", said, T0).setDisplayName(ExtractedMemory.EXCHANGE_RECOMMENDATION)
            .setValidTo(T0.plusSeconds(30 * 86_400)).setOutdatedValues(List.of("Lisbon")).build();
        final Memory whole = memory("t1", "u", "e1", "I live in Lisbon and cycle to work.", T0)
            .setValidTo(T0.plusSeconds(30 * 86_400)).setOutdatedValues(List.of("Lisbon")).build();

        final ContextBlock.Result result = ContextBlock.build(List.of(hit(sushi, 0.9), hit(whole, 0.8)), 1000);

        assertThat(result.text()).isEqualTo("Relevant past conversations:\n## 2025-04-01\n- I love sushi.\n"
            + "Earlier, no longer current:\n- " + said + " (2025-04-01 until 2025-05-01)\n"
            + "- I live in Lisbon and cycle to work. (2025-04-01 until 2025-05-01)\n");
        assertThat(result.included()).containsExactly("x1", "e1");
    }

    @Test
    void shouldLeaveOutSmallTalkAndTheAssistantsQuestionsButKeepAYesOrANo() {
        final List<ScoredMemory> episodes = List.of(
            hit(memory("t1", "u", "e1", "Hi Mel! Thanks so much. Nope. I never went back to the studio after the"
                + " fire (re: \"Did you ever go back?\")", T0).build(), 0.9),
            hit(memory("t1", "u", "x1", "User: Hey! I finished the marathon in Berlin in under four hours — Assistant:"
                + " Wow, amazing! Berlin is flat and fast, a good course for a first race. How did your knees hold up?", T0)
                .setDisplayName(ExtractedMemory.EXCHANGE_REPLY).build(), 0.8));
        final ContextBlock.Result result = ContextBlock.build(episodes, 1000);
        assertThat(result.text()).isEqualTo("""
            Relevant past conversations:
            ## 2025-04-01
            - Nope. I never went back to the studio after the fire (re: "Did you ever go back?")
            - User: I finished the marathon in Berlin in under four hours — Assistant: Berlin is flat and fast, a good \
            course for a first race.
            """);
    }

    /** A long line (an observation of many statements) ranked just above three short ones. */
    private static List<ScoredMemory> longAboveShort(final double longScore, final double shortScore) {
        final String statements = String.join(" ", java.util.Collections.nCopies(12,
            "Went camping in the forest with the kids and slept in the new green tent."));
        return List.of(
            hit(memory("t1", "u", "o1", statements, T0).setType(MemoryType.SEMANTIC)
                .setDisplayName(ExtractedMemory.OBSERVATION_DISPLAY_NAME).build(), longScore),
            hit(fact("t1", "u", "f1", FactCategory.PERSONAL, "city", "Lisbon", "Lives in Lisbon", T0), shortScore),
            hit(fact("t1", "u", "f2", FactCategory.PERSONAL, "pet:dog", "Max", "Has a dog named Max", T0), shortScore),
            hit(fact("t1", "u", "f3", FactCategory.ROLE, "job", "nurse", "Works as a nurse", T0), shortScore));
    }

    @Test
    void shouldPackSeveralShortLinesInsteadOfALongOneJustAboveThemWhenTheyDoNotAllFit() {
        final List<ScoredMemory> ranked = longAboveShort(0.50, 0.45);
        final int all = ContextBlock.build(ranked, 10_000).estimatedTokens();
        final int longAlone = ContextBlock.build(ranked.subList(0, 1), 10_000).estimatedTokens();

        final ContextBlock.Result tight = ContextBlock.build(ranked, all - 1);

        assertThat(longAlone).as("the long line alone fits the budget").isLessThan(all - 1);
        assertThat(tight.included()).as("three short lines hold more per token than the long one ranked just above")
            .containsExactly("f1", "f2", "f3");
        assertThat(tight.text()).startsWith("Known facts about the user:\n## PERSONAL\n- Lives in Lisbon\n- Has a dog named Max\n");
        assertThat(ContextBlock.build(ranked, all).included()).as("room for all: all, in rank order")
            .containsExactly("o1", "f1", "f2", "f3");
    }

    @Test
    void shouldKeepALongLineBeforeShortOnesWhenItIsMuchMoreRelevant() {
        final List<ScoredMemory> ranked = longAboveShort(0.90, 0.20);
        final int longAlone = ContextBlock.build(ranked.subList(0, 1), 10_000).estimatedTokens();

        assertThat(ContextBlock.build(ranked, longAlone).included()).as("relevance still leads").containsExactly("o1");
    }

    @Test
    void shouldBeEmptyWhenNothingFits() {
        final ContextBlock.Result result = ContextBlock.build(hits, 1);
        assertThat(result.text()).isEmpty();
        assertThat(result.included()).isEmpty();
        assertThat(result.estimatedTokens()).isZero();
    }

    @Test
    void shouldEstimateFourCharactersPerToken() {
        assertThat(ContextBlock.estimateTokens("")).isZero();
        assertThat(ContextBlock.estimateTokens("abcd")).isEqualTo(1);
        assertThat(ContextBlock.estimateTokens("abcde")).isEqualTo(2);
    }
}
