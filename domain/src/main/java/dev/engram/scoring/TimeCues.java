package dev.engram.scoring;

import dev.engram.avro.Memory;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.Month;
import java.time.MonthDay;
import java.time.Year;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Explicit calendar cues in a question ("on May 3rd", "4 May 2023", "5月3号", "5월 3일", "in March 2023",
 * "May 2023", "in 2023", "2023年3月") and whether a memory's time falls inside them, so a question about a
 * period can prefer the memories of that period.
 *
 * <p>Only absolute cues are read: a relative cue ("last May") needs the asker's clock, which a replayable ranking
 * must not read. A day named without a year ("On May 4th, what did I …", "在5月4号") is that day of any year
 * ({@link Period#anyYear}): the question's own calendar, read without a clock; a year elsewhere in the
 * question ("on May 4th, in 2023") pins it. A memory's time is each of its resolved {@code eventDates} (a day {@code 2023-03-13} or a range
 * {@code 2023-05-15/2023-05-21}, written by the extractor against the message's own timestamp) and its
 * {@code validFrom} (the event time of the conversation it came from), all in UTC.
 */
public final class TimeCues {

    private static final Pattern MONTH_YEAR = Pattern.compile(
        "\\b(january|february|march|april|may|june|july|august|september|october|november|december|"
            + "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\\.?,?\\s+(19\\d\\d|20\\d\\d)\\b");
    private static final String MONTH_NAME = "(january|february|march|april|may|june|july|august|september|october"
        + "|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)";
    private static final String ORDINAL = "(3[01]|[12]\\d|0?[1-9])(?:st|nd|rd|th)?";
    private static final String ATTACHED_YEAR = "(?:,?\\s*(19\\d\\d|20\\d\\d)\\b)?";
    /** "may 3rd", "october 13, 2023", "aug. 15th". */
    private static final Pattern MONTH_DAY = Pattern.compile(
        "\\b" + MONTH_NAME + "\\.?\\s+" + ORDINAL + "\\b" + ATTACHED_YEAR);
    /** "3 may", "4th of may", "1 february, 2023". */
    private static final Pattern DAY_MONTH = Pattern.compile(
        "\\b" + ORDINAL + "\\s+(?:of\\s+)?" + MONTH_NAME + "\\b\\.?" + ATTACHED_YEAR);
    /** Chinese and Japanese "(2023年)5月3日 / 5月3号", Korean "(2023년) 5월 3일". */
    private static final Pattern CJK_DAY = Pattern.compile(
        "(?:(19\\d\\d|20\\d\\d)\\s*[年년]\\s*)?(?<!\\d)(1[0-2]|0?[1-9])\\s*[月월]\\s*(3[01]|[12]\\d|0?[1-9])\\s*[日号號일]");
    /** ISO "2023-05-03". */
    private static final Pattern ISO_DAY = Pattern.compile("(?<![\\d-])(19\\d\\d|20\\d\\d)-(\\d\\d)-(\\d\\d)(?![\\d-])");
    private static final Pattern HAN_YEAR_MONTH = Pattern.compile("(19\\d\\d|20\\d\\d)年(1[0-2]|0?[1-9])月");
    private static final Pattern YEAR = Pattern.compile("(?<![\\d-])(19\\d\\d|20\\d\\d)(?![\\d-])");

    private TimeCues() {
    }

    /**
     * A closed interval of days named by a question, or one day of the year in any year.
     *
     * @param from first day, inclusive
     * @param to last day, inclusive
     * @param anyYear true when the question named a day without a year: {@code from} = {@code to} carries the
     *     month and day (in {@link #ANY_YEAR}, a leap year so 29 February exists), and every year matches
     */
    public record Period(LocalDate from, LocalDate to, boolean anyYear) {

        /** The placeholder year of an {@link #anyYear} period. */
        public static final int ANY_YEAR = 2000;
        /** Longest event-date range, in days, checked day by day against an any-year day. */
        private static final int LONGEST_RANGE_DAYS = 366;

        /**
         * A period of definite years.
         *
         * @param from first day, inclusive
         * @param to last day, inclusive
         */
        public Period(final LocalDate from, final LocalDate to) {
            this(from, to, false);
        }

        /**
         * @param day the month and day named
         * @return that day in every year
         */
        public static Period everyYear(final MonthDay day) {
            final LocalDate d = day.atYear(ANY_YEAR);
            return new Period(d, d, true);
        }

        /**
         * @param memory a memory
         * @return whether one of its event dates or its validFrom day lies in this period
         */
        public boolean contains(final Memory memory) {
            return overlaps(days(memory));
        }

        /**
         * @param spans a memory's {@link TimeCues#days day spans}
         * @return whether one of them overlaps this period (primitive comparisons: the kept index's hot path;
         *     an {@link #anyYear} day walks the days of each span shorter than a year)
         */
        public boolean overlaps(final long[] spans) {
            if (anyYear) {
                for (int i = 0; i + 1 < spans.length; i += 2) {
                    if (holdsTheDay(spans[i], spans[i + 1])) {
                        return true;
                    }
                }
                return false;
            }
            final long first = from.toEpochDay();
            final long last = to.toEpochDay();
            for (int i = 0; i + 1 < spans.length; i += 2) {
                if (spans[i + 1] >= first && spans[i] <= last) {
                    return true;
                }
            }
            return false;
        }

        /**
         * @return whether the epoch-day span [start, end] holds this any-year day in some year: a span shorter than
         *     a year reaches from its first day's year into the next one at most, so the named day of those two
         *     years (29 February only in a leap year) is all there is to compare. Day by day over the span, as
         *     before, it was the kept index's hottest loop in {@code bench retrieval} (a LocalDate per day and
         *     memory, for every question naming a day without a year).
         */
        private boolean holdsTheDay(final long start, final long end) {
            if (end < start) {
                return false;
            }
            if (end - start >= LONGEST_RANGE_DAYS) {
                return true; // a span of a year or more holds every day of the year
            }
            final int month = from.getMonthValue();
            final int dayOfMonth = from.getDayOfMonth();
            final LocalDate first = LocalDate.ofEpochDay(start);
            if (end == start) {
                // one day, most event dates: it is the named day or not (a 29 February exists in a leap year only)
                return first.getMonthValue() == month && first.getDayOfMonth() == dayOfMonth;
            }
            final int firstYear = first.getYear();
            for (int year = firstYear; year <= firstYear + 1 && year <= Year.MAX_VALUE; year++) {
                if (month == 2 && dayOfMonth == 29 && !Year.isLeap(year)) {
                    continue;
                }
                final long day = LocalDate.of(year, month, dayOfMonth).toEpochDay();
                if (day >= start && day <= end) {
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
     * @return the most specific period it names (a day before a month of a year before a bare year), or empty
     */
    public static Optional<Period> in(final String question) {
        if (question == null || !hasAsciiDigit(question)) {
            // every cue names a year or a day of the month in ASCII digits (the patterns' \d is [0-9]):
            // a question without one names no period, and most questions skip the seven patterns
            return Optional.empty();
        }
        final String text = question.toLowerCase(Locale.ROOT);
        final Optional<Period> day = day(text);
        if (day.isPresent()) {
            return day;
        }
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

    /** @return whether the text holds one of 0–9, which each of the patterns needs to match */
    private static boolean hasAsciiDigit(final String text) {
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            if (c >= '0' && c <= '9') {
                return true;
            }
        }
        return false;
    }

    /** @return the first day the text names, with its year, the question's one year, or any year */
    private static Optional<Period> day(final String text) {
        final Matcher iso = ISO_DAY.matcher(text);
        while (iso.find()) {
            final Optional<Period> p = day(iso.group(1), Integer.parseInt(iso.group(2)), iso.group(3), text);
            if (p.isPresent()) {
                return p;
            }
        }
        final Matcher cjk = CJK_DAY.matcher(text);
        while (cjk.find()) {
            final Optional<Period> p = day(cjk.group(1), Integer.parseInt(cjk.group(2)), cjk.group(3), text);
            if (p.isPresent()) {
                return p;
            }
        }
        final Matcher monthDay = MONTH_DAY.matcher(text);
        while (monthDay.find()) {
            final Optional<Period> p = day(monthDay.group(3), month(monthDay.group(1)).getValue(), monthDay.group(2), text);
            if (p.isPresent()) {
                return p;
            }
        }
        final Matcher dayMonth = DAY_MONTH.matcher(text);
        while (dayMonth.find()) {
            final Optional<Period> p = day(dayMonth.group(3), month(dayMonth.group(2)).getValue(), dayMonth.group(1), text);
            if (p.isPresent()) {
                return p;
            }
        }
        return Optional.empty();
    }

    private static Optional<Period> day(final String attachedYear, final int month, final String dayOfMonth,
                                        final String text) {
        try {
            final MonthDay md = MonthDay.of(month, Integer.parseInt(dayOfMonth));
            String year = attachedYear;
            if (year == null) {
                final Matcher y = YEAR.matcher(text);
                year = y.find() ? y.group(1) : null;
                if (year != null && y.find() && !y.group(1).equals(year)) {
                    year = null; // two different years: the day's own is unknown
                }
            }
            if (year == null) {
                return Optional.of(Period.everyYear(md));
            }
            final LocalDate d = md.atYear(Integer.parseInt(year));
            if (d.getMonthValue() != month || d.getDayOfMonth() != md.getDayOfMonth()) {
                return Optional.empty(); // 29 February of a common year
            }
            return Optional.of(new Period(d, d));
        } catch (DateTimeException e) {
            return Optional.empty(); // 31 April: not a day
        }
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
