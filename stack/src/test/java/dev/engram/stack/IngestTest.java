package dev.engram.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    /**
     * User trial, session 15: {@code bin/engram ingest} published a line with the role "robot" (the extractor dead-letters
     * it later; exit 0) while {@code POST …/conversations} answers 400 for it. Ingest refuses it with the route's reason,
     * the line named, counted as refused, before anything is sent (no broker at this address is ever asked).
     */
    @Test
    void shouldRefuseALineWhoseMessageThePostRouteRefusesNamingTheLine(@TempDir final Path dir) throws Exception {
        final Path file = dir.resolve("robot.jsonl");
        Files.writeString(file, "{\"tenantId\":\"acme\",\"userId\":\"u1\",\"conversationId\":\"c1\",\"messages\":"
            + "[{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":\"2025-01-01T10:00:00Z\"},"
            + "{\"role\":\"robot\",\"content\":\"beep\",\"timestamp\":\"2025-01-01T10:00:01Z\"}]}\n");
        try (Ingest ingest = new Ingest("127.0.0.1:1", Map.of())) {
            final ConversationSources.Report report = ingest.publish(file, c -> c, null);

            assertThat(ingest.sent()).isZero();
            assertThat(ingest.refused()).isEqualTo(1);
            assertThat(report.rejected()).isEqualTo(1);
            assertThat(report.problems()).singleElement().hasToString("line 1: message 1 has the role 'robot', not one of "
                + "user, assistant, system, tool (not published)");
        }
    }

    private static ConversationCompleted conversation(final String tenant, final String user) {
        final Instant at = Instant.parse("2025-01-01T10:00:00Z");
        return ConversationCompleted.newBuilder().setTenantId(tenant).setUserId(user).setConversationId("c1")
            .setMessages(List.of(Message.newBuilder().setIndex(0).setRole("user").setContent("hi").setTimestamp(at).build()))
            .setCompletedAt(at).build();
    }
}
