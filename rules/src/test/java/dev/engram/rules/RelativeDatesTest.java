package dev.engram.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

class RelativeDatesTest {

    private static final Instant WEDNESDAY = Instant.parse("2023-05-24T10:00:00Z");

    private static List<String> isoOf(final String text, final Instant at) {
        return RelativeDates.resolve(text, at, true).stream().map(RelativeDates.Resolved::iso).toList();
    }

    @Test
    void shouldResolveLastWeekToTheCalendarWeekBefore() {
        final String text = "I went to Paris last week";
        final List<RelativeDates.Resolved> r = RelativeDates.resolve(text, WEDNESDAY, true);
        assertThat(r).extracting(RelativeDates.Resolved::iso).containsExactly("2023-05-15/2023-05-21");
        assertThat(RelativeDates.annotate(text, r)).isEqualTo("I went to Paris last week (15–21 May 2023)");
    }

    @Test
    void shouldResolveDaysWeekdaysWeekendsMonthsAndYears() {
        assertThat(isoOf("yesterday, the day before yesterday, tomorrow, the day after tomorrow", WEDNESDAY))
            .containsExactly("2023-05-23", "2023-05-22", "2023-05-25", "2023-05-26");
        assertThat(isoOf("two days ago and 3 weeks ago", WEDNESDAY)).containsExactly("2023-05-22", "2023-05-01/2023-05-07");
        assertThat(isoOf("last Friday and next Monday", WEDNESDAY)).containsExactly("2023-05-19", "2023-05-29");
        assertThat(isoOf("last weekend", WEDNESDAY)).containsExactly("2023-05-20/2023-05-21");
        assertThat(isoOf("last weekend", Instant.parse("2023-05-27T10:00:00Z"))).as("said on a Saturday")
            .containsExactly("2023-05-20/2023-05-21");
        assertThat(isoOf("next month, last year, a couple of months ago", WEDNESDAY))
            .containsExactly("2023-06", "2022", "2023-03");
        assertThat(RelativeDates.annotate("I moved here last month",
            RelativeDates.resolve("I moved here last month", WEDNESDAY, true))).endsWith("last month (April 2023)");
    }

    @Test
    void shouldResolveOtherLanguagesWithIsoLabels() {
        final List<RelativeDates.Resolved> zh = RelativeDates.resolve("我昨天去了北京，上周很忙", WEDNESDAY, false);
        assertThat(zh).extracting(RelativeDates.Resolved::iso).containsExactly("2023-05-23", "2023-05-15/2023-05-21");
        assertThat(RelativeDates.annotate("我昨天去了北京", zh.subList(0, 1))).isEqualTo("我昨天 (2023-05-23)去了北京");
        assertThat(isoOf("어제 친구를 만났어요", WEDNESDAY)).containsExactly("2023-05-23");
        assertThat(isoOf("Hôm qua tôi đi chợ", WEDNESDAY)).containsExactly("2023-05-23");
    }

    @Test
    void shouldLeaveVagueExpressionsAlone() {
        assertThat(isoOf("a while ago, recently, the other day, a few weeks ago", WEDNESDAY)).isEmpty();
    }

    @Test
    void shouldCrossMonthAndYearBoundariesInLabels() {
        assertThat(RelativeDates.resolve("last week", Instant.parse("2023-06-01T00:00:00Z"), true).get(0).label())
            .isEqualTo("22–28 May 2023");
        assertThat(RelativeDates.resolve("next week", Instant.parse("2023-05-31T00:00:00Z"), true).get(0).label())
            .isEqualTo("5–11 June 2023");
        assertThat(RelativeDates.resolve("last week", Instant.parse("2024-01-03T00:00:00Z"), true).get(0).label())
            .isEqualTo("25–31 December 2023");
        assertThat(RelativeDates.resolve("this week", Instant.parse("2024-01-03T00:00:00Z"), true).get(0).label())
            .isEqualTo("1–7 January 2024");
        assertThat(RelativeDates.resolve("this week", Instant.parse("2023-01-01T00:00:00Z"), true).get(0).label())
            .isEqualTo("26 December 2022 – 1 January 2023");
    }
}
