package dev.engram.extractor;

import dev.engram.config.ConfigFields;
import dev.engram.config.ConfigFields.Importance;
import dev.engram.config.ConfigFields.Range;
import dev.engram.config.ConfigFields.Type;
import dev.engram.config.ConfigGroup;

/**
 * The settings the extractor app owns ({@link ConfigGroup} {@code extractor-app}): how many conversations one extractor
 * task works on at once with the offline extractor. Registered as a service, composed onto the core definition by
 * {@code EngramConfig}; the keys are this class's constants.
 */
public final class ExtractorConfig implements ConfigGroup {

    public static final String EXTRACTOR_MAX_IN_FLIGHT = "extractor.max.in.flight";

    /** Called by the service loader ({@code META-INF/services/dev.engram.config.ConfigGroup}). */
    public ExtractorConfig() {
        // the keys are constants; the declaration is {@link #define}
    }

    @Override
    public String name() {
        return "extractor-app";
    }

    @Override
    public void define(final ConfigFields fields) {
        fields
            .define(EXTRACTOR_MAX_IN_FLIGHT, Type.INT, 8, Range.atLeast(1), Importance.LOW,
                "Conversations one extractor task extracts and embeds at once with the offline extractor, so the embedding "
                    + "threads always have texts of several conversations queued; candidates are still forwarded in input "
                    + "order, exactly once (the LLM extractor uses llm.max.concurrency). 1 = one at a time inside the stream thread.");
    }
}
