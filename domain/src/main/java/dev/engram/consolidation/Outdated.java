package dev.engram.consolidation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.core.MemoryIds;
import dev.engram.core.ValueAliases;
import dev.engram.port.ExtractedMemory;

/**
 * A fact's change reaches everything that states its old value. When a fact is superseded, corrected, deleted or
 * negated, the user's other ACTIVE memories without a key whose content states the old value (the turn episode
 * "My name is Dana and I work at Umbrella Labs", an exchange, a conversation summary, a merged memory) are marked
 * as outdated: they stay ACTIVE (the evidence is still what the user said, and {@code asOf} before the change still
 * finds them) but get {@code validTo} = the time of the change and {@code supersededBy} = the memory holding the new
 * value (null for a deletion or a negation). The retriever's context block renders such a memory as past
 * ("earlier … (until 2024-03-05)"), {@link Observations} no longer state it, the daily merge leaves it alone, and a
 * restatement is never folded into it.
 *
 * <p>A mark reaches the sentence, not the rest of what the user said: a memory marked for stating an old value records
 * it, and the values the key held before that it names ({@link Memory#getOutdatedValues}), and its clauses that state none and say something of the user's own
 * ({@link #currentPart}: "I love sushi" of "I love sushi, any good places in Lisbon?" once the user moved from
 * Lisbon) are still told as current, the whole memory as past. A later change whose old value such a clause states
 * marks it again (the value added; the first mark's time and memory kept); a correction reaching it through its
 * sources ({@link Reach#CITED_SOURCES}) makes it past whole.
 *
 * <p>What "states the old value" means: the value occurs in the content as a word, without regard to accents
 * ("Sao Paulo" states "São Paulo") or letter case ("oslo", "OSLO" state "Oslo"), a lowercase word also in its regular
 * plural ("peanuts" states "peanut", "allergies" "allergy"), except that a name (a value with a
 * capital letter) in lower case in a text that capitalizes is a common word ("the bill" does not state "Bill"); in
 * scripts without spaces, as a substring; the memory was
 * said at or before the change, the content does not also state the new value (the sentence telling the change,
 * "I moved from Porto to Braga", stays current), and it does not cite the message that made the change. Values of
 * fewer than {@value #MIN_VALUE_CHARS} characters (in Han script {@value #MIN_HAN_CHARS}) mark nothing (too many
 * words contain them), but a short number is stated as the user's age ({@link #statesAge}: "I'm 29"); for
 * a stance ("like", "dislike" of a {@code preference:<subject>} key) the key's subject in words is what a memory
 * must name ("I love horror movies" states {@code preference:horror_movies = like}).
 *
 * <p>A change can also reach further ({@link Reach#CITED_SOURCES}, a user's correction or deletion): the turn and
 * exchange episodes citing a message the fact was read from are marked too, however they word the value
 * ({@link #citesSourceOf}).
 *
 * <p>Pure: every time is the change's, so a replay marks the same memories.
 */
public final class Outdated {

    /** Shortest value that marks memories stating it. */
    static final int MIN_VALUE_CHARS = 3;
    /** Shortest value in Han characters that marks memories stating it (most words are two characters). */
    static final int MIN_HAN_CHARS = 2;
    /** Values that say how the user stands to the key's subject, not what it is: every other sentence has them. */
    private static final Set<String> POLARITIES = Set.of("like", "likes", "dislike", "dislikes",
        "love", "loves", "hate", "hates", "yes", "true", "false", "none", "off", "neutral", "prefer", "prefers");

    private Outdated() {
    }

    /** How far the marks of a change reach. */
    public enum Reach {
        /** The memories stating the old value (the class comment): a superseded or negated fact. */
        STATED_VALUE,
        /**
         * Those, and after them the turn and exchange episodes citing a message the fact was read from
         * ({@link #citesSourceOf}): a fact the user corrected or deleted, which names the sentence it was read from.
         */
        CITED_SOURCES
    }

    /**
     * The marks of one change of a fact, reaching the memories stating its old value ({@link Reach#STATED_VALUE}).
     *
     * @param old the fact as it was before the change (its key, value and time)
     * @param newValue the value that replaces it, or null (deleted, negated)
     * @param by the memory holding the new value, or null
     * @param changedBy the source of the statement or command that made the change, or null (a command)
     * @param at the event time of the change
     * @param userMemories every memory of the user, as the change found them
     * @param cause the cause of the marks' events (the change's)
     * @return one SUPERSEDED change per memory marked (its status stays ACTIVE), in the order of {@code userMemories}
     */
    public static List<Consolidator.Change> mark(final Memory old, final String newValue, final String by,
                                                 final SourceRef changedBy, final Instant at,
                                                 final List<Memory> userMemories, final String cause) {
        return mark(old, newValue, by, changedBy, at, userMemories, cause, Reach.STATED_VALUE);
    }

    /**
     * The marks of one change of a fact, as far as {@code reach} says.
     *
     * <p>With {@link Reach#CITED_SOURCES} the memories stating the old value come first, in the order of
     * {@code userMemories}, then the episodes citing the fact's sources that are not marked already, in the same
     * order. Such an episode's event has the event id {@code MemoryIds.eventId(memoryId, "SUPERSEDED", cause)} and no
     * {@code previousValue} (an episode has none): the ids these marks were first written with, when a command
     * applied them, so a replay of {@code memory-commands} writes the same ids (a command's cause is unique; the
     * value rule's ids add the time).
     *
     * @param old the fact as it was before the change (its key, value, sources and time)
     * @param newValue the value that replaces it, or null (deleted, negated)
     * @param by the memory holding the new value, or null
     * @param changedBy the source of the statement or command that made the change, or null (a command)
     * @param at the event time of the change
     * @param userMemories every memory of the user, as the change found them
     * @param cause the cause of the marks' events (the change's)
     * @param reach which memories the change reaches
     * @return one SUPERSEDED change per memory marked (its status stays ACTIVE); none when {@code old} is null or has
     *     no key
     */
    public static List<Consolidator.Change> mark(final Memory old, final String newValue, final String by,
                                                 final SourceRef changedBy, final Instant at,
                                                 final List<Memory> userMemories, final String cause,
                                                 final Reach reach) {
        final List<Consolidator.Change> out = new ArrayList<>();
        if (old == null || old.getKey() == null) {
            return out;
        }
        // "like horror movies" → "dislike": what states the old stance is what names the subject ("I love horror
        // movies"); the polarity words themselves are in every other sentence
        final boolean polarity = isPolarity(old.getValue());
        final String stated = polarity ? subject(old.getKey()) : old.getValue();
        final String replacing = polarity ? null : newValue;
        final List<String> earlier = polarity ? List.of() : earlierValues(old, newValue, at, userMemories);
        for (final Memory m : userMemories) {
            // a memory already marked for another value is reached again only through what it still says as current
            final String current = m.getValidTo() == null ? m.getContent() : OutdatedPart.currentPart(m);
            if (m.getStatus() != MemoryStatus.ACTIVE || m.getKey() != null || current == null
                || m.getMemoryId().equals(old.getMemoryId()) || m.getMemoryId().equals(by)
                || ExtractedMemory.isObservation(m.getType(), m.getDisplayName())
                || m.getValidFrom().isAfter(at) || cites(m, changedBy)
                || !states(current, stated)
                || replacing != null && states(m.getContent(), replacing)) {
                continue;
            }
            final List<String> values = new ArrayList<>(m.getOutdatedValues());
            values.add(stated);
            // a clause naming a value the key held before this one is no more current ("I work at International
            // Business Machines" once IBM, said since, changed to Accenture)
            earlier.stream().filter(v -> !values.contains(v) && states(m.getContent(), v)).forEach(values::add);
            out.add(MemoryLifecycle.change(m, outdated(m, by, at, values), UpdateOperation.SUPERSEDED, cause, at));
        }
        if (reach == Reach.CITED_SOURCES) {
            final Set<String> marked = new HashSet<>();
            out.forEach(c -> marked.add(c.after().getMemoryId()));
            for (final Memory m : userMemories) {
                if (!marked.contains(m.getMemoryId()) && citesSourceOf(m, old, newValue, by, at)) {
                    out.add(citedMark(m, outdated(m, by, at, List.of()), cause, at));
                }
            }
        }
        return out;
    }

    /**
     * @return the values the changed fact's key held before, as other facts of the user (superseded, corrected before)
     *     and as values a correction replaced ({@link Memory#getFormerValues}), said at or before the change, other than
     *     the old and the new value (each once, in the order of the memories)
     */
    private static List<String> earlierValues(final Memory old, final String newValue, final Instant at,
                                              final List<Memory> userMemories) {
        final List<String> out = new ArrayList<>();
        final String now = ValueAliases.fold(newValue);
        final String was = ValueAliases.fold(old.getValue());
        for (final Memory f : userMemories) {
            if (!old.getKey().equals(f.getKey()) || f.getValidFrom().isAfter(at)) {
                continue;
            }
            final List<String> held = new ArrayList<>();
            // a fact corrected in place held its former values before the one it has (Memory.formerValues)
            f.getFormerValues().forEach(v -> held.add(v.getValue()));
            if (f.getValue() != null) {
                held.add(f.getValue());
            }
            for (final String v : held) {
                final String folded = ValueAliases.fold(v);
                if (!folded.equals(now) && !folded.equals(was) && !isPolarity(v) && !out.contains(v)) {
                    out.add(v);
                }
            }
        }
        return out;
    }

    /**
     * @param values the old values it states ({@link Memory#getOutdatedValues}); empty: the whole memory is past
     * @return the memory marked as outdated: {@code validTo} = at, {@code supersededBy} = by, updated at the change;
     *     a memory marked before keeps the time and the memory of its first mark (its whole line held until then)
     */
    private static Memory outdated(final Memory m, final String by, final Instant at, final List<String> values) {
        final boolean first = m.getValidTo() == null;
        return Memory.newBuilder(m).setValidTo(first ? at : m.getValidTo())
            .setSupersededBy(first ? by : m.getSupersededBy()).setOutdatedValues(values)
            .setUpdatedAt(m.getUpdatedAt().isAfter(at) ? m.getUpdatedAt() : at).build();
    }

    /** The SUPERSEDED change of an episode citing the fact's sources (event id and fields: see {@link #mark}). */
    private static Consolidator.Change citedMark(final Memory before, final Memory after, final String cause,
                                                 final Instant at) {
        return new Consolidator.Change(before, MemoryUpdated.newBuilder()
            .setEventId(MemoryIds.eventId(after.getMemoryId(), UpdateOperation.SUPERSEDED.name(), cause))
            .setTenantId(after.getTenantId()).setUserId(after.getUserId()).setMemoryId(after.getMemoryId())
            .setOperation(UpdateOperation.SUPERSEDED).setMemory(after).setPreviousValue(null)
            .setCause(cause).setMemoryEnabled(null).setEventTime(at).build());
    }

    /**
     * Whether a change of {@code fact} outdates {@code m} for citing a message the fact was read from: a turn or
     * exchange episode (no key, not a summary or an observation, ACTIVE and current, or current only in part: {@link #currentPart}, said at or before the change)
     * sharing a message with one of the fact's sources (same conversation, a shared message index), that does not
     * state the new value ({@link #states}). The value rule finds what names the old value as a word; this finds the
     * sentence the value was read from when it words it otherwise (README trial: "Please keep answers short and give
     * me code first." stated {@code response_style = concise}, so correcting it to "detailed" left the episode current
     * beside "Prefers detailed answers", both from message 2 of mira-3). Summaries and observations hold more than
     * that message: they are left to the value rule.
     *
     * @param m a memory of the user
     * @param fact the fact as it was before the change
     * @param newValue its new value, or null (deleted)
     * @param by the memory holding the new value, or null
     * @param at the time of the change
     * @return true when {@code m} is to be marked outdated ({@code validTo} = {@code at}, {@code supersededBy} = by)
     */
    static boolean citesSourceOf(final Memory m, final Memory fact, final String newValue, final String by,
                                 final Instant at) {
        if (m.getStatus() != MemoryStatus.ACTIVE || m.getKey() != null || m.getValidTo() != null && OutdatedPart.currentPart(m) == null
            || m.getType() != MemoryType.EPISODIC
            || m.getMemoryId().equals(fact.getMemoryId()) || m.getMemoryId().equals(by)
            || ExtractedMemory.isSummary(m.getType(), m.getDisplayName())
            || ExtractedMemory.isObservation(m.getType(), m.getDisplayName())
            || m.getValidFrom().isAfter(at) || newValue != null && states(m.getContent(), newValue)) {
            return false;
        }
        for (final SourceRef source : fact.getSources()) {
            if (cites(m, source)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param value a fact's value
     * @return whether the value is a stance ("like", "dislike") rather than what the key is about
     */
    public static boolean isPolarity(final String value) {
        return value != null && POLARITIES.contains(value.strip().toLowerCase(Locale.ROOT));
    }

    /** @return the subject of a {@code <kind>:<subject>} key in words ("preference:horror_movies" → "horror movies"), or null */
    static String subject(final String key) {
        final int colon = key.indexOf(':');
        return colon < 0 ? null : key.substring(colon + 1).replaceAll("[_-]+", " ").strip();
    }

    /**
     * @param memory a memory
     * @return whether it is ACTIVE but states something that stopped being true ({@code validTo} set)
     */
    public static boolean isOutdated(final Memory memory) {
        return memory.getStatus() == MemoryStatus.ACTIVE && memory.getValidTo() != null;
    }

    /**
     * @param content a memory's content
     * @param value a fact's value
     * @return whether the content states the value (see the class comment), in any of its names
     *     ({@link ValueAliases#spellings}: "I code in vscode" states "VS Code")
     */
    public static boolean states(final String content, final String value) {
        return ValueAliases.spellings(value).stream().anyMatch(v -> statesSpelling(content, v));
    }

    /** @return whether the content states the value as written (see the class comment) */
    private static boolean statesSpelling(final String content, final String value) {
        final String v = value == null ? "" : value.strip();
        if (content == null || isPolarity(v)) {
            return false;
        }
        if (v.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN)) {
            return v.codePointCount(0, v.length()) >= MIN_HAN_CHARS && content.contains(v); // 北京 is a word
        }
        if (v.length() < MIN_VALUE_CHARS) {
            return v.chars().allMatch(Character::isDigit) && !v.isEmpty() && statesAge(content, v);
        }
        final String bare = MemoryIds.withoutAccents(v);
        final String text = MemoryIds.withoutAccents(content);
        final java.util.regex.Matcher named = (ValueWords.isCommonNoun(bare) ? ValueWords.plural(bare) : ValueWords.word(bare)).matcher(text);
        while (named.find()) {
            if (sameName(named.group(), bare, text)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A number too short to be found as a word (every other sentence has a "3" or a "29") is stated only as the user's
     * age: "I'm 29", "I am 29 years old", "I turned 29" ("My dog Rex is 3 years old. I'm 29." states 29, not 3).
     */
    private static boolean statesAge(final String content, final String number) {
        return Pattern.compile("\\bi(?:'m|\\s+am|\\s+(?:just\\s+)?turned)\\s+" + number + "(?![\\p{N}.,:%]\\d|\\s*(?:%|percent"
            + "|minutes?|mins?|hours?|km|miles?|kg|lbs?|pounds|points|weeks?|months?|days?|hrs?|mm|cm|\\p{N}))",
            Pattern.CASE_INSENSITIVE).matcher(dev.engram.text.TurnHeuristics.normalizeQuotes(content)).find();
    }

    /**
     * Whether an occurrence of a value, equal to it but for letter case (accents already aside), names it: a value in
     * lower case in any case; a name (a capital letter in it) written as the value, in capitals ("OSLO"), or in a text
     * without a capital letter (a lowercase typist's "i live in oslo"), not as a lowercase common word in a text that
     * capitalizes ("Bill" is not "I paid the bill").
     */
    private static boolean sameName(final String occurrence, final String value, final String text) {
        return value.equals(value.toLowerCase(Locale.ROOT)) || occurrence.equals(value)
            || occurrence.equals(occurrence.toUpperCase(Locale.ROOT))
            || text.equals(text.toLowerCase(Locale.ROOT));
    }

    /**
     * Whether a statement says that what a fact's value names ended for the user, the value named right at the
     * ending: "Marco and I broke up", "broke up with Marco", "Biscuit died", "Biscuit passed away", "I left IBM",
     * "I quit my job at Hooli", "moved away from Lisbon", "moved out of Lisbon". Anchored on the value, so "I left my
     * keys at Hooli" ends nothing.
     *
     * @param statement what the user said
     * @param value a fact's value
     * @return true when a sentence of it ends the value
     */
    public static boolean ends(final String statement, final String value) {
        if (!states(statement, value)) {
            return false;
        }
        final String v = MemoryIds.withoutAccents(value.strip());
        final String w = v.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN)
            ? Pattern.quote(v) : ValueWords.word(v).pattern();
        final int flags = Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;
        return Pattern.compile("(?i:\\b(?:broke|split)\\s+up\\s+with\\s+|\\bdivorced\\s+|\\b(?:quit|left)\\s+(?:my\\s+job\\s+"
            + "(?:at|with)\\s+|my\\s+position\\s+at\\s+)?|\\bmoved\\s+(?:away\\s+from|out\\s+of|from)\\s+)" + w
            + "|" + w + "(?i:\\s+and\\s+I\\s+(?:broke|split)\\s+up\\b|\\s+(?:died|passed\\s+away)\\b)", flags)
            .matcher(MemoryIds.withoutAccents(statement)).find();
    }

    /**
     * The content of a fact rewritten for a new value: every place it names the old value as a word now says the new
     * one ("Lives in Graz" → "Lives in Linz", "Main programming language is Go" → "… is Rust"). Unlike {@link #states},
     * a value shorter than {@value #MIN_VALUE_CHARS} characters counts: that floor keeps short values from marking
     * other statements outdated, while here the user corrects the fact's own content, which the value was read from
     * (README trial: a correction of "Go" to "Rust" was refused as naming no value).
     *
     * @param content the fact's content
     * @param oldValue its value
     * @param newValue the corrected value
     * @return the rewritten content, or null when the content does not name the old value (nothing to rewrite) or the
     *     value is a polarity ("like", "dislike") rather than a thing named
     */
    public static String withValue(final String content, final String oldValue, final String newValue) {
        final String v = oldValue == null ? "" : oldValue.strip();
        if (content == null || newValue == null || v.isEmpty() || isPolarity(v)) {
            return null;
        }
        if (v.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN)) {
            return content.contains(v) ? content.replace(v, newValue.strip()) : null;
        }
        // the fact's own content names its value as written: a name case-sensitively ("Go", not "go hiking")
        final java.util.regex.Matcher named = (v.equals(v.toLowerCase(Locale.ROOT)) ? ValueWords.word(v)
            : Pattern.compile(ValueWords.word(v).pattern())).matcher(content);
        return named.find() ? named.replaceAll(java.util.regex.Matcher.quoteReplacement(newValue.strip())) : null;
    }

    /** @return whether the memory cites a message of {@code source} (same conversation, a shared message index) */
    static boolean cites(final Memory memory, final SourceRef source) {
        if (source == null) {
            return false;
        }
        for (final SourceRef s : memory.getSources()) {
            if (s.getConversationId().equals(source.getConversationId())
                && s.getMessageIndexes().stream().anyMatch(source.getMessageIndexes()::contains)) {
                return true;
            }
        }
        return false;
    }
}
