package dev.engram.scoring;

import dev.engram.avro.Memory;
import java.time.LocalDate;
import java.time.Month;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Explicit calendar cues in a question ("in March 2023", "May 2023", "in 2023", "2023年3月") and whether a
 * memory's time falls inside them, so a question about a period can prefer the memories of that period.
 *
 * <p>Only absolute cues are read: a relative cue ("last May") needs the asker's clock, which a replayable ranking
 * must not read. A memory's time is each of its resolved {@code eventDates} (a day {@code 2023-03-13} or a range
 * {@code 2023-05-15/2023-05-21}, written by the extractor against the message's own timestamp) and its
 * {@code validFrom} (the event time of the conversation it came from), all in UTC.
 */
public final class TimeCues {

    private static final Pattern MONTH_YEAR = Pattern.compile(
        "\\b(january|february|march|april|may|june|july|august|september|october|november|december|"
            + "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\\.?,?\\s+(19\\d\\d|20\\d\\d)\\b");
    private static final Pattern HAN_YEAR_MONTH = Pattern.compile("(19\\d\\d|20\\d\\d)年(1[0-2]|0?[1-9])月");
    private static final Pattern YEAR = Pattern.compile("(?<![\\d-])(19\\d\\d|20\\d\\d)(?![\\d-])");

    private TimeCues() {
    }

    /**
     * A closed interval of days named by a question.
     *
     * @param from first day, inclusive
     * @param to last day, inclusive
     */
    public record Period(LocalDate from, LocalDate to) {

        /**
         * @param memory a memory
         * @return whether one of its event dates or its validFrom day lies in this period
         */
        public boolean contains(final Memory memory) {
            return overlaps(days(memory));
        }

        /**
         * @param spans a memory's {@link TimeCues#days day spans}
         * @return whether one of them overlaps this period (primitive comparisons: the kept index's hot path)
         */
        public boolean overlaps(final long[] spans) {
            final long first = from.toEpochDay();
            final long last = to.toEpochDay();
            for (int i = 0; i + 1 < spans.length; i += 2) {
                if (spans[i + 1] >= first && spans[i] <= last) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * A memory's times as epoch-day spans: each readable event date (a day d as [d, d], a range as [start, end];
     * one the extractor did not write is left out) and its validFrom day in UTC as [d, d].
     *
     * @param memory a memory
     * @return {start₀, end₀, start₁, end₁, …} in epoch days ({@link LocalDate#toEpochDay()})
     */
    public static long[] days(final Memory memory) {
        final long[] out = new long[2 * memory.getEventDates().size() + 2];
        int n = 0;
        for (final String date : memory.getEventDates()) {
            final int slash = date.indexOf('/');
            try {
                final LocalDate start = LocalDate.parse(slash < 0 ? date : date.substring(0, slash));
                final LocalDate end = slash < 0 ? start : LocalDate.parse(date.substring(slash + 1));
                out[n++] = start.toEpochDay();
                out[n++] = end.toEpochDay();
            } catch (java.time.format.DateTimeParseException ignored) {
                // a date the extractor did not write: not a match
            }
        }
        if (memory.getValidFrom() != null) {
            final long day = memory.getValidFrom().atOffset(ZoneOffset.UTC).toLocalDate().toEpochDay();
            out[n++] = day;
            out[n++] = day;
        }
        return n == out.length ? out : java.util.Arrays.copyOf(out, n);
    }

    /**
     * @param question the question, any case
     * @return the most specific period it names (a month of a year before a bare year), or empty
     */
    public static Optional<Period> in(final String question) {
        if (question == null || question.isBlank()) {
            return Optional.empty();
        }
        final String text = question.toLowerCase(Locale.ROOT);
        final Matcher monthYear = MONTH_YEAR.matcher(text);
        if (monthYear.find()) {
            return Optional.of(month(Integer.parseInt(monthYear.group(2)), month(monthYear.group(1))));
        }
        final Matcher han = HAN_YEAR_MONTH.matcher(text);
        if (han.find()) {
            return Optional.of(month(Integer.parseInt(han.group(1)), Month.of(Integer.parseInt(han.group(2)))));
        }
        final Matcher year = YEAR.matcher(text);
        if (year.find()) {
            final int y = Integer.parseInt(year.group(1));
            return Optional.of(new Period(LocalDate.of(y, 1, 1), LocalDate.of(y, 12, 31)));
        }
        return Optional.empty();
    }

    private static Period month(final int year, final Month month) {
        final LocalDate first = LocalDate.of(year, month, 1);
        return new Period(first, first.withDayOfMonth(first.lengthOfMonth()));
    }

    private static Month month(final String name) {
        for (final Month m : Month.values()) {
            if (m.name().toLowerCase(Locale.ROOT).startsWith(name.substring(0, 3))) {
                return m;
            }
        }
        throw new IllegalArgumentException("not a month: " + name);
    }
}
