package dev.engram.testing;

import java.util.Map;
import java.util.Objects;

import dev.engram.port.ContradictionJudge;
import dev.engram.port.Embedder;
import dev.engram.port.MemoryExtractor;
import dev.engram.port.VectorIndexFactory;
import dev.engram.rules.KeyValueContradictionJudge;
import dev.engram.rules.RuleBasedExtractor;
import dev.engram.store.EmbeddedVectorIndexFactory;

/**
 * What a {@link PipelineHarness} is built from ({@link PipelineHarness#builder()}); unset parts are the defaults of
 * {@link PipelineHarness#PipelineHarness()}: the rule-based extractor, the embedded vector index, the key/value
 * contradiction judge and no observation embedder.
 */
public final class PipelineHarnessBuilder {
    Map<String, ?> overrides = Map.of();
    MemoryExtractor extractor = new RuleBasedExtractor();
    VectorIndexFactory vectorIndex = new EmbeddedVectorIndexFactory();
    ContradictionJudge judge = new KeyValueContradictionJudge();
    Embedder observationEmbedder;

    PipelineHarnessBuilder() {
    }

    /**
     * @param value Engram config keys → values, applied over the defaults
     * @return this builder
     */
    public PipelineHarnessBuilder config(final Map<String, ?> value) {
        overrides = Objects.requireNonNull(value);
        return this;
    }

    /**
     * @param value the extractor of the extraction stage
     * @return this builder
     */
    public PipelineHarnessBuilder extractor(final MemoryExtractor value) {
        extractor = Objects.requireNonNull(value);
        return this;
    }

    /**
     * @param value the consolidator's vector index (e.g. a {@link RecordingVectorIndexFactory})
     * @return this builder
     */
    public PipelineHarnessBuilder vectorIndex(final VectorIndexFactory value) {
        vectorIndex = Objects.requireNonNull(value);
        return this;
    }

    /**
     * @param value the consolidator's contradiction judge (the key/value rule judge unless given), e.g. one
     *     standing in for an LLM's verdicts
     * @return this builder
     */
    public PipelineHarnessBuilder judge(final ContradictionJudge value) {
        judge = Objects.requireNonNull(value);
        return this;
    }

    /**
     * @param value the consolidator's embedder of observations (none unless given: the consolidation pass then
     *     writes no observations, as the other tests expect)
     * @return this builder
     */
    public PipelineHarnessBuilder observations(final Embedder value) {
        observationEmbedder = Objects.requireNonNull(value);
        return this;
    }

    /** @return the harness, its drivers started */
    public PipelineHarness build() {
        return new PipelineHarness(this);
    }
}
