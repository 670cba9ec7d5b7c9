package dev.engram.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.port.ExtractedMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ExchangesTest {

    private static ConversationCompleted conversation(final String... roleAndText) {
        return RuleBasedExtractorTest.conversation(roleAndText);
    }

    private static List<String> exchanges(final ConversationCompleted conversation) {
        return new RuleBasedExtractor().extract(conversation, null).stream()
            .filter(m -> ExtractedMemory.isExchange(m.displayName())).map(ExtractedMemory::content).toList();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "Oh nice, so you live in Hamburg now?",
        "Great that you're in Hamburg now.",
        "Since you moved to Hamburg, the Elbphilharmonie is close.",
        "You are now living in Hamburg, lucky you.",
        "Sounds like you work at SAP these days.",
        "So you\u2019re based in Munich."})
    void shouldTakeASentenceTellingTheUserWhereTheyLiveOrWorkAsAClaim(final String sentence) {
        assertThat(Exchanges.claimsAboutUser(sentence)).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "Do you live in Hamburg?",
        "Where do you work these days?",
        "If you moved to Hamburg, you would need a flat.",
        "You could try the Elbphilharmonie in Hamburg.",
        "You are in for a treat.",
        "I live in Hamburg myself."})
    void shouldTakeNoQuestionSuppositionOrRecommendationAsAClaim(final String sentence) {
        assertThat(Exchanges.claimsAboutUser(sentence)).isFalse();
    }

    @Test
    void shouldLeaveAnUnconfirmedClaimOutOfTheExchangeAndKeepTheRestOfTheReply() {
        final List<String> corrected = exchanges(conversation(
            "user", "Any ideas for a rainy weekend?",
            "assistant", "Oh nice, so you live in Hamburg now! You could try the Miniatur Wunderland, it is great on rainy days.",
            "user", "No, I still live in Berlin."));
        assertThat(corrected).singleElement().asString()
            .contains("Miniatur Wunderland").doesNotContain("live in Hamburg");

        final List<String> ignored = exchanges(conversation(
            "user", "Any ideas for a rainy weekend?",
            "assistant", "Since you moved to Hamburg, you could try the Miniatur Wunderland on rainy days."));
        assertThat(ignored).as("the claim was the whole reply").isEmpty();
    }

    @Test
    void shouldKeepAClaimTheUserConfirms() {
        assertThat(exchanges(conversation(
            "user", "Any ideas for a rainy weekend?",
            "assistant", "So you live in Hamburg now! You could try the Miniatur Wunderland, it is great on rainy days.",
            "user", "Yes, since May. I will try it.")))
            .singleElement().asString().contains("So you live in Hamburg now!").contains("Miniatur Wunderland");
    }
}
