package dev.engram.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import org.junit.jupiter.api.Test;

/**
 * {@link ConversationValidator#futureProblem}: an event time more than {@code input.max.future.ms} after the receiver's
 * wall clock is refused, naming the field, its value, the latest time accepted and the setting; up to the bound is
 * accepted.
 */
class ConversationValidatorFutureTest {

    private static final long HOUR = 3_600_000L;
    private static final Instant NOW = Instant.parse("2026-12-05T09:00:00Z");
    private static final ConversationValidator VALIDATOR = ConversationValidator.from(EngramConfig.defaults());

    private static ConversationCompleted conversation(final Instant completedAt, final Instant... turns) {
        final List<Message> messages = new java.util.ArrayList<>();
        for (int i = 0; i < turns.length; i++) {
            messages.add(new Message(i, "user", "I live in Lyon.", turns[i]));
        }
        return ConversationCompleted.newBuilder().setTenantId("acme").setUserId("u-ann").setConversationId("c-1")
            .setMessages(messages).setCompletedAt(completedAt).setMetadata(Map.of()).build();
    }

    @Test
    void shouldAcceptAnEventTimeUpToTheBoundWhenTheClientClockIsAheadByAtMostAnHour() {
        final Instant atBound = NOW.plusMillis(HOUR);

        assertThat(VALIDATOR.futureProblem(conversation(atBound, NOW, atBound), NOW.toEpochMilli())).isEmpty();
        assertThat(VALIDATOR.futureProblem(conversation(Instant.parse("2023-05-01T00:00:00Z"),
            Instant.parse("2023-05-01T00:00:00Z")), NOW.toEpochMilli())).as("the past, however far").isEmpty();
    }

    @Test
    void shouldNameTheFieldTheTimeTheLatestAcceptedAndTheSettingWhenCompletedAtIsInYear9999() {
        final Instant year9999 = Instant.parse("9999-12-31T00:00:00Z");

        assertThat(VALIDATOR.futureProblem(conversation(year9999, NOW), NOW.toEpochMilli())).hasValueSatisfying(reason ->
            assertThat(reason).startsWith("completedAt 9999-12-31T00:00:00Z lies ahead of this receiver's clock"
                + " (2026-12-05T09:00:00Z) by more than input.max.future.ms=3600000 ms")
                .contains("the latest event time accepted now is 2026-12-05T10:00:00Z"));
    }

    @Test
    void shouldNameTheMessageWhenOnlyAMessageTimestampLiesBeyondTheBound() {
        final Instant justBeyond = NOW.plusMillis(HOUR + 1);

        assertThat(VALIDATOR.futureProblem(conversation(NOW, NOW, justBeyond), NOW.toEpochMilli()))
            .hasValueSatisfying(reason -> assertThat(reason).startsWith("messages[1].timestamp " + justBeyond));
    }

    @Test
    void shouldSayWhichMessageHasTheTimeWhenCompletedAtWasTakenFromTheLastMessage() {
        final Instant dayAhead = NOW.plusSeconds(86_400);

        // a route fills a missing completedAt from the last message's timestamp: the sender set only the message's
        assertThat(VALIDATOR.futureProblem(conversation(dayAhead, NOW, dayAhead), NOW.toEpochMilli()))
            .hasValueSatisfying(reason -> assertThat(reason).startsWith("completedAt " + dayAhead)
                .endsWith("; messages[1].timestamp has the same time (a message without a timestamp takes completedAt,"
                    + " and a conversation without completedAt takes its last message's timestamp)"));
        assertThat(VALIDATOR.futureProblem(conversation(dayAhead, NOW, NOW), NOW.toEpochMilli()))
            .hasValueSatisfying(reason -> assertThat(reason).doesNotContain("messages["));
    }

    @Test
    void shouldApplyTheConfiguredBoundWhenTheDeploymentSetsOne() {
        final ConversationValidator strict = ConversationValidator.from(
            EngramConfig.defaults().with(Map.of(DomainConfig.MAX_FUTURE_MS, 0L)));
        final Instant oneMsAhead = NOW.plusMillis(1);

        assertThat(strict.futureProblem(conversation(oneMsAhead, NOW), NOW.toEpochMilli()))
            .hasValueSatisfying(reason -> assertThat(reason).contains("input.max.future.ms=0 ms"));
        assertThat(strict.futureProblem(conversation(NOW, NOW), NOW.toEpochMilli())).isEmpty();
    }
}
