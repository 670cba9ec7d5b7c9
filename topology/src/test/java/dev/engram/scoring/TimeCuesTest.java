package dev.engram.scoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
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
}
