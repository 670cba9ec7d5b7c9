package dev.engram.consolidation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.avro.Message;
import dev.engram.port.ExtractedMemory;
import org.junit.jupiter.api.Test;

class EchoesTest {

    private static final Instant T0 = Instant.parse("2024-01-15T09:00:00Z");

    private static ConversationCompleted conversation(final String... userThenAssistant) {
        final List<Message> messages = new java.util.ArrayList<>();
        for (int i = 0; i < userThenAssistant.length; i++) {
            messages.add(new Message(i, i % 2 == 0 ? "user" : "assistant", userThenAssistant[i], T0.plusSeconds(30L * i)));
        }
        return ConversationCompleted.newBuilder().setTenantId("t1").setUserId("u1").setConversationId("c1")
            .setMessages(messages).setCompletedAt(T0.plusSeconds(300)).build();
    }

    private static ExtractedMemory fact(final String key, final String value, final String content,
                                        final Integer... evidence) {
        return new ExtractedMemory(MemoryType.SEMANTIC, FactCategory.PERSONAL, key, value, null, content, false, 0.7, 0.9,
            MemorySource.EXPLICIT, List.of(evidence), T0);
    }

    @Test
    void shouldDropAFactWhoseValueOnlyTheAssistantsEchoNamesWhenAModelCitesTheUsersTurnBesideIt() {
        final ConversationCompleted c = conversation("Can you plan my meals for the week?",
            "As you told me, you're vegetarian and live in Paris, so I picked dishes from Paris markets.");
        final ExtractedMemory paris = fact("city", "Paris", "Lives in Paris", 0, 1);
        final ExtractedMemory onlyTheEcho = fact("diet", "vegetarian", "Is vegetarian", 1);

        assertThat(Echoes.withoutEchoes(c, List.of(paris, onlyTheEcho))).isEmpty();
    }

    @Test
    void shouldKeepAFactTheUserNamesWhenTheAssistantEchoesItToo() {
        final ConversationCompleted c = conversation("I'm vegetarian, plan my meals please.",
            "Since you're vegetarian, here is a week of vegetarian dinners.");
        final ExtractedMemory diet = fact("diet", "vegetarian", "Is vegetarian", 0, 1);
        final ExtractedMemory paraphrased = fact("city", "New York City", "Lives in New York City", 0);

        assertThat(Echoes.withoutEchoes(c, List.of(diet, paraphrased))).containsExactly(diet, paraphrased);
    }

    @Test
    void shouldTakeASentenceOpeningWithTheUsersStateAsAnEchoButNotAdviceOrCourtesy() {
        assertThat(Echoes.isEcho("You live in Berlin, so visit the Pergamon Museum.")).isTrue();
        assertThat(Echoes.isEcho("Sure! You live in Madrid and you work at Oracle, right?")).isTrue();
        assertThat(Echoes.isEcho("As a Berlin resident, you can get a museum pass.")).isTrue();
        assertThat(Echoes.isEcho("You're vegan, so skip the cheese course.")).isTrue();
        assertThat(Echoes.isEcho("Noted: you work at SAP and you are allergic to peanuts.")).isTrue();
        assertThat(Echoes.isEcho("Got it, you're allergic to peanuts.")).isTrue();
        assertThat(Echoes.isEcho("Noted, I will keep answers short.")).isFalse();
        assertThat(Echoes.isEcho("You're welcome!")).isFalse();
        assertThat(Echoes.isEcho("You should try the Pergamon Museum.")).isFalse();
        assertThat(Echoes.isEcho("As a result, the museum is closed on Mondays.")).isFalse();
        assertThat(Echoes.isEcho("Where do you live these days?")).isFalse();
        assertThat(Echoes.isEcho("People who live in Berlin often cycle.")).isFalse();
    }

    @Test
    void shouldDropAnExchangeWhoseAnswerRestatesTheUsersCity() {
        final ConversationCompleted c = conversation("What should I do this weekend?",
            "You live in Berlin, so visit the Pergamon Museum.");
        final ExtractedMemory exchange = new ExtractedMemory(MemoryType.EPISODIC, FactCategory.CONTEXT, null, null, null,
            "User: What should I do this weekend? — Assistant: You live in Berlin, so visit the Pergamon Museum.", false,
            0.5, 0.8, MemorySource.EXPLICIT, List.of(0, 1), T0);

        assertThat(Echoes.withoutEchoes(c, List.of(exchange))).isEmpty();
    }
}
