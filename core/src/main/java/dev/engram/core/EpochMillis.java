package dev.engram.core;

import java.time.Instant;
import java.util.Locale;

/**
 * Event times given as a JSON number (the HTTP {@code POST …/conversations} route, MCP {@code save_conversation},
 * {@code bin/engram ingest}'s JSON lines), which Engram reads as epoch <em>milliseconds</em>. Many chat platforms
 * send epoch <em>seconds</em>: read as milliseconds, today's 1.8 × 10⁹ s becomes a day of January 1970, so the
 * newest statement would count as the oldest and the lifecycle and {@code asOf} would see 1970 (README trial).
 * Such a number is refused rather than guessed: below {@value #SECONDS_LIKELY_BELOW} ms (1973-03-03T09:46:40Z)
 * a number is far likelier seconds (every date from 1973-03-03 to the year 5138 in seconds is below it) than a
 * conversation of 1970–1973.
 */
public final class EpochMillis {

    /** Numbers from 1 up to this (exclusive) are refused as likely epoch seconds: 10¹¹ ms = 1973-03-03T09:46:40Z. */
    public static final long SECONDS_LIKELY_BELOW = 100_000_000_000L;

    private EpochMillis() {
    }

    /**
     * @param name the field, as the error names it ({@code messages[0].timestamp})
     * @param millis the number as sent
     * @return the reason to refuse it when it looks like epoch seconds (1 ≤ millis &lt; {@value #SECONDS_LIKELY_BELOW}),
     *     naming the time it would mean in seconds; null when it is read as milliseconds
     */
    public static String secondsProblem(final String name, final long millis) {
        if (millis < 1 || millis >= SECONDS_LIKELY_BELOW) {
            return null;
        }
        return String.format(Locale.ROOT, "%s is %d: epoch milliseconds are expected, and that is %s; as epoch seconds it"
            + " would be %s: send %d (or an ISO-8601 timestamp with an offset)", name, millis, Instant.ofEpochMilli(millis),
            Instant.ofEpochSecond(millis), Math.multiplyExact(millis, 1000L));
    }
}
