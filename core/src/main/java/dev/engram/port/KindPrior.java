package dev.engram.port;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * The prior log-odds of each {@link MemoryKind} holding the answer, added to a candidate's calibrated relevance
 * logit before the priors re-rank it:
 *
 * <pre>
 *   semantic = σ(relevance logit + b_kind)
 * </pre>
 * The relevance model ({@link RelevanceModel}) scores what the query and the memory's words share; it cannot see
 * that at equal similarity an observation (several of the user's statements on the topic) or a session's summary
 * holds the answer more often than one acknowledging reply. The offsets are the intercepts of a logistic
 * regression of "cites an evidence turn" on the candidates' relevance logit (slope held at 1) and one indicator per
 * kind, fitted on LoCoMo dev with {@code bin/engram bench quality --calibrate} (the fit and its leave-one-conversation-out
 * check are in BENCHMARKS.md). Only the order of the candidates changes: which memories are candidates (the
 * relevance threshold and the over-fetch) does not depend on it.
 *
 * @param offsets b_kind per kind, in log-odds (0 for a kind not configured)
 */
public record KindPrior(Map<MemoryKind, Double> offsets) {

    /** No kind weighs more than another. */
    public static final KindPrior NONE = new KindPrior(Map.of());

    /**
     * @param offsets b_kind per kind
     */
    public KindPrior {
        offsets = Map.copyOf(offsets);
    }

    /**
     * @param kind a memory's kind
     * @return its prior log-odds b_kind
     */
    public double offset(final MemoryKind kind) {
        return offsets.getOrDefault(kind, 0.0);
    }

    /**
     * @param configured {@code kind:b,kind:b,…} (kinds as {@link MemoryKind#configName()}, e.g.
     *     {@code observation:1.2,summary:0.9}); blank for {@link #NONE}
     * @return the prior
     * @throws IllegalArgumentException when an entry is not {@code kind:number}, names an unknown kind or one twice
     */
    public static KindPrior parse(final String configured) {
        if (configured == null || configured.isBlank()) {
            return NONE;
        }
        final Map<MemoryKind, Double> out = new EnumMap<>(MemoryKind.class);
        for (final String entry : configured.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            final int colon = entry.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("expected kind:log-odds, got '" + entry.strip() + "'");
            }
            final MemoryKind kind = MemoryKind.named(entry.substring(0, colon));
            final double offset;
            try {
                offset = Double.parseDouble(entry.substring(colon + 1).strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a number for " + kind.configName() + ": '"
                    + entry.substring(colon + 1).strip() + "'", e);
            }
            if (!Double.isFinite(offset)) {
                throw new IllegalArgumentException("not a finite number for " + kind.configName() + ": " + offset);
            }
            if (out.put(kind, offset) != null) {
                throw new IllegalArgumentException("names " + kind.configName() + " twice");
            }
        }
        return new KindPrior(out);
    }

    /** @return the prior as configuration text, every kind in declaration order */
    @Override
    public String toString() {
        final StringBuilder out = new StringBuilder();
        for (final MemoryKind kind : MemoryKind.values()) {
            if (out.length() > 0) {
                out.append(',');
            }
            out.append(kind.configName()).append(':').append(String.format(Locale.ROOT, "%.2f", offset(kind)));
        }
        return out.toString();
    }
}
