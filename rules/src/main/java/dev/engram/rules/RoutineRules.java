package dev.engram.rules;

import static dev.engram.rules.FactPatterns.ADVS;
import static dev.engram.rules.FactRules.EXPLICIT;
import static dev.engram.rules.FactRules.IMPORTANCE_LIKES;
import static dev.engram.rules.FactRules.rule;

import java.util.List;
import java.util.Locale;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;

/**
 * The times of the user's day, one slot each so a restatement in other words is the same fact and a new time
 * supersedes the old: {@code wake_time} ("I wake up at 6:30", "I always get up at 7", "my alarm goes off at 6:30") and
 * {@code bed_time} ("I go to bed at 11 pm", "I usually go to sleep around 10:30"). The value is the time as a clock
 * reads it: "6:30", "7 am" (a dot for the colon and spaces before am/pm normalized: "6.30 AM" is "6:30 am"), so the
 * same time said twice is one value. A PERSONAL fact: a routine, not a passing plan ("tomorrow I'll get up at 5" is
 * a plan: {@link FactRules}' hypotheticals, and "tomorrow" here, state nothing).
 */
final class RoutineRules {

    /** A clock time: 6:30, 6.30, 7, 7 am, 11pm. */
    private static final String TIME = "(\\d{1,2}(?:[:.]\\d{2})?(?:\\s*[ap]\\.?m\\.?)?)(?![\\d:.])";

    /** Wake and bed times. */
    static final List<Rule> RULES = List.of(
        rule("wake-time", "\\b(?:i|we)\\s+" + ADVS + "(?:wake|get)\\s+up\\s+(?:at|around|by)\\s+" + TIME
            + "|\\bmy\\s+alarm\\s+(?:goes\\s+off|rings|is\\s+set)\\s+(?:at|for)\\s+" + TIME,
            (m, s) -> time("wake_time", "Wake-up time", "Wakes up at ", FactRules.first(m, 1, 2), s)),
        rule("bed-time", "\\b(?:i|we)\\s+" + ADVS + "go\\s+to\\s+(?:bed|sleep)\\s+(?:at|around|by)\\s+" + TIME,
            (m, s) -> time("bed_time", "Bedtime", "Goes to bed at ", m.group(1), s)));

    private RoutineRules() {
    }

    private static List<Fact> time(final String key, final String display, final String says, final String raw,
                                   final String sentence) {
        if (raw == null || raw.isBlank() || sentence.toLowerCase(Locale.ROOT).matches(".*\\b(?:tomorrow|tonight)\\b.*")) {
            return List.of();
        }
        final String time = normalize(raw);
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, key, time, display, says + time, false,
            IMPORTANCE_LIKES, EXPLICIT, MemorySource.EXPLICIT));
    }

    /** @return "6:30", "7 am": a colon for a dot, am/pm lower case without dots after one space */
    static String normalize(final String raw) {
        final String t = raw.strip().toLowerCase(Locale.ROOT).replace('.', ':').replaceAll(":(?=[ap]|\\s|$)", "");
        return t.replaceAll("\\s*([ap]):?m:?$", " $1m").strip();
    }
}
