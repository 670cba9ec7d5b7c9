package dev.engram.scoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import org.junit.jupiter.api.Test;

class TimeCuesTest {

    @Test
    void shouldReadAMonthOfAYearBeforeABareYear() {
        assertThat(TimeCues.in("What did I start in March 2023?")).contains(
            new TimeCues.Period(LocalDate.of(2023, 3, 1), LocalDate.of(2023, 3, 31)));
        assertThat(TimeCues.in("where was I in Feb. 2024")).contains(
            new TimeCues.Period(LocalDate.of(2024, 2, 1), LocalDate.of(2024, 2, 29)));
        assertThat(TimeCues.in("我2023年5月去了哪里？")).contains(
            new TimeCues.Period(LocalDate.of(2023, 5, 1), LocalDate.of(2023, 5, 31)));
        assertThat(TimeCues.in("Which trips did I take in 2022?")).contains(
            new TimeCues.Period(LocalDate.of(2022, 1, 1), LocalDate.of(2022, 12, 31)));
    }

    @Test
    void shouldIgnoreQuestionsWithoutAnAbsoluteCue() {
        assertThat(TimeCues.in("What did I do last May?")).isEmpty();
        assertThat(TimeCues.in("my flight LH 2023-X")).isEmpty();
        assertThat(TimeCues.in("call 555-2023-11")).isEmpty();
        assertThat(TimeCues.in("")).isEmpty();
    }

    @Test
    void shouldMatchAPeriodOnTheEventDatesOrTheValidFromDayInUtc() {
        final Memory memory = memory(List.of("2023-03-13", "2023-05-15/2023-05-21", "someday", "2023-07-01/July"),
            Instant.parse("2023-08-31T23:30:00Z"));
        assertThat(TimeCues.days(memory)).containsExactly(LocalDate.of(2023, 3, 13).toEpochDay(),
            LocalDate.of(2023, 3, 13).toEpochDay(), LocalDate.of(2023, 5, 15).toEpochDay(),
            LocalDate.of(2023, 5, 21).toEpochDay(), LocalDate.of(2023, 8, 31).toEpochDay(),
            LocalDate.of(2023, 8, 31).toEpochDay());
        assertThat(TimeCues.in("in March 2023").orElseThrow().contains(memory)).isTrue();
        assertThat(TimeCues.in("in May 2023").orElseThrow().contains(memory)).isTrue();
        assertThat(TimeCues.in("in August 2023").orElseThrow().contains(memory)).isTrue();
        assertThat(TimeCues.in("in April 2023").orElseThrow().contains(memory)).isFalse();
        assertThat(TimeCues.in("in July 2023").orElseThrow().contains(memory)).as("an unreadable range").isFalse();
        assertThat(TimeCues.in("in 2022").orElseThrow().contains(memory)).isFalse();
        assertThat(TimeCues.in("in May 2023").orElseThrow().overlaps(TimeCues.days(memory))).isTrue();
    }

    private static Memory memory(final List<String> eventDates, final Instant validFrom) {
        return Memory.newBuilder().setMemoryId("m1").setTenantId("t1").setUserId("u1").setType(MemoryType.EPISODIC)
            .setContent("x").setImportance(0.5).setConfidence(0.9).setSource(MemorySource.EXPLICIT)
            .setStatus(MemoryStatus.ACTIVE).setCreatedAt(validFrom).setUpdatedAt(validFrom)
            .setLastAccessedAt(validFrom).setLastConfirmedAt(validFrom).setValidFrom(validFrom).setSources(List.of())
            .setEventDates(eventDates)
            .setEmbedding(List.of()).setEmbeddingModel("none").build();
    }
}
