package dev.engram.scoring;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The calibrated relevance of a memory to a query: a logistic model over the two relevance signals,
 *
 * <pre>
 *   semantic = σ(b0 + b_dense · cosine + b_lexical · lexical + b_period · period),   σ(x) = 1 / (1 + e^−x)
 * </pre>
 * where cosine is the query's cosine to the memory's embedding (0 when it has none) and lexical is
 * the memory's BM25 score divided by the query's idf mass, Σ_{t ∈ q} idf(t) (≈ the share of the query's
 * rare words the memory contains, about 0..1.5), see {@link UserMemoryIndex}, and period is 1 when the
 * question names a period ("in March 2023", "2023年5月", {@link TimeCues}) and the memory's event dates
 * fall in it, else 0. semantic estimates
 * P(the memory holds evidence for the question | cosine, lexical): the coefficients are fitted by
 * logistic regression (Platt scaling, Platt 1999) on LoCoMo dev questions against the memories
 * Engram stored for the asked user, a memory being relevant when one of its source turns is an
 * evidence turn ({@code bin/engram bench quality --calibrate} prints a fit and its reliability).
 * Cosines of different embedding models are on different scales (bge-small's unrelated pairs sit near
 * 0.5, MiniLM's near 0.1), so each model has its own coefficients.
 *
 * @param intercept b0
 * @param dense b_dense, the weight of the cosine
 * @param lexical b_lexical, the weight of the normalised BM25 score
 * @param period b_period, the weight of the memory lying in the period the question names
 */
public record RelevanceModel(double intercept, double dense, double lexical, double period) {

    /**
     * Fitted with {@code bin/engram bench quality --calibrate} on the memories the offline default stores:
     * bge-small-en on LoCoMo dev (conversations 0–6, categories 1–4; 2026-12-01 with the day cues of
     * {@link TimeCues}: b_period 1.37 → 2.41, the other coefficients within 0.06 of the month-and-year fit),
     * bge-small-zh on MemoryBank CN dev (users 0–9, 70 questions; fitted on either half of the users, it also
     * beats the raw pairs on the other half), MiniLM on its own
     * memories before the period feature existed (b_period 0). A named day weighs about the same in both
     * languages (b_period 2.41 and 2.54: e^2.4 ≈ 11× the odds). BENCHMARKS.md has every fit; refit after changing
     * what the extractor stores, or set {@code retrieval.relevance.calibration}.
     */
    private static final Map<String, RelevanceModel> FITTED = Map.of(
        "all-minilm-l6-v2-q", new RelevanceModel(-7.3923, 8.2217, 3.9089, 0),
        "bge-small-en-v15-q", new RelevanceModel(-14.0929, 15.6655, 3.6501, 2.4093),
        "bge-small-zh-v15-q", new RelevanceModel(-7.7649, 6.8812, 9.3441, 2.5372));

    /**
     * @param logit b0 + b_dense·cosine + b_lexical·lexical
     * @return σ(logit), 0..1
     */
    public static double probability(final double logit) {
        return 1.0 / (1.0 + Math.exp(-logit));
    }

    /**
     * @param probability 0 &lt; p &lt; 1
     * @return ln(p / (1 − p))
     */
    public static double logitOf(final double probability) {
        if (probability <= 0) {
            return Double.NEGATIVE_INFINITY;
        }
        if (probability >= 1) {
            return Double.POSITIVE_INFINITY;
        }
        return Math.log(probability / (1 - probability));
    }

    /**
     * @param cosine the cosine to the query, −1..1
     * @param lexical BM25 / the query's idf mass, ≥ 0
     * @param inPeriod whether the memory lies in the period the question names
     * @return the logit of the relevance
     */
    public double logit(final double cosine, final double lexical, final boolean inPeriod) {
        return intercept + dense * cosine + lexical * this.lexical + (inPeriod ? period : 0);
    }

    /**
     * @param modelName the embedding model of the memories' vectors (e.g. {@code all-minilm-l6-v2-q})
     * @param override {@code b0,b_dense,b_lexical[,b_period]} from configuration (b_period 0 when left out),
     *     or blank for the fitted default
     * @return the model
     * @throws IllegalArgumentException when the override is malformed, or blank and the model has no fit
     */
    public static RelevanceModel of(final String modelName, final String override) {
        if (override != null && !override.isBlank()) {
            final String[] parts = override.split(",");
            if (parts.length != 3 && parts.length != 4) {
                throw new IllegalArgumentException("retrieval.relevance.calibration must be three or four numbers "
                    + "b0,b_dense,b_lexical[,b_period]: " + override);
            }
            try {
                return new RelevanceModel(Double.parseDouble(parts[0].strip()), Double.parseDouble(parts[1].strip()),
                    Double.parseDouble(parts[2].strip()), parts.length == 4 ? Double.parseDouble(parts[3].strip()) : 0);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("retrieval.relevance.calibration is not numeric: " + override, e);
            }
        }
        final RelevanceModel fitted = FITTED.get(modelName == null ? "" : modelName.toLowerCase(Locale.ROOT));
        if (fitted == null) {
            throw new IllegalArgumentException("No relevance calibration for embedding model " + modelName
                + "; set retrieval.relevance.calibration=b0,b_dense,b_lexical,b_period (bin/engram bench quality --calibrate fits one)");
        }
        return fitted;
    }

    /**
     * Splits {@code retrieval.relevance.calibration} into one override per embedding model.
     *
     * @param configured {@code b0,b_dense,b_lexical[,b_period]} for the default model, and/or entries
     *     {@code <model>:b0,b_dense,b_lexical[,b_period]} for any model, separated by {@code ;}
     *     (e.g. {@code bge-small-zh-v15-q:-8.08,7.19,9.18,2.63}); blank for none
     * @param defaultModel the model a bare list is for
     * @return coefficient text by model name (lower case), for {@link #of}
     * @throws IllegalArgumentException when two entries name the same model
     */
    public static Map<String, String> overrides(final String configured, final String defaultModel) {
        final Map<String, String> out = new HashMap<>();
        if (configured == null || configured.isBlank()) {
            return out;
        }
        for (final String entry : configured.split(";")) {
            if (entry.isBlank()) {
                continue;
            }
            final int colon = entry.indexOf(':');
            final String model = (colon < 0 ? defaultModel : entry.substring(0, colon)).strip().toLowerCase(Locale.ROOT);
            if (out.put(model, entry.substring(colon + 1).strip()) != null) {
                throw new IllegalArgumentException("retrieval.relevance.calibration names " + model + " twice: "
                    + configured);
            }
        }
        return out;
    }

    /** @return the three coefficients as configuration text */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%.4f,%.4f,%.4f,%.4f", intercept, dense, lexical, period);
    }

    /**
     * The calibration of each model an embedder holds: its fit, or the override given for it.
     *
     * @param models the embedder's models
     * @param defaultModel the model a bare override list is for
     * @param override {@code retrieval.relevance.calibration}: a bare list is the default model's, {@code <model>:…}
     *     entries set others, the rest keep their fit
     * @return model name → calibration, unmodifiable
     * @throws IllegalArgumentException when the override is malformed or names a model without a fit
     */
    static Map<String, RelevanceModel> forModels(final java.util.List<String> models, final String defaultModel,
                                                          final String override) {
        final Map<String, String> overrides = overrides(override, defaultModel);
        final Map<String, RelevanceModel> byModel = new HashMap<>();
        for (final String model : models) {
            byModel.put(model, of(model, overrides.getOrDefault(model.toLowerCase(Locale.ROOT), "")));
        }
        return Map.copyOf(byModel);
    }
}
