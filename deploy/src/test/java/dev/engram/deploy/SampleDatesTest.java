package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.stack.ConversationSources;
import dev.engram.stack.ProjectPaths;
import org.junit.jupiter.api.Test;

class SampleDatesTest {

    private static final Instant NOW = Instant.parse("2026-12-04T16:30:00Z");

    @Test
    void shouldMoveTheShippedSamplesLastConversationIntoTheDayBeforeTheRun() throws Exception {
        final Path sample = ProjectPaths.sample().orElseThrow();
        final Duration offset = SampleDates.offset(sample, NOW);

        assertThat(offset.toSeconds() % Duration.ofDays(1).toSeconds()).as("whole days").isZero();
        final List<ConversationCompleted> moved = ConversationSources.readAll(sample).getKey().stream()
            .map(SampleDates.shift(offset)).toList();
        final Instant latest = moved.stream().flatMap(c -> c.getMessages().stream()).map(Message::getTimestamp)
            .max(Instant::compareTo).orElseThrow();
        assertThat(latest).isAfter(NOW.minus(Duration.ofDays(1))).isBeforeOrEqualTo(NOW);
    }

    @Test
    void shouldKeepEveryIntervalWhenShifting() {
        final Instant t = Instant.parse("2025-01-06T09:00:00Z");
        final ConversationCompleted conversation = ConversationCompleted.newBuilder().setTenantId("acme").setUserId("mira")
            .setConversationId("mira-1").setCompletedAt(t.plusSeconds(40)).setMessages(List.of(
                Message.newBuilder().setIndex(0).setRole("user").setContent("Hi").setTimestamp(t).build(),
                Message.newBuilder().setIndex(1).setRole("assistant").setContent("Hello").setTimestamp(t.plusSeconds(20))
                    .build())).build();
        final Duration offset = SampleDates.offset(t.plusSeconds(40), NOW);

        final ConversationCompleted moved = SampleDates.shift(offset).apply(conversation);

        assertThat(moved.getCompletedAt()).isEqualTo(t.plusSeconds(40).plus(offset));
        assertThat(moved.getMessages()).extracting(Message::getTimestamp).containsExactly(t.plus(offset),
            t.plusSeconds(20).plus(offset));
        assertThat(moved.getMessages().get(0).getTimestamp().truncatedTo(ChronoUnit.DAYS).until(
            moved.getMessages().get(0).getTimestamp(), ChronoUnit.SECONDS)).as("time of day kept").isEqualTo(9 * 3600);
        assertThat(moved.getMessages()).extracting(Message::getContent).containsExactly("Hi", "Hello");
        assertThat(conversation.getCompletedAt()).as("the input is not changed").isEqualTo(t.plusSeconds(40));
    }

    @Test
    void shouldNotMoveDatesThatAreRecentOrInTheFuture() {
        assertThat(SampleDates.offset(NOW.minus(Duration.ofHours(23)), NOW)).isZero();
        assertThat(SampleDates.offset(NOW.plus(Duration.ofDays(3)), NOW)).isZero();
        assertThat(SampleDates.offset(NOW.minus(Duration.ofDays(2)).minusSeconds(1), NOW)).isEqualTo(Duration.ofDays(2));
    }
}
