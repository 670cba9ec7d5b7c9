package dev.engram.consolidation;

import dev.engram.config.ConfigValues;
import dev.engram.config.CoreConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.scoring.SimilarityScale;

/**
 * The numbers the {@link Consolidator}'s decision depends on.
 *
 * @param minImportance candidates below it are dropped (0..1)
 * @param minConfidence candidates below it are dropped (0..1)
 * @param reinforceThreshold similarity ({@code scale}) above which a hit is reinforced
 * @param judgeThreshold similarity from which (up to the reinforce threshold) the judge is asked
 * @param reviveThreshold similarity from which an unkeyed memory archived as STALE or EXPIRED is revived by
 *     a restatement ({@code lifecycle.merge.threshold}: what the daily pass would merge were both active)
 * @param dimensions expected embedding size of the default model
 * @param hanModel the model of mostly-Han text ({@code embedding.model.han}), or null when there is none
 * @param hanDimensions expected embedding size of a candidate of {@code hanModel}
 * @param maxContentChars longest accepted content
 * @param scale puts each model's cosines on the thresholds' scale ({@code embedding.similarity.floors})
 */
public record ConsolidatorSettings(double minImportance, double minConfidence, double reinforceThreshold,
                                   double judgeThreshold, double reviveThreshold, int dimensions, String hanModel, int hanDimensions,
                                   int maxContentChars, SimilarityScale scale) {

    /**
     * @param config {@code memory.min.importance}, {@code memory.min.confidence},
     *     {@code dedup.reinforce.threshold}, {@code dedup.judge.threshold}, {@code lifecycle.merge.threshold},
     *     {@code embedding.dimensions}, {@code embedding.model.han}, {@code embedding.han.dimensions},
     *     {@code input.max.message.chars}, {@code embedding.similarity.floors}
     * @return the settings
     */
    public static ConsolidatorSettings from(final ConfigValues config) {
        return new ConsolidatorSettings(config.getDouble(DomainConfig.MIN_IMPORTANCE),
            config.getDouble(DomainConfig.MIN_CONFIDENCE),
            config.getDouble(DomainConfig.REINFORCE_THRESHOLD),
            config.getDouble(DomainConfig.JUDGE_THRESHOLD),
            Math.min(config.getDouble(DomainConfig.MERGE_THRESHOLD), config.getDouble(DomainConfig.REINFORCE_THRESHOLD)),
            config.getInt(CoreConfig.EMBEDDING_DIMENSIONS),
            hanModel(config),
            config.getInt(CoreConfig.EMBEDDING_HAN_DIMENSIONS),
            config.getInt(DomainConfig.MAX_MESSAGE_CHARS),
            SimilarityScale.fromConfig(config));
    }

    private static String hanModel(final ConfigValues config) {
        final String han = config.getString(CoreConfig.EMBEDDING_MODEL_HAN);
        return han == null || han.isBlank() || han.equals(config.getString(CoreConfig.EMBEDDING_MODEL)) ? null : han;
    }
}
