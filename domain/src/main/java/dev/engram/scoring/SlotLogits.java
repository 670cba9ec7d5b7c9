package dev.engram.scoring;

import java.util.Map;
import java.util.function.Function;

/**
 * The indexed path's relevance of every slot for one part of a question ({@link QueryParts}): dense cosine against
 * the kept vectors (or a dense index's hits), BM25 from the postings, the period cue, fused by each slot's model's
 * {@link RelevanceModel}. Stateless; the arithmetic of {@link ExhaustiveRanking}'s, so both paths agree.
 */
final class SlotLogits {

    private SlotLogits() {
    }

    /**
     * The relevance logit of every slot read for one part of the question, into {@link IndexScratch#logits} (the
     * first part's, or the better of it and what is there).
     *
     * @param view a read view of the user's kept index
     * @param scratch this thread's scratch
     * @param relevanceOf the calibration of each model of the view known to the request
     * @param relevance an embedding model → its calibration (for a slot of a model the request did not know)
     * @param part the part
     * @param queryByModel its normalised vector per known model (null when not held)
     * @param first whether it is the first part (its logits replace what is there)
     * @param read the slots ranked (the ACTIVE ones, or a question's eligible memories)
     */
    static void of(final UserMemoryIndex.View view, final IndexScratch scratch, final RelevanceModel[] relevanceOf,
                   final Function<String, RelevanceModel> relevance, final QueryParts.Part part,
                   final float[][] queryByModel, final boolean first, final EligibleSlots read) {
        final int slots = view.slots();
        final int known = relevanceOf.length;
        final Map<String, Double> dense = part.dense();
        final boolean[] exact = new boolean[known];
        for (int m = 0; m < known; m++) {
            exact[m] = dense == null && queryByModel[m] != null && queryByModel[m].length == view.dimensions(m);
        }
        final TimeCues.Period period = part.period();
        final long firstDay = period == null ? 0 : period.from().toEpochDay();
        final long lastDay = period == null ? 0 : period.to().toEpochDay();
        final double[] bm25 = scratch.bm25;
        final double[] logits = scratch.logits;
        try {
            final double idfMass = scratch.lexical(view, part.terms(), read);
            for (int s = 0; s < slots; s++) {
                if (!read.test(s)) {
                    continue;
                }
                final int m = view.model(s);
                final boolean knownModel = m >= 0 && m < known;
                final double cosine;
                if (dense != null) {
                    cosine = dense.getOrDefault(view.memory(s).getMemoryId(), 0.0);
                } else {
                    cosine = knownModel && exact[m] ? Vectors.dot(queryByModel[m], view.vectors(m), s * view.dimensions(m)) : 0;
                }
                final double lexical = idfMass > 0 ? bm25[s] / idfMass : 0;
                // an any-year day ("on May 3rd") has no epoch-day bounds to pre-filter with
                final boolean inPeriod = period != null && (period.anyYear() || view.mayOverlap(s, firstDay, lastDay))
                    && period.overlaps(view.days(s));
                // as the exhaustive path: the memory's model's calibration, also without a usable vector
                final RelevanceModel calibration = knownModel ? relevanceOf[m] : relevance.apply(view.memory(s).getEmbeddingModel());
                final double logit = calibration.logit(cosine, lexical, inPeriod);
                logits[s] = first ? logit : Math.max(logits[s], logit);
            }
        } finally {
            scratch.clear();
        }
    }
}
