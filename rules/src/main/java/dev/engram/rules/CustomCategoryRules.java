package dev.engram.rules;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.TenantPolicy;
import dev.engram.text.TurnHeuristics;

/**
 * The offline extractor's reading of a tenant's own categories ({@link TenantPolicy.Category}): a category names
 * its keywords, and a statement of the user that contains one of them (case-insensitive, as a whole word or phrase)
 * belongs to it.
 *
 * <ul>
 *   <li>A built-in fact whose sentence, key or value names a category's keyword is filed under that category
 *       ({@link #file}): "I'm allergic to penicillin" stays the fact the built-in rules made, in {@code allergies}.</li>
 *   <li>A first-person statement ({@link TurnHeuristics#isFirstPerson}; never a question or small talk) that made no
 *       built-in fact and names a keyword becomes a SEMANTIC fact of the category ({@link #fact}): key
 *       {@code <category>:<keyword>} with the most specific keyword it names (the longest; the first listed on a
 *       tie), so "I take 5 mg of amlodipine daily" is {@code medications:amlodipine} and a later "I take 10 mg of
 *       amlodipine now" restates the same slot with a new value; value and content the sentence as said; importance
 *       {@value #IMPORTANCE}, confidence {@value #CONFIDENCE} (explicit, but matched by words rather than a rule).
 *       <b>The item's own slot first:</b> when the sentence without its quantities ({@link #QUANTITY}: "20 mg of")
 *       is a built-in fact of one item, the keyword fact takes that fact's key ({@link #itemKey}): "I take 20 mg of
 *       lisinopril" is {@code medication:lisinopril}, the slot of "I take lisinopril". A keyword names how a tenant
 *       spots its statements ("take", "mg"), not what they are about: keyed by it, a second medication
 *       ("I take 10 mg of atorvastatin") or any sentence with the word ("I take the bus to work") restated the slot of
 *       the first and superseded it, and the dose of a medication stated once without one made a second fact beside
 *       it. The built-in key keeps the fact a safety fact ({@code medication:}, {@code SafetyFacts}).</li>
 * </ul>
 * The first category (in the tenant's order) with a match wins. Stateless and deterministic.
 */
final class CustomCategoryRules {

    /** Importance of a keyword fact. */
    static final double IMPORTANCE = 0.7;
    /** Confidence of a keyword fact: below the built-in rules' explicit 0.9. */
    static final double CONFIDENCE = 0.85;

    /**
     * A quantity with its unit and an optional "of" ("20 mg of", "0.5mg", "2 units of"): left out, the sentence
     * says what the built-in rules read without it ("I take lisinopril").
     */
    static final Pattern QUANTITY = Pattern.compile("(?i)\\b\\d+(?:[.,]\\d+)?\\s*(?:mg|mcg|\u00b5g|micrograms?|milligrams?"
        + "|ml|units?|iu)\\b\\s*(?:of\\s+)?");

    /** Compiled keywords (bounded by the tenants' keywords: at most 50 per category, 20 categories per tenant). */
    private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

    private CustomCategoryRules() {
    }

    /**
     * @param policy the tenant's settings
     * @param texts the sentence and the fact's key and value
     * @return the first category one of whose keywords one of the texts names
     */
    static Optional<TenantPolicy.Category> file(final TenantPolicy policy, final String... texts) {
        for (final TenantPolicy.Category category : policy.categories()) {
            for (final String text : texts) {
                if (text != null && !matched(category, text).isEmpty()) {
                    return Optional.of(category);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * @param policy the tenant's settings
     * @param sentence a sentence of a user turn that made no built-in fact
     * @param index the message's index
     * @param time the message's time
     * @param language the turn's language, or null
     * @return the keyword fact of the first category the sentence names, if it is a statement about the user
     */
    static Optional<ExtractedMemory> fact(final TenantPolicy policy, final String sentence, final int index,
                                          final Instant time, final String language) {
        if (policy.categories().isEmpty() || TurnHeuristics.isQuestion(sentence) || TurnHeuristics.isSmallTalk(sentence)
            || !TurnHeuristics.isFirstPerson(sentence)) {
            return Optional.empty();
        }
        for (final TenantPolicy.Category category : policy.categories()) {
            final List<String> keywords = matched(category, sentence);
            if (keywords.isEmpty()) {
                continue;
            }
            String slot = keywords.get(0);
            for (final String keyword : keywords) {
                slot = keyword.length() > slot.length() ? keyword : slot;
            }
            final String item = itemKey(sentence);
            final String key = item != null ? item : category.name() + ":" + slot.replaceAll("\\s+", "_");
            final String named = item != null ? item.substring(item.lastIndexOf(':') + 1).replace('_', ' ') : slot;
            final String said = sentence.strip().replaceAll("[.!;]+$", "");
            return Optional.of(new ExtractedMemory(MemoryType.SEMANTIC, null, key, said,
                label(category.name()) + ": " + named, said, false, IMPORTANCE, CONFIDENCE, MemorySource.EXPLICIT,
                List.of(index), time, language, List.of(), category.name()));
        }
        return Optional.empty();
    }

    /**
     * @param sentence a sentence that made no built-in fact
     * @return the key of the one item the built-in rules read in it once its quantities are left out
     *     ({@code medication:lisinopril} for "I take 20 mg of lisinopril"), or null: no quantity, no fact, a
     *     retraction, several facts, or a fact without an item ({@code city})
     */
    static String itemKey(final String sentence) {
        final String bare = QUANTITY.matcher(sentence).replaceAll("");
        if (bare.equals(sentence)) {
            return null;
        }
        final List<FactRules.Fact> facts = FactRules.extract(bare);
        return facts.size() == 1 && !facts.get(0).negated() && facts.get(0).key().contains(":") ? facts.get(0).key() : null;
    }

    /** The category's keywords the text names, in the category's order. */
    private static List<String> matched(final TenantPolicy.Category category, final String text) {
        final String lower = TurnHeuristics.normalizeQuotes(text).toLowerCase(Locale.ROOT);
        final List<String> out = new ArrayList<>();
        for (final String keyword : category.keywords()) {
            if (PATTERNS.computeIfAbsent(keyword, CustomCategoryRules::pattern).matcher(lower).find()) {
                out.add(keyword);
            }
        }
        return out;
    }

    /** A whole word or phrase; in a script written without spaces (Chinese, Japanese), anywhere. */
    private static Pattern pattern(final String keyword) {
        final boolean unspaced = keyword.codePoints().anyMatch(TurnHeuristics::unspacedScript);
        return Pattern.compile(unspaced ? Pattern.quote(keyword)
            : "(?<![\\p{L}\\p{N}])" + Pattern.quote(keyword) + "(?![\\p{L}\\p{N}])");
    }

    /** {@code medications} → {@code Medications}, {@code shoe_sizes} → {@code Shoe sizes}. */
    private static String label(final String name) {
        final String spaced = name.replace('_', ' ');
        return Character.toUpperCase(spaced.charAt(0)) + spaced.substring(1);
    }
}
