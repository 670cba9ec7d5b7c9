package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.core.UserKey;
import dev.engram.runtime.ApiProblem;
import org.junit.jupiter.api.Test;

class ConversationRouteTest {

    private static final UserKey USER = new UserKey("acme", "mira");
    private static final String MESSAGES = "\"messages\": [{\"role\": \"user\", \"content\": \"I live in Delft\"}]";

    @Test
    void shouldNameTheTypeGivenWhenConversationIdIsNotAString() {
        assertThatThrownBy(() -> parse("{\"conversationId\": 42, " + MESSAGES + "}")).isInstanceOf(ApiProblem.class)
            .hasMessage("conversationId must be a non-blank string, not a number (42)");
        assertThatThrownBy(() -> parse("{\"conversationId\": {\"id\": \"c-1\"}, " + MESSAGES + "}"))
            .hasMessage("conversationId must be a non-blank string, not an object");
        assertThatThrownBy(() -> parse("{\"conversationId\": \"  \", " + MESSAGES + "}"))
            .hasMessage("conversationId must be a non-blank string, not a blank string");
    }

    @Test
    void shouldNameTheTypeGivenWhenAMessagesTextIsNotAStringAsIngestDoes() {
        assertThatThrownBy(() -> parse("{\"conversationId\": \"c-1\", \"messages\": [{\"role\": \"user\", "
            + "\"content\": 5}]}")).hasMessage("messages[0].content must be a string, not a number (5)");
        assertThatThrownBy(() -> parse("{\"conversationId\": \"c-1\", \"messages\": [{\"content\": \"hi\"}]}"))
            .hasMessage("messages[0].role must be a string");
    }

    @Test
    void shouldSayItIsRequiredWhenConversationIdIsMissingOrNull() {
        assertThatThrownBy(() -> parse("{" + MESSAGES + "}")).hasMessage("conversationId (a non-blank string) is required");
        assertThatThrownBy(() -> parse("{\"conversationId\": null, " + MESSAGES + "}"))
            .hasMessage("conversationId (a non-blank string) is required");
    }

    @Test
    void shouldNameTheValueWhenAMessageIndexIsAFractionAStringOrTooLarge() {
        final String conversation = "{\"conversationId\": \"c-1\", \"messages\": [{\"role\": \"user\", "
            + "\"content\": \"I live in Delft\", \"index\": %s}]}";
        assertThatThrownBy(() -> parse(conversation.formatted("1.5")))
            .hasMessage("messages[0].index must be a whole number (the message's position), not a number (1.5)");
        assertThatThrownBy(() -> parse(conversation.formatted("\"3\"")))
            .hasMessage("messages[0].index must be a whole number (the message's position), not a string (\"3\")");
        assertThatThrownBy(() -> parse(conversation.formatted("99999999999")))
            .hasMessage("messages[0].index must be at most 2147483647, was 99999999999");
        assertThatThrownBy(() -> parse(conversation.formatted("-1")))
            .hasMessage("messages[0].index must not be negative (the message's position, from 0), was -1");
    }

    @Test
    void shouldNameBothMessagesWhenTwoGiveTheSameIndex() throws Exception {
        final String turn = "{\"role\": \"user\", \"content\": \"I live in Delft\"%s}";
        // the second takes its position (1), which the third gives explicitly
        assertThatThrownBy(() -> parse("{\"conversationId\": \"c-1\", \"messages\": [" + turn.formatted(", \"index\": 0")
            + ", " + turn.formatted("") + ", " + turn.formatted(", \"index\": 1") + "]}"))
            .hasMessage("messages[2].index 1 is also messages[1]'s: each message needs its own index (or leave index out:"
                + " its position is taken)");
        parse("{\"conversationId\": \"c-1\", \"messages\": [" + turn.formatted(", \"index\": 4") + ", "
            + turn.formatted(", \"index\": 2") + "]}"); // any order, any gaps
    }

    @Test
    void shouldRefuseAControlCharacterInAnIdNamingTheFieldAndReplaceItInTextCountingIt() throws Exception {
        assertThatThrownBy(() -> parse("{\"conversationId\": \"u6\\u0000x\", " + MESSAGES + "}"))
            .hasMessage("A control character (NUL, U+0000) in conversationId at character 3: identifiers cannot contain "
                + "control characters");
        assertThatThrownBy(() -> parse("{\"conversationId\": \"c-1\", \"agentId\": \"a\\u001bb\", " + MESSAGES + "}"))
            .hasMessageStartingWith("A control character (U+001B) in agentId at character 2");
        assertThatThrownBy(() -> parse("{\"conversationId\": \"c-1\", \"metadata\": {\"k\\u007f\": \"v\"}, "
            + MESSAGES + "}")).hasMessageStartingWith("A control character (U+007F) in a metadata key at character 2");

        final int[] replaced = new int[1];
        final dev.engram.avro.ConversationCompleted conversation = ConversationRoute.parse(USER, new ObjectMapper().readTree(
            "{\"conversationId\": \"c-1\", \"metadata\": {\"source\": \"x\\u0007y\"}, \"messages\": [{\"role\": \"tool\", "
                + "\"content\": \"\\u001b[31mred\\u001b[0m\\tand\\r\\nline\\u0000\"}]}"), replaced,
            Instant.parse("2026-01-01T00:00:00Z"));

        org.assertj.core.api.Assertions.assertThat(conversation.getMessages().get(0).getContent())
            .isEqualTo("\uFFFD[31mred\uFFFD[0m\tand\r\nline\uFFFD");
        org.assertj.core.api.Assertions.assertThat(conversation.getMetadata()).containsEntry("source", "x\uFFFDy");
        org.assertj.core.api.Assertions.assertThat(replaced[0]).isEqualTo(4);
    }

    private static void parse(final String body) throws Exception {
        ConversationRoute.parse(USER, new ObjectMapper().readTree(body), new int[1], Instant.parse("2026-01-01T00:00:00Z"));
    }
}
