package dev.engram.consolidation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.avro.FormerValue;
import dev.engram.avro.Memory;
import dev.engram.core.MemoryIds;
import dev.engram.core.PlaceNames;
import dev.engram.core.ValueAliases;
import dev.engram.scoring.MemoryTime;
import dev.engram.text.CaselessPattern;

/**
 * Comparisons of facts and statements shared by the {@link Consolidator} and the embedded
 * contradiction judge: whether two values of one fact slot are the same, which numbers a sentence
 * carries, and whether a sentence is phrased as a negation.
 *
 * <p>Pure functions, no state.
 */
public final class Facts {

    private static final Pattern TOKENS = Pattern.compile("\\d+(?:[.,]\\d+)?|\\p{L}+");
    /** Words, with inner dashes, dots, slashes and commas kept ("North-17", "B-207", "2.5", "v1/2"). */
    private static final Pattern WORDS = Pattern.compile("[\\p{L}\\p{N}]+(?:[-./,][\\p{L}\\p{N}]+)*");
    private static final Map<String, String> NUMBER_WORDS = Map.ofEntries(
        Map.entry("two", "2"), Map.entry("three", "3"),
        Map.entry("four", "4"), Map.entry("five", "5"), Map.entry("six", "6"), Map.entry("seven", "7"),
        Map.entry("eight", "8"), Map.entry("nine", "9"), Map.entry("ten", "10"), Map.entry("eleven", "11"),
        Map.entry("twelve", "12"), Map.entry("thirteen", "13"), Map.entry("fourteen", "14"),
        Map.entry("fifteen", "15"), Map.entry("sixteen", "16"), Map.entry("seventeen", "17"),
        Map.entry("eighteen", "18"), Map.entry("nineteen", "19"), Map.entry("twenty", "20"),
        Map.entry("thirty", "30"), Map.entry("forty", "40"), Map.entry("fifty", "50"));
    /**
     * Cues that flip the polarity of a statement about a subject: explicit negation ("no longer",
     * "not", "n't", "never", "anymore"), stopping ("stopped", "quit", "gave up", "gone off") and
     * aversion ("hate", "dislike", "can't stand").
     */
    private static final CaselessPattern NEGATION = CaselessPattern.compile(
        "\\b(no longer|not|never|no more|any ?more|stopped|quit|gave up|given up|gone off|went off"
            + "|hate|hates|dislike|dislikes|can'?t stand|cannot stand)\\b|n't\\b|n’t\\b");

    /** The prefixes of keys naming one person or pet by name ({@link #entitySlot}). */
    private static final List<String> ENTITY_KEYS = List.of("pet:", "friend:", "family:");
    /** The single-valued slots whose value is a place, where a typing error of the current value restates it. */
    private static final List<String> PLACE_KEYS = List.of("city", "hometown");

    private static final Pattern SENTENCES = Pattern.compile("(?<=[.!?。！？;；])\\s*|,\\s+(?:but|and)\\s+");
    /** Leaving or ending what a value names: it is not confirmed by the sentence that ends it. */
    private static final CaselessPattern LEFT = CaselessPattern.compile("\\b(?:left|leaving|resigned|fired|laid\\s+off|moved\\s+(?:away\\s+)?from"
        + "|switched\\s+from|broke\\s+up|died|passed\\s+away|former|used\\s+to|ex)\\b|离开|不再|以前");

    private Facts() {
    }

    /**
     * The value a fact held at a time, for a fact corrected in place ({@link Memory#getFormerValues}): the first former
     * value replaced after that time, else the value it has. A statement dated then of that value is what a replay, which
     * orders candidates and commands by time, applies before the correction: evidence of the fact, not a contradiction.
     *
     * @param fact a keyed memory
     * @param at an event time
     * @return the former value held at {@code at} (the correction after it not yet made), or null when it held its
     *     current value then, or {@code at} is before the fact's {@code validFrom}
     */
    public static FormerValue formerValueAt(final Memory fact, final Instant at) {
        return MemoryTime.formerValueAt(fact, at);
    }

    /**
     * @param fact a keyed memory
     * @param at an event time
     * @return the value the fact held at that time ({@link #formerValueAt}, else its value)
     */
    public static String valueAt(final Memory fact, final Instant at) {
        final FormerValue former = formerValueAt(fact, at);
        return former == null ? fact.getValue() : former.getValue();
    }

    /**
     * Tells whether two statements of one fact slot say the same thing: the values are equal after
     * {@link MemoryIds#fold(String)} (letter case and accents aside, as the correction route compares a content with
     * its value: "São Paulo", "Sao Paulo" and "SÃO PAULO" are one value) or are names of one tool
     * ({@link ValueAliases}: "vscode", "Visual Studio Code"), and when both contents carry numbers, the numbers are
     * equal too ("3 years at Ferrovia Labs" is not "4 years at Ferrovia Labs", case-02).
     *
     * @param valueA value of the first statement, may be null
     * @param contentA content of the first statement
     * @param valueB value of the second statement, may be null
     * @param contentB content of the second statement
     * @return true when they state the same value
     */
    public static boolean sameValue(final String valueA, final String contentA,
                                    final String valueB, final String contentB) {
        if (!ValueAliases.fold(valueA).equals(ValueAliases.fold(valueB))) {
            return false;
        }
        final List<String> numbersA = numbers(contentA);
        final List<String> numbersB = numbers(contentB);
        return numbersA.isEmpty() || numbersB.isEmpty() || numbersA.equals(numbersB);
    }

    /**
     * Whether a fact of a place slot ({@code city}, {@code hometown}) says the slot's current value mistyped
     * ({@link PlaceNames#mistyped}: "I live in San Fransisco" after "San Francisco"): a restatement, which reinforces the
     * fact, not a move. Asked of the current value only, so a typing error never brings an earlier place back.
     *
     * @param key the candidate's key, may be null
     * @param currentValue the ACTIVE fact's value
     * @param saidValue the candidate's value
     * @return true when the key is a place slot and the value said is the current one mistyped
     */
    public static boolean mistypedPlace(final String key, final String currentValue, final String saidValue) {
        return key != null && PLACE_KEYS.contains(key) && PlaceNames.mistyped(currentValue, saidValue);
    }

    /**
     * The numbers a sentence carries, in order: digit runs ("3", "2.5") and the English number
     * words two to twenty, thirty, forty and fifty ("three" → "3"); "one" and "zero" are left out
     * because "the one language I use" is not a quantity.
     *
     * @param text any text, may be null
     * @return the numbers as canonical decimal strings, possibly empty
     */
    public static List<String> numbers(final String text) {
        final List<String> out = new ArrayList<>();
        if (text == null) {
            return out;
        }
        final Matcher tokens = TOKENS.matcher(text.toLowerCase(Locale.ROOT));
        while (tokens.find()) {
            final String token = tokens.group();
            if (Character.isDigit(token.charAt(0))) {
                out.add(token.replace(',', '.'));
            } else if (NUMBER_WORDS.containsKey(token)) {
                out.add(NUMBER_WORDS.get(token));
            }
        }
        return out;
    }

    /**
     * The identifiers a sentence carries: every word with a digit in it — numbers ("14", "2.5"), codes
     * and names with numbers ("LH441", "B-207", "North-17", "v2") — upper-cased without dashes, a number
     * joined to the one-to-three capital letters right before it ("LH 441" = "LH-441" = "LH441"; "room 12"
     * stays "12": only short all-capital prefixes are codes), plus the number words of {@link #numbers}
     * as digits ("fourteen" = "14").
     *
     * @param text any text, may be null
     * @return the identifiers, possibly empty
     */
    public static java.util.Set<String> identifiers(final String text) {
        final java.util.Set<String> out = new java.util.TreeSet<>();
        if (text == null) {
            return out;
        }
        final Matcher m = WORDS.matcher(text);
        String previous = null;
        int previousEnd = -2;
        while (m.find()) {
            final String token = m.group();
            if (token.chars().anyMatch(Character::isDigit)) {
                final boolean code = previous != null && previousEnd == m.start() - 1 && text.charAt(previousEnd) == ' '
                    && previous.length() <= 3 && previous.chars().allMatch(Character::isUpperCase)
                    && token.chars().allMatch(Character::isDigit);
                out.add(((code ? previous : "") + token).toUpperCase(Locale.ROOT).replace("-", "").replace(',', '.'));
            } else {
                final String number = NUMBER_WORDS.get(token.toLowerCase(Locale.ROOT));
                if (number != null) {
                    out.add(number);
                }
            }
            previous = token;
            previousEnd = m.end();
        }
        return out;
    }

    /**
     * Tells whether two statements name the same identifiers ({@link #identifiers}): statements that
     * differ in a number, a code or an identifier ("flight LH 441" and "flight LH 414", "room 12" and
     * "room 21", "project North-16" and "project North-17") are different facts, however close their
     * embeddings, so they are never reinforced, merged or judged duplicates on similarity alone.
     *
     * @param a a statement, may be null
     * @param b a statement, may be null
     * @return true when both carry the same identifiers (or none)
     */
    public static boolean sameIdentifiers(final String a, final String b) {
        return identifiers(a).equals(identifiers(b));
    }

    /**
     * @param text a statement
     * @return true when it carries a negation or aversion cue (see {@link #NEGATION})
     */
    public static boolean isNegative(final String text) {
        return text != null && NEGATION.matcher(text).find();
    }

    /**
     * Whether a statement restates a fact's value: a sentence of it names the value ({@link Outdated#states}) and
     * is not negative ({@link #isNegative}: "I left NASA", "I'm not at NASA any more" do not confirm it).
     *
     * @param statement what the user said
     * @param value a fact's value
     * @return true when a non-negative sentence of the statement names the value
     */
    public static boolean restates(final String statement, final String value) {
        if (statement == null || !Outdated.states(statement, value)) {
            return false;
        }
        for (final String sentence : SENTENCES.split(statement)) {
            if (Outdated.states(sentence, value) && !isNegative(sentence) && !LEFT.matcher(sentence).find()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The slot of a key that names one entity by its name, the value being that name: {@code pet:<name>},
     * {@code friend:<name>} and {@code family:<relation>:<name>}, the keys the rule and LLM extractors give the
     * people and pets of the user's life ({@code pet:<species>}, when no name is said, has the species as its value
     * and so the same shape). The key is read when the fact is first stated and stays when a correction changes the
     * value (Rex renamed Max keeps {@code pet:rex}), so the entity is found by its slot and value, not its key
     * ({@link Consolidator}, rule 4).
     *
     * @param key a fact key, may be null
     * @return the key up to and including its last colon ({@code pet:}, {@code friend:}, {@code family:son:}), or
     *     null when the key is not such a key
     */
    public static String entitySlot(final String key) {
        if (key == null) {
            return null;
        }
        for (final String prefix : ENTITY_KEYS) {
            if (key.startsWith(prefix)) {
                final int last = key.lastIndexOf(':');
                return last < key.length() - 1 ? key.substring(0, last + 1) : null;
            }
        }
        return null;
    }

    /**
     * @param a a key or null
     * @param b a key or null
     * @return true when both are non-null and equal
     */
    public static boolean sameKey(final String a, final String b) {
        return a != null && Objects.equals(a, b);
    }
}
