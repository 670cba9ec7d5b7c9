package dev.engram.embedder;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.port.Embedder;
import org.apache.kafka.common.config.ConfigException;

/**
 * Chooses the embedding model of each text by its script: text mostly in Han characters (Chinese;
 * Japanese kanji and kana count with them) goes to {@code embedding.model.han} (bge-small-zh-v1.5 by
 * default), everything else to {@code embedding.model} (bge-small-en-v1.5 by default). Each vector is
 * recorded with its model ({@link #modelFor(String)}); queries are embedded with the model of the
 * vectors they are compared with ({@link #embedQuery(String, String)}), so vectors of two models are
 * never compared.
 *
 * <p>Han share = Han and kana characters ÷ (Han and kana characters + words of other letters), a word
 * being a maximal run of letters or digits of any other script: a Chinese character carries about a
 * word's meaning, a Latin letter does not. {@code 我用Kotlin写代码} has share 5/6; {@code I love 北京 food}
 * 2/5. Korean stays with the default model (its syllables are outside bge-small-zh's vocabulary;
 * bge-small-en's tokenizer decomposes them into jamo), as do Arabic, Vietnamese and every other script.
 *
 * <p>Thread-safe; the models are the JVM-wide {@link OnnxEmbedder#shared(OnnxModel)} instances.
 */
public final class ScriptRoutedEmbedder implements Embedder {

    private final Embedder fallback;
    private final Embedder han;
    private final double minHanShare;

    /**
     * @param fallback the model of every text that is not mostly Han
     * @param han the model of mostly-Han text (its vectors may have another size: bge-small-zh has 512)
     * @param minHanShare Han share (0..1] from which a text goes to {@code han}
     */
    public ScriptRoutedEmbedder(final Embedder fallback, final Embedder han, final double minHanShare) {
        this.fallback = fallback;
        this.han = han;
        this.minHanShare = minHanShare;
    }

    /**
     * The embedder the configuration names: {@code embedding.model}, routed with
     * {@code embedding.model.han} (unless that is empty or the same model) at {@code embedding.han.min.share}.
     *
     * @param config the Engram config
     * @return the JVM-wide embedder of those models
     * @throws ConfigException for an unknown model name, or a model whose vector size is not the
     *     configured {@code embedding.dimensions} / {@code embedding.han.dimensions}
     */
    public static Embedder fromConfig(final EngramConfig config) {
        return fromConfig(config, OnnxEmbedder::shared);
    }

    /**
     * As {@link #fromConfig(EngramConfig)}, each model loaded when it first embeds (names and vector sizes are known
     * before): for an app that routes texts by model but seldom or never embeds (the consolidator).
     *
     * @param config the Engram config
     * @return the embedder of those models, none loaded yet (unless another user of the JVM-wide instances loaded it)
     * @throws ConfigException as {@link #fromConfig(EngramConfig)}
     */
    public static Embedder loadingOnUse(final EngramConfig config) {
        return fromConfig(config, OnnxModelOnUse::new);
    }

    /**
     * @param config the Engram config
     * @param models a built-in model's embedder ({@link OnnxEmbedder#shared(OnnxModel)}, or loaded on use)
     * @return the embedder of the configured models, routed by script
     */
    static Embedder fromConfig(final EngramConfig config, final Function<OnnxModel, Embedder> models) {
        final Embedder main = models.apply(model(config, CoreConfig.EMBEDDING_MODEL, CoreConfig.EMBEDDING_DIMENSIONS));
        if (!routesHan(config)) {
            return main;
        }
        return new ScriptRoutedEmbedder(main, models.apply(model(config, CoreConfig.EMBEDDING_MODEL_HAN,
            CoreConfig.EMBEDDING_HAN_DIMENSIONS)), config.getDouble(EmbedderConfig.EMBEDDING_HAN_MIN_SHARE));
    }

    /** @return the embedder of the default configuration (bge-small-en-v1.5, bge-small-zh-v1.5 for Han text) */
    public static Embedder defaults() {
        return fromConfig(EngramConfig.defaults());
    }

    /**
     * @param config the Engram config
     * @return whether mostly-Han text gets a model of its own ({@code embedding.model.han} set and not
     *     {@code embedding.model})
     */
    public static boolean routesHan(final EngramConfig config) {
        final String hanModel = config.getString(CoreConfig.EMBEDDING_MODEL_HAN);
        return hanModel != null && !hanModel.isBlank()
            && !hanModel.equals(config.getString(CoreConfig.EMBEDDING_MODEL));
    }

    private static OnnxModel model(final EngramConfig config, final String modelKey, final String dimensionsKey) {
        final String name = config.getString(modelKey);
        final OnnxModel spec = OnnxModel.named(name).orElseThrow(() -> new ConfigException(modelKey, name,
            "unknown embedding model; built in: " + OnnxModel.names()));
        if (spec.dimensions() != config.getInt(dimensionsKey)) {
            throw new ConfigException(dimensionsKey, config.getInt(dimensionsKey),
                name + " (" + modelKey + ") embeds " + spec.dimensions() + " dimensions; set " + dimensionsKey + "="
                    + spec.dimensions());
        }
        return spec;
    }

    /**
     * @param text any text
     * @return Han and kana characters ÷ (those + words of other letters and digits); 0 for text without
     *     letters
     */
    public static double hanShare(final String text) {
        int hanChars = 0;
        int otherWords = 0;
        boolean inWord = false;
        for (int i = 0; i < text.length(); ) {
            final int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            if (isHanOrKana(cp)) {
                hanChars++;
                inWord = false;
            } else if (Character.isLetterOrDigit(cp)) {
                if (!inWord) {
                    otherWords++;
                }
                inWord = true;
            } else if (Character.getType(cp) != Character.NON_SPACING_MARK) {
                inWord = false;
            }
        }
        final int units = hanChars + otherWords;
        return units == 0 ? 0.0 : (double) hanChars / units;
    }

    private static boolean isHanOrKana(final int cp) {
        final Character.UnicodeScript script = Character.UnicodeScript.of(cp);
        return script == Character.UnicodeScript.HAN || script == Character.UnicodeScript.HIRAGANA
            || script == Character.UnicodeScript.KATAKANA;
    }

    @Override
    public String modelName() {
        return fallback.modelName();
    }

    @Override
    public int dimensions() {
        return fallback.dimensions();
    }

    @Override
    public List<String> models() {
        return List.of(fallback.modelName(), han.modelName());
    }

    @Override
    public String modelFor(final String text) {
        return route(text).modelName();
    }

    /**
     * @param texts passages, in order
     * @return one vector per text, each of the model {@link #modelFor(String)} names, same order
     */
    @Override
    public List<float[]> embedAll(final List<String> texts) {
        return routed(texts, false);
    }

    /**
     * @param texts passages always embedded together, in order
     * @return as {@link #embedAll}, each model's texts embedded as one group ({@link Embedder#embedGroup})
     */
    @Override
    public List<float[]> embedGroup(final List<String> texts) {
        return routed(texts, true);
    }

    private List<float[]> routed(final List<String> texts, final boolean group) {
        final List<String> fallbackTexts = new ArrayList<>();
        final List<String> hanTexts = new ArrayList<>();
        final boolean[] isHan = new boolean[texts.size()];
        for (int i = 0; i < texts.size(); i++) {
            isHan[i] = route(texts.get(i)) == han;
            (isHan[i] ? hanTexts : fallbackTexts).add(texts.get(i));
        }
        final List<float[]> fromFallback = fallbackTexts.isEmpty() ? List.of()
            : group ? fallback.embedGroup(fallbackTexts) : fallback.embedAll(fallbackTexts);
        final List<float[]> fromHan = hanTexts.isEmpty() ? List.of()
            : group ? han.embedGroup(hanTexts) : han.embedAll(hanTexts);
        final List<float[]> out = new ArrayList<>(texts.size());
        int f = 0;
        int h = 0;
        for (int i = 0; i < texts.size(); i++) {
            out.add(isHan[i] ? fromHan.get(h++) : fromFallback.get(f++));
        }
        return out;
    }

    @Override
    public float[] embedQuery(final String query, final String model) {
        if (han.modelName().equals(model)) {
            return han.embedQuery(query, model);
        }
        return fallback.embedQuery(query, model);
    }

    private Embedder route(final String text) {
        return text != null && hanShare(text) >= minHanShare ? han : fallback;
    }
}
