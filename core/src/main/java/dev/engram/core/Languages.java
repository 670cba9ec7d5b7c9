package dev.engram.core;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

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
        final Map<Character.UnicodeScript, Integer> letters = new LinkedHashMap<>();
        int vietnamese = 0;
        for (int i = 0; i < text.length(); ) {
            final int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            if (!Character.isLetter(cp)) {
                continue;
            }
            final Character.UnicodeScript script = Character.UnicodeScript.of(cp);
            if (script == Character.UnicodeScript.HIRAGANA || script == Character.UnicodeScript.KATAKANA) {
                return "ja";
            }
            letters.merge(script, 1, Integer::sum);
            if (VIETNAMESE.indexOf(Character.toLowerCase(cp)) >= 0) {
                vietnamese++;
            }
        }
        Character.UnicodeScript top = null;
        for (final Map.Entry<Character.UnicodeScript, Integer> e : letters.entrySet()) {
            if (top == null || e.getValue() > letters.get(top)) {
                top = e.getKey();
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
        final Map<String, Integer> hits = new LinkedHashMap<>();
        for (final String word : text.toLowerCase(Locale.ROOT).split("[^\\p{L}']+")) {
            for (final Map.Entry<String, Set<String>> e : FUNCTION_WORDS.entrySet()) {
                if (e.getValue().contains(word)) {
                    hits.merge(e.getKey(), 1, Integer::sum);
                }
            }
        }
        String best = null;
        for (final Map.Entry<String, Integer> e : hits.entrySet()) {
            if (best == null || e.getValue() > hits.get(best)) {
                best = e.getKey();
            }
        }
        return best;
    }
}
