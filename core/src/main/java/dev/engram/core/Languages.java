package dev.engram.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Tells the language of a short text from its script and, for Latin script, its function words.
 *
 * <p>Method: letters are counted per Unicode script. Any kana → {@code ja} (Japanese mixes kana with
 * Han); otherwise the script with most letters decides: Han {@code zh}, Hangul {@code ko}, Arabic
 * {@code ar}, Cyrillic {@code ru}, Hebrew {@code he}, Greek {@code el}, Thai {@code th}, Devanagari
 * {@code hi}. Latin script is {@code vi} when at least two letters carry Vietnamese-only diacritics
 * (ơ ư ă đ and the stacked tone marks), otherwise the language among en, fr, de, es, it, pt, nl whose
 * function words (articles, pronouns, prepositions, copulas) occur most often, {@code en} on a tie with
 * English; no letters or no function word at all → {@code null} (unknown). A script tells the
 * language family, not the exact language (Arabic script is also Persian and Urdu, Cyrillic also
 * Ukrainian); that is enough to choose an analyzer, an embedding model, and the heuristics' word units.
 */
public final class Languages {

    /** Between words (compiled once: String#split compiles a pattern of more than one character at every call). */
    private static final Pattern NOT_A_WORD = Pattern.compile("[^\\p{L}']+");

    private static final String VIETNAMESE = "ơưăđạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ";
    private static final Map<String, Set<String>> FUNCTION_WORDS = new LinkedHashMap<>();

    static {
        FUNCTION_WORDS.put("en", Set.of("the", "a", "an", "and", "i", "you", "is", "are", "was", "to", "of", "in",
            "my", "it", "that", "with", "for", "have", "this", "on", "me", "we", "at"));
        FUNCTION_WORDS.put("fr", Set.of("le", "la", "les", "un", "une", "des", "et", "je", "tu", "est", "suis", "de",
            "du", "à", "au", "mon", "ma", "mes", "avec", "pour", "dans", "nous", "vous", "j'ai", "c'est"));
        FUNCTION_WORDS.put("de", Set.of("der", "die", "das", "ein", "eine", "und", "ich", "du", "ist", "bin", "nicht",
            "mit", "für", "mein", "meine", "zu", "auf", "wir", "im", "den", "dem"));
        FUNCTION_WORDS.put("es", Set.of("el", "la", "los", "las", "un", "una", "y", "yo", "es", "soy", "estoy", "de",
            "en", "mi", "mis", "con", "para", "que", "del", "muy", "vivo"));
        FUNCTION_WORDS.put("it", Set.of("il", "lo", "la", "gli", "le", "un", "una", "e", "io", "è", "sono", "di", "in",
            "mio", "mia", "con", "per", "che", "della", "molto"));
        FUNCTION_WORDS.put("pt", Set.of("o", "a", "os", "as", "um", "uma", "e", "eu", "é", "sou", "estou", "de", "em",
            "meu", "minha", "com", "para", "que", "do", "da", "não"));
        FUNCTION_WORDS.put("nl", Set.of("de", "het", "een", "en", "ik", "je", "is", "ben", "van", "in", "mijn", "met",
            "voor", "niet", "op", "wij", "we"));
    }

    /** The languages of {@link #FUNCTION_WORDS}, in its order. */
    private static final List<String> LANGUAGES = List.copyOf(FUNCTION_WORDS.keySet());
    /** Function word → the indexes in {@link #LANGUAGES} of the languages it is one of, ascending. */
    private static final Map<String, int[]> WORD_LANGUAGES = new HashMap<>();
    private static final int[] NONE = new int[0];
    private static final Character.UnicodeScript[] SCRIPTS = Character.UnicodeScript.values();

    static {
        for (int i = 0; i < LANGUAGES.size(); i++) {
            for (final String word : FUNCTION_WORDS.get(LANGUAGES.get(i))) {
                final int[] before = WORD_LANGUAGES.getOrDefault(word, NONE);
                final int[] after = java.util.Arrays.copyOf(before, before.length + 1);
                after[before.length] = i;
                WORD_LANGUAGES.put(word, after);
            }
        }
    }

    private Languages() {
    }

    /**
     * @param text any text (a turn, a memory)
     * @return a BCP 47 primary language subtag, or null when no language can be told
     */
    public static String detect(final String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        // letters per script, and the scripts in the order first seen: the most letters wins, a tie the script seen first
        final int[] letters = new int[SCRIPTS.length];
        final List<Character.UnicodeScript> seen = new ArrayList<>(2);
        int vietnamese = 0;
        for (int i = 0; i < text.length(); ) {
            final int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            if (!Character.isLetter(cp)) {
                continue;
            }
            // an ASCII letter is Latin and none of the Vietnamese letters: no script lookup, no scan of them
            final Character.UnicodeScript script = cp < 0x80 ? Character.UnicodeScript.LATIN : Character.UnicodeScript.of(cp);
            if (script == Character.UnicodeScript.HIRAGANA || script == Character.UnicodeScript.KATAKANA) {
                return "ja";
            }
            if (letters[script.ordinal()]++ == 0) {
                seen.add(script);
            }
            if (cp >= 0x80 && VIETNAMESE.indexOf(Character.toLowerCase(cp)) >= 0) {
                vietnamese++;
            }
        }
        Character.UnicodeScript top = null;
        for (final Character.UnicodeScript script : seen) {
            if (top == null || letters[script.ordinal()] > letters[top.ordinal()]) {
                top = script;
            }
        }
        if (top == null) {
            return null;
        }
        return switch (top) {
            case HAN -> "zh";
            case HANGUL -> "ko";
            case ARABIC -> "ar";
            case CYRILLIC -> "ru";
            case HEBREW -> "he";
            case GREEK -> "el";
            case THAI -> "th";
            case DEVANAGARI -> "hi";
            case LATIN -> vietnamese >= 2 ? "vi" : latin(text);
            default -> null;
        };
    }

    /**
     * @param language a subtag from {@link #detect}, or null
     * @return true for languages written without spaces between words (Chinese, Japanese, Thai), whose
     *     heuristics count characters instead of words
     */
    public static boolean unspaced(final String language) {
        return "zh".equals(language) || "ja".equals(language) || "th".equals(language);
    }

    private static String latin(final String text) {
        // hits per language (FUNCTION_WORDS order); the most hits wins, a tie the language hit first (text order, then
        // FUNCTION_WORDS order within a word)
        final int[] hits = new int[LANGUAGES.size()];
        final List<Integer> seen = new ArrayList<>(2);
        for (final String word : NOT_A_WORD.split(text.toLowerCase(Locale.ROOT))) {
            for (final int language : WORD_LANGUAGES.getOrDefault(word, NONE)) {
                if (hits[language]++ == 0) {
                    seen.add(language);
                }
            }
        }
        int best = -1;
        for (final int language : seen) {
            if (best < 0 || hits[language] > hits[best]) {
                best = language;
            }
        }
        return best < 0 ? null : LANGUAGES.get(best);
    }
}
