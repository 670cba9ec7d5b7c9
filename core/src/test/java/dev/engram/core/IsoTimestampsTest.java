package dev.engram.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;

import org.junit.jupiter.api.Test;

class IsoTimestampsTest {

    @Test
    void readsExtendedAndBasicOffsets() {
        final Instant utc = Instant.parse("2026-11-05T03:30:00Z");
        assertThat(IsoTimestamps.parse("t", "2026-11-05T03:30:00Z")).isEqualTo(utc);
        assertThat(IsoTimestamps.parse("t", " 2026-11-05T09:00:00+05:30 ")).isEqualTo(utc);
        assertThat(IsoTimestamps.parse("t", "2026-11-05T09:00:00+0530")).isEqualTo(utc);
        assertThat(IsoTimestamps.parse("t", "2026-11-04T19:30:00.000-0800")).isEqualTo(utc);
    }

    @Test
    void refusesDigitsInQuotesNamingTheNumberToSend() {
        assertThatThrownBy(() -> IsoTimestamps.parse("messages[0].timestamp", "1764000000000"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("messages[0].timestamp")
            .hasMessageContaining("must be a JSON number, without quotes (1764000000000)");
    }

    @Test
    void refusesATimeWithoutOffsetOrGarbage() {
        for (final String text : new String[] {"2026-11-05T09:00:00", "yesterday", "2026-11-05T09:00:00+05300", ""}) {
            assertThatThrownBy(() -> IsoTimestamps.parse("completedAt", text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("completedAt is not an ISO-8601 timestamp with an offset");
        }
    }
}
