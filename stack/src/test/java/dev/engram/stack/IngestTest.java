package dev.engram.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import org.junit.jupiter.api.Test;

class IngestTest {

    @Test
    void shouldKeyByTheUserKeyWireFormWhenTenantAndUserAreValid() {
        assertThat(Ingest.keyOf(conversation("acme", "conv-26:Caroline"))).isEqualTo("acme/conv-26:Caroline");
    }

    @Test
    void shouldStillBuildAKeyWhenTheUserIsBlankSoTheExtractorCanDeadLetterIt() {
        assertThat(Ingest.keyOf(conversation("acme", ""))).isEqualTo("acme/");
        assertThat(Ingest.keyOf(conversation("a/b", "u"))).isEqualTo("a/b/u");
    }

    private static ConversationCompleted conversation(final String tenant, final String user) {
        final Instant at = Instant.parse("2025-01-01T10:00:00Z");
        return ConversationCompleted.newBuilder().setTenantId(tenant).setUserId(user).setConversationId("c1")
            .setMessages(List.of(Message.newBuilder().setIndex(0).setRole("user").setContent("hi").setTimestamp(at).build()))
            .setCompletedAt(at).build();
    }
}
