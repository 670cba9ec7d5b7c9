package dev.engram.embedder;

import dev.engram.config.ConfigFields;
import dev.engram.config.ConfigFields.Importance;
import dev.engram.config.ConfigFields.Range;
import dev.engram.config.ConfigFields.Type;
import dev.engram.config.ConfigGroup;

/**
 * The settings the in-process embedding adapter owns ({@link ConfigGroup} {@code embedder}): how text is routed between
 * the two models (the models themselves, their sizes and threads are core's {@code embedding.*} keys: the domain,
 * Qdrant and the tools read them too). Registered as a service, composed onto the core definition by {@code
 * EngramConfig}; the keys are this class's constants.
 */
public final class EmbedderConfig implements ConfigGroup {

    public static final String EMBEDDING_HAN_MIN_SHARE = "embedding.han.min.share";

    /** Called by the service loader ({@code META-INF/services/dev.engram.config.ConfigGroup}). */
    public EmbedderConfig() {
        // the keys are constants; the declaration is {@link #define}
    }

    @Override
    public String name() {
        return "embedder";
    }

    @Override
    public void define(final ConfigFields fields) {
        fields
            .define(EMBEDDING_HAN_MIN_SHARE, Type.DOUBLE, 0.5, Range.between(0.0, 1.0), Importance.LOW,
                "A text goes to embedding.model.han when Han and kana characters make at least this share of its Han and "
                    + "kana characters plus its words in other scripts.");
    }
}
