package dev.engram.scoring;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.engram.config.ConfigValues;
import dev.engram.config.InvalidSettingException;
import dev.engram.domain.DomainConfig;

/**
 * Puts the cosines of different embedding models on one scale, so that every similarity threshold
 * between two memories ({@code dedup.reinforce.threshold}, {@code dedup.judge.threshold},
 * {@code lifecycle.merge.threshold}) means the same whichever model embedded the memories:
 * similarity = (cosine − floor) / (1 − floor), with the model's floor from
 * {@code embedding.similarity.floors} (0 for a model not listed: raw cosine). A query against a memory
 * needs no floor: retrieval's {@link RelevanceModel} is calibrated per model.
 *
 * <p>Why: bge models put every pair of sentences high on the cosine scale (on LoCoMo turns the median
 * pair has cosine 0.65 with bge-small-en-v1.5 against 0.25 with all-MiniLM-L6-v2, the median nearest
 * neighbour 0.86 against 0.68), so MiniLM's 0.9 / 0.85 / 0.7 / 0.2 would reinforce and merge distinct
 * memories. The floors come from matching the quantiles of pair cosines and nearest-neighbour cosines
 * of 400 turns per model (LoCoMo dev and MemoryBank EN for bge-small-en against MiniLM on the same
 * texts; MemoryBank CN for bge-small-zh against MiniLM on MemoryBank EN): above the median a straight
 * line cosine_bge ≈ floor + (1 − floor)·cosine_MiniLM fits, floor 0.50–0.54 for bge-small-en and ~0.40
 * for bge-small-zh. MiniLM's floor is 0, so its thresholds keep their raw-cosine meaning.
 *
 * <p>Immutable and thread-safe.
 */
public final class SimilarityScale {

    /** Raw cosine for every model (no floors). */
    public static final SimilarityScale RAW = new SimilarityScale(Map.of());

    private final Map<String, Double> floors;

    /**
     * @param floors model name → floor in [0, 1) between two memories
     * @throws IllegalArgumentException for a floor outside [0, 1)
     */
    public SimilarityScale(final Map<String, Double> floors) {
        for (final Map.Entry<String, Double> e : floors.entrySet()) {
            if (!(e.getValue() >= 0 && e.getValue() < 1)) {
                throw new IllegalArgumentException("Similarity floor of " + e.getKey() + " must be in [0, 1): "
                    + e.getValue());
            }
        }
        this.floors = Map.copyOf(floors);
    }

    /**
     * @param config {@code embedding.similarity.floors}, a list of {@code MODEL=FLOOR}
     * @return the scale
     * @throws InvalidSettingException for an entry that is not {@code MODEL=FLOOR} with a floor in [0, 1)
     */
    public static SimilarityScale fromConfig(final ConfigValues config) {
        return new SimilarityScale(floors(config, DomainConfig.EMBEDDING_SIMILARITY_FLOORS));
    }

    private static Map<String, Double> floors(final ConfigValues config, final String key) {
        final List<String> entries = config.getList(key);
        final Map<String, Double> floors = new HashMap<>();
        for (final String entry : entries) {
            final int eq = entry.indexOf('=');
            try {
                if (eq < 1) {
                    throw new IllegalArgumentException("expected MODEL=FLOOR");
                }
                final double floor = Double.parseDouble(entry.substring(eq + 1).trim());
                if (!(floor >= 0 && floor < 1)) {
                    throw new IllegalArgumentException("the floor must be in [0, 1)");
                }
                floors.put(entry.substring(0, eq).trim(), floor);
            } catch (IllegalArgumentException e) {
                throw new InvalidSettingException(key, entry, e.getMessage());
            }
        }
        return floors;
    }

    /**
     * @param model the model both vectors come from
     * @return its floor (0 when not listed)
     */
    public double floor(final String model) {
        return model == null ? 0.0 : floors.getOrDefault(model, 0.0);
    }

    /**
     * @param model the model both vectors come from (never two models: their vectors are not comparable)
     * @param cosine their cosine, -1..1
     * @return (cosine − floor) / (1 − floor): 1 for identical vectors, 0 at the floor, negative below it
     */
    public double similarity(final String model, final double cosine) {
        final double floor = floor(model);
        return floor == 0.0 ? cosine : (cosine - floor) / (1 - floor);
    }
}
