package dev.engram.consolidation;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.UpdateOperation;
import dev.engram.core.EditDistance;
import dev.engram.core.MemoryIds;

/**
 * Rule 9 of the {@link Consolidator}: the user corrects a value of their own in a later message ("I meant Lisbon, not
 * Lisbn", "Sorry, I meant Lisbon", "Sorry, Lisbon, not Lisbn"). The episode saying it names no fact slot, so no
 * rule keyed by the slot sees it; without this rule the misspelled value stayed the fact and the correction one more
 * episode ("Lives in Lisbn" served as the user's city).
 *
 * <p>A sentence of the user's own episode corrects an ACTIVE fact of a single-valued slot (a key without {@code :},
 * {@code city}, {@code employer}, {@code name}: a key like {@code pet:tom} or {@code uses:jira} names its value, and a
 * new value there is another entity, which {@link Renames} handles) when
 * <ul>
 *   <li>it names the fact's value as the one it replaces ({@code not Y}, {@code instead of Y}, {@code rather than Y};
 *       compared as values are, {@link MemoryIds#fold}), or</li>
 *   <li>it names no replaced value and its new value is a typing error away from the fact's value (Damerau–Levenshtein
 *       distance 1, or 2 for values of {@value #LONG_VALUE} letters or more, letters compared folded; never equal):
 *       "Sorry, I meant Lisbon" corrects "Lisbn", not "Porto"; a number corrects a number one typing error away
 *       however short ("I'm 41. Sorry, I meant 42." corrects the age), never a word.</li>
 * </ul>
 * said at or after the fact's {@code validFrom}. Exactly one fact must qualify (two facts holding the value: which one
 * is unsaid, nothing changes). The fact is then corrected in place, as a {@code PUT .../memories/{id}} correction does
 * ({@code MemoryCommands}): same id, the new value, the content rewritten where it names the old one
 * ({@link Outdated#withValue}; a content that does not name it corrects nothing), source CORRECTED, confidence 1,
 * the message among its sources, event CORRECTED; the memories stating the old value and the episodes citing the
 * message it was read from are marked ({@link Outdated.Reach#CITED_SOURCES}). A misspelling was never true, so the old
 * value is a version of the memory's history, not an earlier fact: nothing is archived, and "where did I live before?"
 * is not answered with it. The fact's vector stays the one of its old content until it is re-embedded
 * ({@code bin/engram reembed}): one letter or one name apart, the statement embeds close to the old one. Stateless.
 */
final class SelfCorrections {

    /** From this many letters a value may be two typing errors away from its correction. */
    static final int LONG_VALUE = 8;
    /** A value said as the correction: one to four words, a letter first, or a number ("I meant 42"). */
    private static final String VALUE = "(\\p{L}[\\p{L}\\p{N}'&.-]*(?:\\s+\\p{L}[\\p{L}\\p{N}'&.-]*){0,3}?|\\p{N}+)";
    private static final String MEANT = "\\bi\\s+(?:meant|mean)(?:\\s+to\\s+(?:say|write|type))?\\s+";
    private static final String REPLACES = "\\s*,?\\s*(?:not|instead\\s+of|rather\\s+than)\\s+";
    private static final String END = "\\s*(?:[.!]+|$)";
    /** "I meant X, not Y", "X, not Y" (the whole sentence), "I meant X" (the whole clause). */
    private static final List<Pattern> FORMS = List.of(
        Pattern.compile(MEANT + VALUE + REPLACES + VALUE + END, Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE),
        Pattern.compile("^\\s*(?:sorry\\s*,?\\s*|oops\\s*,?\\s*)?" + VALUE + REPLACES + VALUE + END,
            Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE),
        Pattern.compile(MEANT + VALUE + END, Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE));

    private SelfCorrections() {
    }

    /**
     * A correction's reading: the value said now and the one it replaces (null when unsaid).
     *
     * @param value the corrected value as the user wrote it
     * @param replaced the value it replaces, or null
     */
    record Said(String value, String replaced) {
    }

    /**
     * @param statement what the user said (an episode's content)
     * @return each correction its sentences say, in order
     */
    static List<Said> said(final String statement) {
        final List<Said> out = new ArrayList<>();
        for (final String sentence : statement.split("(?<=[.!?;])\\s+|\\n+")) {
            for (final Pattern form : FORMS) {
                final Matcher m = form.matcher(sentence.strip());
                if (m.find()) {
                    out.add(new Said(bare(m.group(1)), m.groupCount() > 1 ? bare(m.group(2)) : null));
                    break;
                }
            }
        }
        return out;
    }

    /**
     * The fact a user's episode corrects and its new value, if any (the class comment).
     *
     * @param candidate a user's own episode (no key, not an exchange or a summary)
     * @param userMemories the user's memories
     * @return the correction, or null
     */
    static Consolidator.Decision correct(final MemoryCandidate candidate, final List<Memory> userMemories) {
        for (final Said said : said(candidate.getContent())) {
            Memory target = null;
            int qualifying = 0;
            for (final Memory fact : userMemories) {
                if (fact.getStatus() == MemoryStatus.ACTIVE && fact.getKey() != null && !fact.getKey().contains(":")
                    && fact.getValue() != null && !candidate.getEventTime().isBefore(fact.getValidFrom())
                    && corrects(said, fact.getValue())) {
                    target = fact;
                    qualifying++;
                }
            }
            if (qualifying == 1) {
                final String value = cased(said.value(), target.getValue());
                final String content = Outdated.withValue(target.getContent(), target.getValue(), value);
                if (content != null) {
                    return corrected(target, value, content, candidate, userMemories);
                }
            }
        }
        return null;
    }

    /** Words that make a clause, not a value: "I'm vegan, not vegetarian" is a statement, not a value corrected. */
    private static final Pattern NOT_A_VALUE = Pattern.compile("(?i)(?<![\\p{L}'])(?:i|i'm|im|my|me|we|our|you|your|it|it's"
        + "|is|am|are|was|were|a|an|the|this|that|to)(?![\\p{L}'])");

    /** A value as said, without the sentence's end ("Lisbon." of "I meant Lisbon."). */
    private static String bare(final String value) {
        return value.strip().replaceAll("[.!,;:]+$", "");
    }

    /**
     * The corrected value in the letter case of the value it corrects when the user typed it all in lower case ("i
     * meant lisbon" corrects "Lisbn" to "Lisbon"): a name stays a name.
     */
    static String cased(final String value, final String old) {
        if (!value.equals(value.toLowerCase(java.util.Locale.ROOT)) || old.isEmpty() || !Character.isUpperCase(old.charAt(0))) {
            return value;
        }
        final StringBuilder out = new StringBuilder(value.length());
        boolean start = true;
        for (final char c : value.toCharArray()) {
            out.append(start ? Character.toUpperCase(c) : c);
            start = Character.isWhitespace(c) || c == '-';
        }
        return out.toString();
    }

    /** Whether the correction replaces this value: named as replaced, or a typing error away when none is named. */
    static boolean corrects(final Said said, final String value) {
        final String now = MemoryIds.fold(said.value());
        final String old = MemoryIds.fold(value);
        if (now.equals(old) || NOT_A_VALUE.matcher(said.value()).find()) {
            return false;
        }
        if (said.replaced() != null) {
            return MemoryIds.fold(said.replaced()).equals(old);
        }
        final int longest = Math.max(now.length(), old.length());
        if (number(now) || number(old)) {
            // "I'm 41. Sorry, I meant 42.": a number corrects a number one typing error away, however short
            return number(now) && number(old) && EditDistance.of(now, old) <= 1;
        }
        return Math.abs(now.length() - old.length()) <= 2 && EditDistance.of(now, old) <= (longest >= LONG_VALUE ? 2 : 1)
            && Math.min(now.length(), old.length()) >= 3;
    }

    private static boolean number(final String value) {
        return !value.isEmpty() && value.chars().allMatch(Character::isDigit);
    }

    private static Consolidator.Decision corrected(final Memory fact, final String value, final String content,
                                                   final MemoryCandidate candidate, final List<Memory> userMemories) {
        final java.time.Instant at = candidate.getEventTime();
        final List<dev.engram.avro.SourceRef> sources = new ArrayList<>(fact.getSources());
        sources.add(MemoryWrites.sourceOf(candidate));
        final Memory after = Memory.newBuilder(fact).setValue(value).setContent(content)
            .setSource(MemorySource.CORRECTED).setConfidence(1.0).setSources(sources)
            .setUpdatedAt(MemoryWrites.later(fact.getUpdatedAt(), at))
            .setLastConfirmedAt(MemoryWrites.later(fact.getLastConfirmedAt(), at)).build();
        final List<Consolidator.Change> changes = new ArrayList<>(List.of(
            MemoryWrites.change(fact, after, UpdateOperation.CORRECTED, candidate)));
        changes.addAll(Outdated.mark(fact, value, fact.getMemoryId(), MemoryWrites.sourceOf(candidate), at, userMemories,
            MemoryWrites.causeOf(candidate), Outdated.Reach.CITED_SOURCES));
        return new Consolidator.Decision(Consolidator.Outcome.REINFORCED, changes, List.of(), List.of());
    }
}
