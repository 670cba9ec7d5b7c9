package dev.engram.text;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How the rule-based extractor splits a user turn into sentences, recognises small talk, and rates
 * how much an episodic memory of the turn is worth (its importance).
 *
 * <h2>Importance of an episodic memory (this heuristic's own numbers)</h2>
 * Computed over the turn's substantive sentences (small talk removed), then rounded to two decimals:
 * <pre>
 *   0.20  base: something was said beyond small talk
 * + 0.15  the user speaks about themselves (I, me, my, we, our …; je, ich, yo, eu, io, ik, tôi; 我, 私, 僕;
 *         저는, 제가, 나는; أنا and first-person verbs such as أعيش), or an English sentence opens with a
 *         past-tense verb, its subject dropped as in a diary ("Had a sandwich at the station.", "Went to
 *         the gym."): the speaker is the subject. Either way memory is about the user
 * + 0.15  a named entity (a capitalized word that does not start a sentence): people, places, products
 *         are what later questions ask about (scripts without letter case cannot show this signal)
 * + 0.15  a number, date or time word (any digit, one..twenty, months, weekdays, yesterday, last week …;
 *         Chinese numerals and 年月日, Korean counters, 어제, أمس, hôm qua …): "when" and "how many"
 *         questions need them
 * + 0.10  at least {@value #LONG_WORDS} words, + 0.10 more at {@value #VERY_LONG_WORDS}: longer turns carry
 *         more detail (in Chinese, Japanese and Thai, written without spaces, every
 *         {@value #UNSPACED_LETTERS_PER_WORD} letters count as a word: {@link #wordUnits})
 * capped at 0.90 (1.0 is left for facts the user corrects)
 * </pre>
 * So a substantive turn without any signal scores 0.2 and falls below the 0.3 floor ({@code memory.min.importance}),
 * one signal (first person, an entity, or a date) lifts it to 0.35 and keeps it, and a long, dated,
 * first-person turn with names reaches 0.85. A turn that is only small talk ("Hey Mel! Good to see
 * you!", "Thanks!", "Wow, cool", 谢谢, ありがとう, 감사합니다) makes no episodic candidate at all.
 * Sentences end at . ! ? … and at 。！？ ؟ । and line breaks; a question ends with ?, ？ or ؟.
 */
public final class TurnHeuristics {

    /** Between word units (compiled once: String#split compiles it at every call). */
    private static final Pattern BETWEEN_WORDS = Pattern.compile("[^\\p{L}\\p{N}'\\p{M}]+");

    /** Importance of a substantive turn with no signal. */
    public static final double BASE = 0.2;
    /** Added for first person, a named entity, or a number/date each. */
    public static final double SIGNAL = 0.15;
    /** Added at {@link #LONG_WORDS} words and again at {@link #VERY_LONG_WORDS}. */
    public static final double LENGTH = 0.1;
    /** Words from which a turn counts as long. */
    public static final int LONG_WORDS = 8;
    /** Words from which a turn counts as very long. */
    public static final int VERY_LONG_WORDS = 20;
    /** Upper bound of an episodic importance. */
    public static final double MAX = 0.9;
    /** Letters of a script written without spaces that count as one word. */
    public static final int UNSPACED_LETTERS_PER_WORD = 2;

    private static final Pattern SENTENCE_END = Pattern.compile(
        "(?<=[.!?\u2026])(?<!\\b(?:\\p{Lu}|St|Dr|Mr|Mrs|Ms|Prof|Jr|Sr|Mt|vs|etc)\\.)\\s+|(?<=[\u3002\uFF01\uFF1F\u061F\u0964])\\s*|\\s*\\n+\\s*");
    /** Question marks: ASCII, full-width (Chinese, Japanese), Arabic. */
    private static final String QUESTION_MARKS = "?\uFF1F\u061F";
    private static final Pattern IMAGE = Pattern.compile("\\s*\\[image:[^\\]]*\\]");
    private static final Pattern SMALL_TALK = Pattern.compile("\\b(?:hi|hey|hello|hiya|yo|heya|thanks|thank\\s+you"
        + "(?:\\s+so\\s+much)?|thx|ty|bye|goodbye|ok|okay|sure|yes|yeah|yep|yup|no|nope|nah|wow|whoa|cool|nice|great"
        + "|awesome|amazing|lol|ha(?:ha)+|hah|hm+|oh|ah|aw+|good|alright|right|true|indeed|exactly|totally|absolutely"
        + "|definitely|congrats|congratulations|cheers|agreed?|i\\s+agree|sounds\\s+(?:good|great|fun|amazing|awesome)"
        + "|good\\s+to\\s+(?:see|hear\\s+from)\\s+you|good\\s+to\\s+hear|nice\\s+to\\s+meet\\s+you|see\\s+you(?:\\s+soon)?"
        + "|see\\s+ya|talk\\s+soon|talk\\s+to\\s+you\\s+(?:soon|later)|take\\s+care|have\\s+a\\s+(?:good|nice|great)"
        + "\\s+(?:day|night|one|weekend)|how\\s+are\\s+you|how\\s+have\\s+you\\s+been|how's\\s+it\\s+going|what's\\s+up"
        + "|you\\s+too|me\\s+too|no\\s+problem|no\\s+worries|of\\s+course|got\\s+it|makes\\s+sense|i\\s+see|that's"
        + "(?:\\s+(?:so|really|very|super|pretty))?(?:\\s+(?:cool|great|awesome|amazing|nice|sweet|wonderful|fantastic"
        + "|good|lovely|interesting|fun))?|(?:i\\s+)?(?:love|loved|like|liked|adore|enjoyed)\\s+(?:it|that|this|them)|glad\\s+to\\s+hear(?:\\s+(?:that|it))?|good\\s+(?:morning|afternoon|evening"
        + "|night)|so|really|very|super|too|what|now|well|man|dude|buddy)\\b", Pattern.CASE_INSENSITIVE);
    private static final CaselessPattern FIRST_PERSON = CaselessPattern.compile("(?<![\\p{L}'])(?:i|i'm|i've|i'd|i'll|me|my|mine"
        + "|myself|we|we're|we've|our|ours|us"
        // French, German, Spanish, Portuguese, Italian, Dutch, Vietnamese
        + "|je|j'|moi|mon|ma|mes|nous|notre|ich|mein|meine|mir|mich|wir|unser|unsere|yo|mi|mis|nosotros|nuestro"
        + "|nuestra|eu|meu|minha|nós|io|mio|mia|noi|ik|mijn|wij|ons|tôi|mình|chúng\\s+tôi"
        // Korean (spaced), Arabic pronouns and first-person imperfect verbs (أعيش "I live", أعمل "I work")
        + "|저는|제가|저도|저의|저희|제|나는|내가|나도|나의|내|우리|أنا|نحن|لدي|عندي|أ\\p{L}{2,})(?![\\p{L}'])"
        // Chinese and Japanese, written without spaces
        + "|我|私|僕|俺|わたし|あたし|自分");
    private static final CaselessPattern NUMBER_OR_DATE = CaselessPattern.compile("\\d|\\b(?:one|two|three|four|five|six|seven|eight"
        + "|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|hundred"
        + "|january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday"
        + "|wednesday|thursday|friday|saturday|sunday|yesterday|today|tomorrow|tonight|weekend|ago|last\\s+(?:week"
        + "|month|year|night)|next\\s+(?:week|month|year)|years?|months?|weeks?|days?)\\b|\\p{Nd}"
        // Chinese and Japanese numerals and date words, Korean counters, Arabic and Vietnamese date words
        + "|[二三四五六七八九十百千万两]|[年月日周号]|星期|昨天|今天|明天|先週|来週|昨日|明日"
        + "|(?:한|두|세|네|다섯)\\s?(?:마리|명|개|번|살|시간|년|달|주|일)|어제|오늘|내일|أمس|غدا|اليوم"
        + "|hôm\\s+qua|hôm\\s+nay|ngày\\s+mai");
    /** Small talk in languages other than English, matched anywhere (CJK has no word boundaries). */
    private static final CaselessPattern SMALL_TALK_OTHER = CaselessPattern.compile("你好|您好|谢谢|謝謝|多谢|好的|好吧|嗯+|哈+|再见|晚安"
        + "|早上好|没问题|不客气|是的|对啊|ありがとう(?:ございます)?|こんにちは|こんばんは|おはよう(?:ございます)?|はい|うん"
        + "|そうですね|なるほど|안녕(?:하세요)?|감사합니다|고마워요?|네|응|좋아요|شكرا|شكراً|مرحبا|أهلا|نعم|cảm\\s+ơn"
        + "|xin\\s+chào|vâng|merci|bonjour|salut|oui|gracias|hola|sí|danke|hallo|obrigad[oa]|olá|grazie|ciao");
    /**
     * An English sentence that opens with a past-tense verb has dropped its subject, the speaker ("Had a
     * sandwich at the station.", "Just got back from Rome."): common irregular pasts, and regular ones
     * ending in -ed except words that only look like one or are imperatives (indeed, red, bed, feed …).
     */
    private static final Pattern DROPPED_SUBJECT = Pattern.compile("^(?:(?:just|finally|also|then|already|recently)\\s+)?"
        + "(?:had|went|got|saw|made|took|ate|bought|met|did|came|left|found|spent|ran|drove|flew|read|wrote|heard"
        + "|felt|thought|told|gave|kept|slept|sat|won|lost|paid|sent|built|caught|brought|began|swam|sang|drank"
        + "|forgot|wore|rode|chose|broke|fell|grew|knew|sold|held|woke|became|taught"
        + "|(?!(?:indeed|speed|seed|breed|bleed|feed|weed|heed|shed|bed|red|proceed|exceed|succeed|naked|wicked"
        + "|sacred|hundred|kindred|based|related)\\b)\\p{L}{2,}ed)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern ENTITY = Pattern.compile("(?<=[\\p{L},;:]\\s)(?!I\\b|I'|I\u2019)\\p{Lu}[\\p{L}\\p{N}]+");

    private TurnHeuristics() {
    }

    /**
     * @param text a turn
     * @return the turn without LoCoMo's " [image: caption]" part: a caption describes a photo, it is not
     *     a statement of the user
     */
    public static String withoutImage(final String text) {
        return IMAGE.matcher(text).replaceAll("");
    }

    /**
     * @param text a turn
     * @return its sentences (split after . ! ? … and at line breaks), stripped, none empty
     */
    public static List<String> sentences(final String text) {
        final List<String> out = new ArrayList<>();
        for (final String s : SENTENCE_END.split(text)) {
            if (!s.isBlank()) {
                out.add(s.strip());
            }
        }
        return out;
    }

    /**
     * A question is a request to the assistant, not something the user told about themselves
     * ("What was my locker code again?" must not become a memory of the asker: case-05).
     *
     * @param sentence one sentence
     * @return true when it ends with a question mark (ASCII, full-width or Arabic)
     */
    public static boolean isQuestion(final String sentence) {
        final String s = sentence.strip();
        return !s.isEmpty() && QUESTION_MARKS.indexOf(s.charAt(s.length() - 1)) >= 0;
    }

    /**
     * @param sentence one sentence
     * @return true when, after removing greetings, thanks, reactions and one following name, fewer than
     *     two words remain ("Thanks, Melanie!", "That's really sweet.", "Wow, cool")
     */
    public static boolean isSmallTalk(final String sentence) {
        final String english = SMALL_TALK.matcher(normalizeQuotes(sentence)).replaceAll(" ");
        final CaselessText other = CaselessText.of(english);
        // most sentences hold none of the other languages' words: the search for them is skipped
        final String rest = SMALL_TALK_OTHER.mayMatch(other) ? SMALL_TALK_OTHER.matcher(other).replaceAll(" ") : english;
        return wordUnits(rest) < 2;
    }

    /**
     * @param text any text
     * @return its length in words: space-separated words, where a run of letters of a script written
     *     without spaces (Han, kana, Thai) counts as one word per {@value #UNSPACED_LETTERS_PER_WORD} letters
     *     (Chinese words average 1.5–2 characters), rounded down
     */
    public static int wordUnits(final String text) {
        return CaselessPattern.isAscii(text) ? asciiWords(text) : wordUnitsOfAnyScript(text);
    }

    /**
     * {@link #wordUnits} of an ASCII text, without a split: in ASCII {@code [\p{L}\p{N}'\p{M}]} is A–Z, a–z, 0–9 and
     * the apostrophe, and no character is of a script written without spaces, so every run of those is one word.
     */
    static int asciiWords(final String text) {
        int words = 0;
        boolean inWord = false;
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            final boolean wordChar = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '\'';
            if (wordChar && !inWord) {
                words++;
            }
            inWord = wordChar;
        }
        return words;
    }

    /** {@link #wordUnits} of any text, by the split the class comment describes. */
    static int wordUnitsOfAnyScript(final String text) {
        int words = 0;
        int unspaced = 0;
        for (final String w : BETWEEN_WORDS.split(text)) {
            if (w.isEmpty()) {
                continue;
            }
            final int letters = (int) w.codePoints().filter(TurnHeuristics::unspacedScript).count();
            unspaced += letters;
            if (letters < w.codePointCount(0, w.length())) {
                words++;
            }
        }
        return words + unspaced / UNSPACED_LETTERS_PER_WORD;
    }

    /**
     * Whether a code point belongs to a script written without spaces between words (Han, Hiragana, Katakana,
     * Thai), whose letters {@link #wordUnits} counts as words in groups instead of splitting on spaces.
     *
     * @param cp a Unicode code point
     * @return true for a letter of Han, Hiragana, Katakana or Thai script
     */
    public static boolean unspacedScript(final int cp) {
        final Character.UnicodeScript s = Character.UnicodeScript.of(cp);
        return s == Character.UnicodeScript.HAN || s == Character.UnicodeScript.HIRAGANA
            || s == Character.UnicodeScript.KATAKANA || s == Character.UnicodeScript.THAI;
    }

    /**
     * @param sentence a sentence of a user turn
     * @return true when the speaker speaks of themself: a first-person word in one of the covered languages, or an
     *     English sentence that dropped its subject ("Take 5 mg of it daily" is not; "Started metformin" is)
     */
    public static boolean isFirstPerson(final String sentence) {
        final String text = normalizeQuotes(sentence);
        return FIRST_PERSON.matcher(text).find() || DROPPED_SUBJECT.matcher(text).find();
    }

    /**
     * @param substantive the substantive sentences of a turn, non-empty
     * @return the importance of the turn's episodic memory, 0.2..0.9 (see the class comment)
     */
    public static double importance(final List<String> substantive) {
        final String text = normalizeQuotes(String.join(" ", substantive));
        double score = BASE;
        if (FIRST_PERSON.matcher(text).find()
            || substantive.stream().anyMatch(sentence -> DROPPED_SUBJECT.matcher(normalizeQuotes(sentence)).find())) {
            score += SIGNAL;
        }
        if (ENTITY.matcher(text).find()) {
            score += SIGNAL;
        }
        if (NUMBER_OR_DATE.matcher(text).find()) {
            score += SIGNAL;
        }
        final int words = wordUnits(text);
        if (words >= LONG_WORDS) {
            score += LENGTH;
        }
        if (words >= VERY_LONG_WORDS) {
            score += LENGTH;
        }
        return Math.round(Math.min(MAX, score) * 100) / 100.0;
    }

    /**
     * @param turn a user turn
     * @return its substantive sentences (no small talk, no questions, no image captions) joined by a space;
     *     empty when nothing of substance is left
     */
    public static String substance(final String turn) {
        final StringBuilder out = new StringBuilder();
        for (final String sentence : sentences(withoutImage(turn))) {
            if (!isSmallTalk(sentence) && !isQuestion(sentence)) {
                out.append(out.length() == 0 ? "" : " ").append(sentence);
            }
        }
        return out.toString();
    }

    /**
     * @param text any text
     * @return the text with straight quotes for typographic ones, so "I’m" matches like "I'm" (same length: spans
     *     stay valid)
     */
    public static String normalizeQuotes(final String text) {
        return text.replace('\u2019', '\'').replace('\u2018', '\'').replace('\u201C', '"').replace('\u201D', '"');
    }
}
