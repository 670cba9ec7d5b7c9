package dev.engram.scoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDate;
import java.time.MonthDay;
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
    void shouldReadNoCueWhenTheQuestionHasNoAsciiDigit() {
        // the digit check before the patterns: only 0-9 ever matched (\d), so these named no period before it either
        assertThat(TimeCues.in("What did I do in May?")).isEmpty();
        assertThat(TimeCues.in("When did Caroline go to the LGBTQ support group?")).isEmpty();
        assertThat(TimeCues.in("我２０２３年５月去了哪里？")).isEmpty();
        assertThat(TimeCues.in("in May 2023")).contains(
            new TimeCues.Period(LocalDate.of(2023, 5, 1), LocalDate.of(2023, 5, 31)));
    }

    @Test
    void shouldReadADayBeforeItsMonthAndYear() {
        final TimeCues.Period may3 = new TimeCues.Period(LocalDate.of(2023, 5, 3), LocalDate.of(2023, 5, 3));
        assertThat(TimeCues.in("What did Maria do on May 3, 2023?")).contains(may3);
        assertThat(TimeCues.in("What did Jon find on 3 May, 2023?")).contains(may3);
        assertThat(TimeCues.in("What book did Tim finish on 3rd May 2023?")).contains(may3);
        assertThat(TimeCues.in("我2023年5月3日去了哪里？")).contains(may3);
        assertThat(TimeCues.in("2023년 5월 3일에 뭘 했지?")).contains(may3);
        assertThat(TimeCues.in("what happened on 2023-05-03")).contains(may3);
        assertThat(TimeCues.in("On May 3rd, in 2023, which movies did you recommend?")).contains(may3);
    }

    @Test
    void shouldReadADayWithoutAYearAsThatDayOfEveryYear() {
        final TimeCues.Period may3 = TimeCues.Period.everyYear(MonthDay.of(5, 3));
        assertThat(TimeCues.in("On May 3rd, which two movies did you recommend to me?")).contains(may3);
        assertThat(TimeCues.in("What did we talk about on the 3rd of May?")).contains(may3);
        assertThat(TimeCues.in("在5月3号，你给我推荐了哪两部电影？")).contains(may3);
        assertThat(TimeCues.in("5月3日に何を話しましたか")).contains(may3);
        assertThat(TimeCues.in("On Feb 29th?")).contains(TimeCues.Period.everyYear(MonthDay.of(2, 29)));
        assertThat(TimeCues.in("On May 3rd 2022 or 2023?")).contains(
            new TimeCues.Period(LocalDate.of(2022, 5, 3), LocalDate.of(2022, 5, 3)));
        assertThat(TimeCues.in("between May 3 and May 9, in 2022 or 2023")).contains(may3);
    }

    @Test
    void shouldRefuseDaysTheCalendarDoesNotHave() {
        assertThat(TimeCues.in("on April 31st")).isEmpty();
        assertThat(TimeCues.in("on February 29, 2023")).contains(
            new TimeCues.Period(LocalDate.of(2023, 1, 1), LocalDate.of(2023, 12, 31)));
        assertThat(TimeCues.in("在13月5号")).isEmpty();
    }

    @Test
    void shouldMatchAMemoryOnTheNamedDayOfAnyYear() {
        final TimeCues.Period may3 = TimeCues.Period.everyYear(MonthDay.of(5, 3));
        assertThat(may3.contains(said("2023-05-03T10:00:00Z", List.of()))).isTrue();
        assertThat(may3.contains(said("2019-05-03T23:59:59Z", List.of()))).isTrue();
        assertThat(may3.contains(said("2023-05-04T00:00:00Z", List.of()))).isFalse();
        assertThat(may3.contains(said("2023-06-01T00:00:00Z", List.of("2023-05-01/2023-05-07")))).isTrue();
        assertThat(may3.contains(said("2023-06-01T00:00:00Z", List.of("2023-05-04/2023-05-10")))).isFalse();
        assertThat(may3.contains(said("2023-06-01T00:00:00Z", List.of("2021-06-01/2023-01-01")))).isTrue();
        final TimeCues.Period may3of2023 = new TimeCues.Period(LocalDate.of(2023, 5, 3), LocalDate.of(2023, 5, 3));
        assertThat(may3of2023.contains(said("2019-05-03T10:00:00Z", List.of()))).isFalse();
    }

    @Test
    void shouldMatchAnAnyYearDayExactlyWhenASpanHoldsItDayByDay() {
        // spans of up to a year and a half starting every third day of 2019-2024 (leap years on both sides), against
        // the definition: some day of the span has the named month and day; a span of 366 days or more holds every day
        for (final MonthDay named : List.of(MonthDay.of(2, 29), MonthDay.of(2, 28), MonthDay.of(3, 1),
            MonthDay.of(12, 31), MonthDay.of(1, 1), MonthDay.of(5, 3))) {
            final TimeCues.Period period = TimeCues.Period.everyYear(named);
            for (long start = LocalDate.of(2019, 1, 1).toEpochDay(); start <= LocalDate.of(2024, 12, 31).toEpochDay();
                 start += 3) {
                for (final int length : new int[] {0, 1, 30, 58, 59, 60, 364, 365, 366, 500}) {
                    final long end = start + length;
                    boolean holds = length >= 366;
                    for (long d = start; d <= end && !holds; d++) {
                        holds = MonthDay.from(LocalDate.ofEpochDay(d)).equals(named);
                    }
                    assertThat(period.overlaps(new long[] {start, end}))
                        .as("%s in %s..%s", named, LocalDate.ofEpochDay(start), LocalDate.ofEpochDay(end))
                        .isEqualTo(holds);
                }
            }
            // one day, every day of those years (29 February 2020 and 2024 among them)
            for (long day = LocalDate.of(2019, 1, 1).toEpochDay(); day <= LocalDate.of(2024, 12, 31).toEpochDay(); day++) {
                assertThat(period.overlaps(new long[] {day, day})).as("%s on %s", named, LocalDate.ofEpochDay(day))
                    .isEqualTo(MonthDay.from(LocalDate.ofEpochDay(day)).equals(named));
            }
            assertThat(period.overlaps(new long[] {10, 5})).isFalse();
        }
    }

    private static Memory said(final String validFrom, final List<String> eventDates) {
        return memory(eventDates, Instant.parse(validFrom));
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
