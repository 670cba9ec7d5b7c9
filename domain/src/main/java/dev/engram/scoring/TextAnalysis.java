package dev.engram.scoring;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.ar.ArabicNormalizationFilter;
import org.apache.lucene.analysis.charfilter.MappingCharFilter;
import org.apache.lucene.analysis.charfilter.NormalizeCharMap;
import org.apache.lucene.analysis.cjk.CJKBigramFilter;
import org.apache.lucene.analysis.cjk.CJKWidthFilter;
import org.apache.lucene.analysis.core.DecimalDigitFilter;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/**
 * The lexical analysis of memories and queries for BM25: one Lucene 9 analyzer chain for every
 * language, so a memory and a question in the same language meet on the same terms whatever the
 * user's mix of languages.
 *
 * <ol>
 *   <li>typographic apostrophes (’) read as ASCII ones;</li>
 *   <li>{@link StandardTokenizer}: Unicode word segmentation (UAX #29). Latin, Cyrillic, Greek, Arabic,
 *       Vietnamese… split into words; Han and Hiragana into single characters, Katakana and Hangul into
 *       runs.</li>
 *   <li>{@link CJKWidthFilter}: full-width ASCII to half-width, half-width Katakana to full-width.</li>
 *   <li>{@link LowerCaseFilter}, {@link DecimalDigitFilter} (Arabic-Indic and other decimal digits to
 *       0–9), {@link ArabicNormalizationFilter} (alef/yeh/teh-marbuta forms and diacritics).</li>
 *   <li>{@link CJKBigramFilter} (Han, Hiragana, Katakana, Hangul): overlapping bigrams of adjacent CJK
 *       characters, a lone character as a unigram; so {@code 我住在北京} indexes {@code 北京} and the
 *       question {@code 你住在北京吗} finds it. This is the chain of Lucene's own {@code CJKAnalyzer}.</li>
 *   <li>{@link EnglishPossessiveFilter} ("Caroline's" → "caroline", "what's" → "what"), then
 *       {@link StopFilter} with {@link #STOPWORDS} (English function words and contractions, so "What's
 *       up?" shares no term with a question about the weather), then {@link PorterStemFilter} (Porter 1980,
 *       the stemmer of Lucene's {@code EnglishAnalyzer}: "recommended" and "recommend", "painting" and
 *       "paints" meet on one term; memories and questions are stemmed alike, so a word of another
 *       Latin-script language is at worst cut the same way on both sides).</li>
 * </ol>
 * Thread-safe: Lucene analyzers keep per-thread token stream components.
 */
public final class TextAnalysis {

    /** English function words removed before scoring: Lucene's classic English set plus pronouns, auxiliaries and contractions. */
    public static final CharArraySet STOPWORDS = CharArraySet.unmodifiableSet(new CharArraySet(List.of(
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
        "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they",
        "this", "to", "was", "will", "with", "i", "me", "my", "mine", "myself", "we", "our", "you", "your",
        "he", "him", "his", "she", "her", "hers", "its", "them", "what", "which", "who", "whom", "when",
        "where", "why", "how", "do", "does", "did", "done", "have", "has", "had", "am", "were", "been",
        "being", "so", "too", "very", "can", "could", "would", "should", "about", "again", "just", "from",
        "up", "down", "out", "than", "also", "any", "some", "all", "i'm", "i've", "i'll", "i'd", "you're",
        "you've", "we're", "they're", "don't", "didn't", "doesn't", "isn't", "wasn't", "can't", "won't"), false));

    /** The typographic apostrophe (U+2019) and the full-width one read as ASCII ', so "I’m" is "i'm". */
    private static final NormalizeCharMap APOSTROPHES;

    static {
        final NormalizeCharMap.Builder map = new NormalizeCharMap.Builder();
        map.add("\u2019", "'");
        map.add("\uFF07", "'");
        APOSTROPHES = map.build();
    }

    private static final Analyzer ANALYZER = new Analyzer() {
        @Override
        protected Reader initReader(final String fieldName, final Reader reader) {
            return new MappingCharFilter(APOSTROPHES, reader);
        }

        @Override
        protected TokenStreamComponents createComponents(final String fieldName) {
            final Tokenizer source = new StandardTokenizer();
            TokenStream stream = new CJKWidthFilter(source);
            stream = new LowerCaseFilter(stream);
            stream = new DecimalDigitFilter(stream);
            stream = new ArabicNormalizationFilter(stream);
            stream = new CJKBigramFilter(stream);
            stream = new EnglishPossessiveFilter(stream);
            stream = new StopFilter(stream, STOPWORDS);
            stream = new PorterStemFilter(stream);
            return new TokenStreamComponents(source, stream);
        }
    };

    private TextAnalysis() {
    }

    /** @return the shared analyzer (the chain in the class comment) */
    public static Analyzer analyzer() {
        return ANALYZER;
    }

    /**
     * @param text any text (null is empty)
     * @return its terms in order, repeated terms repeated
     */
    public static List<String> terms(final String text) {
        final List<String> terms = new ArrayList<>();
        if (text == null || text.isEmpty()) {
            return terms;
        }
        try (TokenStream stream = ANALYZER.tokenStream("content", text)) {
            final CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
            stream.reset();
            while (stream.incrementToken()) {
                terms.add(term.toString());
            }
            stream.end();
        } catch (IOException e) {
            // a StringReader does not fail
            throw new UncheckedIOException(e);
        }
        return terms;
    }
}
