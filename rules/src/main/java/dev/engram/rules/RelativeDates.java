package dev.engram.rules;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.TextStyle;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.text.CaselessPattern;
import dev.engram.text.CaselessText;

/**
 * Resolves relative time expressions in one turn ("yesterday", "last week", "two days ago", "next month",
 * "last Friday", 昨天, 先週, 지난주, hôm qua …) against the message's own timestamp into absolute dates.
 *
 * <p>The reference day is the message timestamp's date in UTC (the timestamps on
 * {@code conversations-completed} are instants; a chat platform that knows the user's zone can send a
 * timestamp in it). Nothing reads the clock, so a replay in any later year resolves every expression to
 * the same dates.
 *
 * <p>Calendar conventions (ISO 8601 weeks, Monday first):
 * <ul>
 *   <li>"last week" = Monday–Sunday of the previous week (said on Wed 2023-05-24: 15–21 May 2023); "this
 *       week" the current one, "next week" the following one; "N weeks ago" = the week N weeks back;</li>
 *   <li>"last month" / "next month" / "N months ago" = that calendar month; likewise years;</li>
 *   <li>"this weekend" = Saturday–Sunday of the current week, "last weekend" / "N weekends ago" the one
 *       1 / N weeks before (also when said on a Saturday or Sunday), "next weekend" the one a week after;</li>
 *   <li>"last Friday" = the latest Friday strictly before the reference day, "next Friday" the first one
 *       after it; "yesterday", "last night" = the day before, "the day before yesterday" two days before.</li>
 * </ul>
 * Expressions without a clear calendar meaning ("recently", "a while ago", "the other day", "a few weeks
 * ago") are left alone rather than guessed.
 */
public final class RelativeDates {

    /** Compiled once (String#replaceAll compiles its pattern at every call). */
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    /**
     * One resolved expression.
     *
     * @param start offset of the expression in the text
     * @param end offset after it
     * @param iso ISO 8601: a date {@code 2023-05-23}, an interval {@code 2023-05-15/2023-05-21}, a month
     *     {@code 2023-05} or a year {@code 2023}
     * @param label the same for a reader: "23 May 2023", "15–21 May 2023", "May 2023", "2023" (English
     *     text) or the ISO form (any other language)
     */
    public record Resolved(int start, int end, String iso, String label) {
    }

    private static final String NUM = "(\\d{1,2}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
        + "|a\\s+couple\\s+of|couple\\s+of)";
    private static final String WEEKDAY = "(monday|tuesday|wednesday|thursday|friday|saturday|sunday)";
    private static final Map<String, Integer> SMALL_NUMBERS = Map.ofEntries(Map.entry("a", 1), Map.entry("an", 1),
        Map.entry("one", 1), Map.entry("two", 2), Map.entry("three", 3), Map.entry("four", 4), Map.entry("five", 5),
        Map.entry("six", 6), Map.entry("seven", 7), Map.entry("eight", 8), Map.entry("nine", 9), Map.entry("ten", 10),
        Map.entry("eleven", 11), Map.entry("twelve", 12), Map.entry("a couple of", 2), Map.entry("couple of", 2));

    private enum Unit { DAY, WEEK, WEEKEND, MONTH, YEAR }

    /** How one pattern turns a match and the reference day into a span. */
    @FunctionalInterface
    private interface Resolver {
        Span resolve(Matcher m, LocalDate day);
    }

    private record Rule(CaselessPattern pattern, Resolver resolver) {
    }

    /** A resolved calendar span: a day range, or a whole month or year. */
    private record Span(LocalDate from, LocalDate to, Unit unit) {
    }

    private static final List<Rule> RULES = List.of(
        rule("\\bthe\\s+day\\s+before\\s+yesterday\\b", (m, d) -> day(d.minusDays(2))),
        rule("\\bthe\\s+day\\s+after\\s+tomorrow\\b", (m, d) -> day(d.plusDays(2))),
        rule("\\b(?:yesterday|last\\s+night)\\b", (m, d) -> day(d.minusDays(1))),
        rule("\\b(?:today|tonight|this\\s+(?:morning|afternoon|evening))\\b", (m, d) -> day(d)),
        rule("\\btomorrow\\b", (m, d) -> day(d.plusDays(1))),
        rule("\\b" + NUM + "\\s+(days?|weeks?|weekends?|months?|years?)\\s+ago\\b",
            (m, d) -> shifted(d, unit(m.group(2)), -count(m.group(1)))),
        rule("\\bin\\s+" + NUM + "\\s+(days?|weeks?|months?|years?)(?:'?\\s+time)?\\b",
            (m, d) -> shifted(d, unit(m.group(2)), count(m.group(1)))),
        rule("\\b(last|this|next)\\s+(week|weekend|month|year)\\b", (m, d) -> shifted(d, unit(m.group(2)),
            switch (m.group(1).toLowerCase(Locale.ROOT)) {
                case "last" -> -1;
                case "next" -> 1;
                default -> 0;
            })),
        rule("\\blast\\s+" + WEEKDAY + "\\b", (m, d) -> day(d.with(TemporalAdjusters.previous(weekday(m.group(1)))))),
        rule("\\bnext\\s+" + WEEKDAY + "\\b", (m, d) -> day(d.with(TemporalAdjusters.next(weekday(m.group(1)))))),
        // Chinese
        rule("前天", (m, d) -> day(d.minusDays(2))),
        rule("后天|後天", (m, d) -> day(d.plusDays(2))),
        rule("昨天|昨晚|昨日", (m, d) -> day(d.minusDays(1))),
        rule("明天|明日", (m, d) -> day(d.plusDays(1))),
        rule("今天|今晚|今日", (m, d) -> day(d)),
        rule("上(?:个|個)?(?:星期|周|週|礼拜|禮拜)|先週", (m, d) -> shifted(d, Unit.WEEK, -1)),
        rule("下(?:个|個)?(?:星期|周|週|礼拜|禮拜)|来週|來週", (m, d) -> shifted(d, Unit.WEEK, 1)),
        rule("上(?:个|個)月|先月", (m, d) -> shifted(d, Unit.MONTH, -1)),
        rule("下(?:个|個)月|来月|來月", (m, d) -> shifted(d, Unit.MONTH, 1)),
        rule("去年|昨年", (m, d) -> shifted(d, Unit.YEAR, -1)),
        rule("明年|来年|來年", (m, d) -> shifted(d, Unit.YEAR, 1)),
        // Korean
        rule("그저께|그제", (m, d) -> day(d.minusDays(2))),
        rule("어제", (m, d) -> day(d.minusDays(1))),
        rule("내일", (m, d) -> day(d.plusDays(1))),
        rule("지난\\s*주", (m, d) -> shifted(d, Unit.WEEK, -1)),
        rule("다음\\s*주", (m, d) -> shifted(d, Unit.WEEK, 1)),
        rule("지난\\s*달", (m, d) -> shifted(d, Unit.MONTH, -1)),
        rule("다음\\s*달", (m, d) -> shifted(d, Unit.MONTH, 1)),
        rule("작년", (m, d) -> shifted(d, Unit.YEAR, -1)),
        rule("내년", (m, d) -> shifted(d, Unit.YEAR, 1)),
        // Vietnamese, French, Spanish, German, Portuguese, Italian
        rule("\\b(?:hôm\\s+qua|hier|ayer|gestern|ontem|ieri)\\b", (m, d) -> day(d.minusDays(1))),
        rule("\\b(?:ngày\\s+mai|demain|übermorgen)\\b",
            (m, d) -> day(d.plusDays(m.group().toLowerCase(Locale.ROOT).startsWith("ü") ? 2 : 1))),
        rule("\\b(?:tuần\\s+trước|la\\s+semaine\\s+dernière|la\\s+semana\\s+pasada|letzte\\s+woche)\\b",
            (m, d) -> shifted(d, Unit.WEEK, -1)),
        rule("\\b(?:tháng\\s+trước|le\\s+mois\\s+dernier|el\\s+mes\\s+pasado|letzten\\s+monat)\\b",
            (m, d) -> shifted(d, Unit.MONTH, -1)),
        rule("\\b(?:năm\\s+ngoái|l'année\\s+dernière|el\\s+año\\s+pasado|letztes\\s+jahr)\\b",
            (m, d) -> shifted(d, Unit.YEAR, -1)),
        // Arabic
        rule("البارحة|أمس", (m, d) -> day(d.minusDays(1))),
        rule("غدا|غداً", (m, d) -> day(d.plusDays(1))));

    private RelativeDates() {
    }

    private static Rule rule(final String regex, final Resolver resolver) {
        return new Rule(CaselessPattern.compile(regex), resolver);
    }

    /**
     * @param text one turn
     * @param said the message timestamp
     * @param english true to label in English ("15–21 May 2023"), false for ISO labels
     * @return the resolved expressions in text order, non-overlapping (the earliest, then longest match wins)
     */
    public static List<Resolved> resolve(final String text, final Instant said, final boolean english) {
        final LocalDate day = LocalDate.ofInstant(said, ZoneOffset.UTC);
        final List<Resolved> found = new ArrayList<>();
        final String normalized = FactRules.normalizeQuotes(text);
        final CaselessText subject = CaselessText.of(normalized); // once for the ~40 rules
        for (final Rule rule : RULES) {
            if (!rule.pattern().mayMatch(subject)) {
                continue; // no date word of the rule in the text
            }
            final Matcher m = rule.pattern().matcher(subject);
            while (m.find()) {
                final int start = m.start();
                final int end = m.end();
                if (found.stream().anyMatch(r -> start < r.end() && r.start() < end)) {
                    continue;
                }
                final Span span = rule.resolver().resolve(m, day);
                if (span != null) {
                    found.add(new Resolved(start, end, iso(span), english ? label(span) : iso(span)));
                }
            }
        }
        found.sort((a, b) -> Integer.compare(a.start(), b.start()));
        return List.copyOf(found);
    }

    /**
     * @param text one turn
     * @param resolved its expressions from {@link #resolve}
     * @return the text with each expression followed by its date in parentheses ("last week (15–21 May 2023)")
     */
    public static String annotate(final String text, final List<Resolved> resolved) {
        if (resolved.isEmpty()) {
            return text;
        }
        final StringBuilder out = new StringBuilder(text.length() + 16 * resolved.size());
        int at = 0;
        for (final Resolved r : resolved) {
            out.append(text, at, r.end()).append(" (").append(r.label()).append(')');
            at = r.end();
        }
        return out.append(text.substring(at)).toString();
    }

    private static Span day(final LocalDate d) {
        return new Span(d, d, Unit.DAY);
    }

    private static Span shifted(final LocalDate d, final Unit unit, final int n) {
        return switch (unit) {
            case DAY -> day(d.plusDays(n));
            case WEEK -> {
                final LocalDate monday = d.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)).plusWeeks(n);
                yield new Span(monday, monday.plusDays(6), Unit.WEEK);
            }
            case WEEKEND -> {
                // the Saturday of the current ISO week, moved by n weeks: "last weekend" is always the one
                // before the current week's, also when said on that Saturday or Sunday
                final LocalDate saturday = d.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)).plusDays(5)
                    .plusWeeks(n);
                yield new Span(saturday, saturday.plusDays(1), Unit.WEEKEND);
            }
            case MONTH -> {
                final YearMonth month = YearMonth.from(d).plusMonths(n);
                yield new Span(month.atDay(1), month.atEndOfMonth(), Unit.MONTH);
            }
            case YEAR -> {
                final LocalDate first = d.withDayOfYear(1).plusYears(n);
                yield new Span(first, first.plusYears(1).minusDays(1), Unit.YEAR);
            }
        };
    }

    private static Unit unit(final String word) {
        final String w = word.toLowerCase(Locale.ROOT);
        if (w.startsWith("weekend")) {
            return Unit.WEEKEND;
        }
        return switch (w.charAt(0)) {
            case 'd' -> Unit.DAY;
            case 'w' -> Unit.WEEK;
            case 'm' -> Unit.MONTH;
            default -> Unit.YEAR;
        };
    }

    private static int count(final String word) {
        final String w = WHITESPACE.matcher(word.toLowerCase(Locale.ROOT)).replaceAll(" ");
        return SMALL_NUMBERS.containsKey(w) ? SMALL_NUMBERS.get(w) : Integer.parseInt(w);
    }

    private static DayOfWeek weekday(final String name) {
        return DayOfWeek.valueOf(name.toUpperCase(Locale.ROOT));
    }

    private static String iso(final Span s) {
        return switch (s.unit()) {
            case DAY -> s.from().toString();
            case MONTH -> YearMonth.from(s.from()).toString();
            case YEAR -> String.valueOf(s.from().getYear());
            default -> s.from() + "/" + s.to();
        };
    }

    private static String label(final Span s) {
        return switch (s.unit()) {
            case DAY -> s.from().getDayOfMonth() + " " + month(s.from()) + " " + s.from().getYear();
            case MONTH -> month(s.from()) + " " + s.from().getYear();
            case YEAR -> String.valueOf(s.from().getYear());
            default -> range(s.from(), s.to());
        };
    }

    private static String range(final LocalDate from, final LocalDate to) {
        if (from.getYear() != to.getYear()) {
            return from.getDayOfMonth() + " " + month(from) + " " + from.getYear() + " – " + to.getDayOfMonth() + " "
                + month(to) + " " + to.getYear();
        }
        if (from.getMonth() != to.getMonth()) {
            return from.getDayOfMonth() + " " + month(from) + " – " + to.getDayOfMonth() + " " + month(to) + " "
                + to.getYear();
        }
        return from.getDayOfMonth() + "–" + to.getDayOfMonth() + " " + month(to) + " " + to.getYear();
    }

    private static String month(final LocalDate d) {
        return d.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
    }
}
