package dev.engram.core;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.regex.Pattern;

/**
 * Event times given as JSON text (the HTTP {@code POST …/conversations} route, MCP {@code save_conversation},
 * {@code bin/engram ingest}'s JSON lines): ISO-8601 with an offset, extended ({@code 2026-11-05T09:00:00+05:30},
 * {@code …Z}) or basic ({@code +0530}, as ISO 8601 and many chat exports write it). A time without an offset is refused:
 * which zone it meant cannot be known. Digits in quotes are refused naming the JSON number to send (README trial:
 * {@code "1764000000000"} was told "or epoch milliseconds" without a hint that it must be a number).
 */
public final class IsoTimestamps {

    /** A basic offset ({@code +0530}, {@code -0800}) at the end of a date-time. */
    private static final Pattern BASIC_OFFSET = Pattern.compile("(.*T.*[+-]\\d\\d)(\\d\\d)");
    private static final Pattern DIGITS = Pattern.compile("-?\\d+");

    private IsoTimestamps() {
    }

    /**
     * @param name the field, as an error names it ({@code messages[0].timestamp})
     * @param text the text sent, surrounding blanks allowed
     * @return the instant
     * @throws IllegalArgumentException naming the field, the text and the forms accepted
     */
    public static Instant parse(final String name, final String text) {
        final String trimmed = text.strip();
        try {
            return OffsetDateTime.parse(trimmed).toInstant();
        } catch (DateTimeParseException e) {
            final var basic = BASIC_OFFSET.matcher(trimmed);
            if (basic.matches()) {
                try {
                    return OffsetDateTime.parse(basic.group(1) + ":" + basic.group(2)).toInstant();
                } catch (DateTimeParseException notEither) {
                    // refused below
                }
            }
        }
        if (DIGITS.matcher(trimmed).matches()) {
            throw new IllegalArgumentException(name + " is the text \"" + trimmed + "\": epoch milliseconds must be a JSON"
                + " number, without quotes (" + trimmed + "), or send an ISO-8601 timestamp with an offset");
        }
        throw new IllegalArgumentException(name + " is not an ISO-8601 timestamp with an offset (2025-02-03T09:12:00Z,"
            + " 2025-02-03T14:42:00+05:30) or epoch milliseconds as a JSON number: \"" + trimmed + "\"");
    }
}
