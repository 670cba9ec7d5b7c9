package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ConversationCompleted;
import dev.engram.config.EngramConfig;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code POST .../conversations} on the in-process broker: a posted conversation is on
 * {@code conversations-completed} when the 202 comes, keyed by the user and stamped with its event time, exactly as
 * a Kafka producer would write it; keys reach only their own user; an invalid conversation is refused with a 400
 * naming the field instead of reaching the dead-letter topic. (That a posted conversation becomes memories is
 * {@code EngramClientIT}'s, on the whole stack.)
 */
class ConversationRouteIT {

    private static final String ANA = "/v1/tenants/t1/users/u-ana/conversations";
    private static TwoUserRetriever fixture;

    @BeforeAll
    static void start() {
        fixture = TwoUserRetriever.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static List<ConsumerRecord<String, ConversationCompleted>> published(final int expected) {
        return fixture.kafka().read(Topic.CONVERSATIONS_COMPLETED.name(), new StringDeserializer(),
            Topic.CONVERSATIONS_COMPLETED.valueSerde(EngramConfig.plain()).deserializer(), expected,
            Duration.ofSeconds(30));
    }

    @Test
    void shouldPublishThePostedConversationKeyedByTheUserBeforeAnswering202() {
        final HttpResponse<String> answer = fixture.send("POST", ANA, TwoUserRetriever.ANA_KEY, """
            {"conversationId": "c-http-1", "metadata": {"channel": "web"}, "messages": [
              {"role": "user", "content": "I moved to Braga last month.", "timestamp": "2025-05-02T10:00:00Z"},
              {"role": "assistant", "content": "Noted, Braga.", "timestamp": 1746180030000}]}""");

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
        assertThat(answer.body()).contains("\"conversationId\":\"c-http-1\"", "\"status\":\"ACCEPTED\"", "\"messages\":2");
        final ConsumerRecord<String, ConversationCompleted> record = published(1).stream()
            .filter(r -> r.value().getConversationId().equals("c-http-1")).findFirst().orElseThrow();
        assertThat(record.key()).isEqualTo("t1/u-ana");
        assertThat(record.timestamp()).isEqualTo(Instant.parse("2025-05-02T10:00:30Z").toEpochMilli());
        final ConversationCompleted conversation = record.value();
        assertThat(conversation.getTenantId()).isEqualTo("t1");
        assertThat(conversation.getUserId()).isEqualTo("u-ana");
        assertThat(conversation.getCompletedAt()).isEqualTo(Instant.parse("2025-05-02T10:00:30Z"));
        assertThat(conversation.getMetadata()).containsEntry("channel", "web");
        assertThat(conversation.getMessages()).extracting(m -> m.getIndex() + " " + m.getRole() + " " + m.getContent())
            .containsExactly("0 user I moved to Braga last month.", "1 assistant Noted, Braga.");
    }

    @Test
    void shouldRefuseAnotherUsersKeyAndAMissingKey() {
        final String body = "{\"conversationId\": \"c-x\", \"messages\": [{\"role\": \"user\", \"content\": \"hello\"}]}";

        assertThat(fixture.send("POST", ANA, TwoUserRetriever.BEN_KEY, body).statusCode()).isEqualTo(403);
        assertThat(fixture.send("POST", ANA, null, body).statusCode()).isEqualTo(401);
    }

    @Test
    void shouldRefuseAnInvalidConversationWithA400NamingTheField() {
        final Map<String, String> refusals = Map.of(
            "{\"conversationId\": \"c-1\", \"mesages\": []}", "mesages",
            "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}", "conversationId",
            "{\"conversationId\": \"c-1\", \"messages\": []}", "messages",
            "{\"conversationId\": \"c-1\", \"messages\": [{\"role\": \"wizard\", \"content\": \"hi\"}]}", "wizard",
            "{\"conversationId\": \"c-1\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\", \"timestamp\": \"May 2\"}]}",
            "messages[0].timestamp",
            "{\"conversationId\": \"c-1\", \"userId\": \"u-ben\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
            "userId",
            "[1, 2]", "object");
        refusals.forEach((body, named) -> {
            final HttpResponse<String> answer = fixture.send("POST", ANA, TwoUserRetriever.ADMIN_KEY, body);
            assertThat(answer.statusCode()).as(body + " -> " + answer.body()).isEqualTo(400);
            assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(answer.body()).as(body).contains(named);
        });
    }

    @Test
    void shouldNameTheTypeGivenWhenMessagesIsNotAnArray() {
        // README trial: "messages": "hi" was answered as if the field were missing
        final Map<String, String> refusals = Map.of(
            "{\"conversationId\": \"c-1\", \"messages\": \"hi\"}",
            "messages must be a non-empty array of {role, content, timestamp}, not a string (\\\"hi\\\")",
            "{\"conversationId\": \"c-1\", \"messages\": {\"role\": \"user\", \"content\": \"hi\"}}",
            "messages must be a non-empty array of {role, content, timestamp}, not an object",
            "{\"conversationId\": \"c-1\", \"messages\": 3}",
            "messages must be a non-empty array of {role, content, timestamp}, not a number (3)",
            "{\"conversationId\": \"c-1\", \"messages\": []}",
            "messages must be a non-empty array of {role, content, timestamp}, not an empty array",
            "{\"conversationId\": \"c-1\"}", "messages (a non-empty array of {role, content, timestamp}) is required",
            "{\"conversationId\": \"c-1\", \"messages\": null}",
            "messages (a non-empty array of {role, content, timestamp}) is required");
        refusals.forEach((body, detail) -> {
            final HttpResponse<String> answer = fixture.send("POST", ANA, TwoUserRetriever.ANA_KEY, body);
            assertThat(answer.statusCode()).as(body + " -> " + answer.body()).isEqualTo(400);
            assertThat(answer.body()).as(body).contains(detail);
        });
    }

    @Test
    void shouldRefuseAnEventTimeMoreThanAnHourAheadWithA400NamingTheValueTheLimitAndTheSetting() {
        final Instant inTwoHours = Instant.now().plus(Duration.ofHours(2)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        final Map<String, String> refusals = Map.of(
            "{\"conversationId\": \"c-9999\", \"completedAt\": \"9999-12-31T00:00:00Z\", \"messages\": ["
                + "{\"role\": \"user\", \"content\": \"I will retire in Lisbon.\"}]}",
            "completedAt 9999-12-31T00:00:00Z",
            "{\"conversationId\": \"c-ahead\", \"completedAt\": \"2025-05-02T10:00:00Z\", \"messages\": ["
                + "{\"role\": \"user\", \"content\": \"hi\", \"timestamp\": \"2025-05-02T09:59:00Z\"},"
                + "{\"role\": \"user\", \"content\": \"again\", \"timestamp\": \"" + inTwoHours + "\"}]}",
            "messages[1].timestamp " + inTwoHours);
        refusals.forEach((body, named) -> {
            final HttpResponse<String> answer = fixture.send("POST", ANA, TwoUserRetriever.ANA_KEY, body);
            assertThat(answer.statusCode()).as(body + " -> " + answer.body()).isEqualTo(400);
            assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(answer.body()).as(body).contains(named, "input.max.future.ms=3600000",
                "the latest event time accepted now is");
        });
        // README trial: epoch seconds were read as milliseconds (a memory created 1970-01-21): refused, naming the fix
        final HttpResponse<String> seconds = fixture.send("POST", ANA, TwoUserRetriever.ANA_KEY,
            "{\"conversationId\": \"c-secs\", \"messages\": [{\"role\": \"user\", \"content\": \"I live in Reykjavik.\","
                + " \"timestamp\": 1764979200}]}");
        assertThat(seconds.statusCode()).as(seconds.body()).isEqualTo(400);
        assertThat(seconds.body()).contains("messages[0].timestamp is 1764979200: epoch milliseconds are expected",
            "send 1764979200000");
        // README trial: a time before 1970 was refused naming 9999 as the end of the range, not the real one
        final HttpResponse<String> before1970 = fixture.send("POST", ANA, TwoUserRetriever.ANA_KEY,
            "{\"conversationId\": \"c-1969\", \"completedAt\": \"1969-12-31T23:59:59Z\", \"messages\": ["
                + "{\"role\": \"user\", \"content\": \"hi\"}]}");
        assertThat(before1970.statusCode()).as(before1970.body()).isEqualTo(400);
        assertThat(before1970.body()).contains("completedAt is out of range: accepted from 1970-01-01T00:00:00Z to ",
            "(input.max.future.ms after this server's clock)").doesNotContain("9999");
        // a client clock a few minutes fast is within the hour
        final Instant soon = Instant.now().plus(Duration.ofMinutes(5));
        final HttpResponse<String> accepted = fixture.send("POST", ANA, TwoUserRetriever.ANA_KEY,
            "{\"conversationId\": \"c-soon\", \"completedAt\": " + soon.toEpochMilli() + ", \"messages\": ["
                + "{\"role\": \"user\", \"content\": \"I like tea.\"}]}");
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        final List<String> ids = new java.util.ArrayList<>();
        dev.engram.testing.EmbeddedKafka.waitUntil(() -> {
            ids.clear();
            published(1).forEach(r -> ids.add(r.value().getConversationId()));
            return ids.contains("c-soon");
        }, Duration.ofSeconds(60), "c-soon on " + Topic.CONVERSATIONS_COMPLETED.name());
        assertThat(ids).doesNotContain("c-9999", "c-ahead");
    }
}
