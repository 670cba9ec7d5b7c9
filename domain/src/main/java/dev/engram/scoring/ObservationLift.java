package dev.engram.scoring;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.avro.SourceRef;
import dev.engram.port.ExtractedMemory;

/**
 * An observation is as relevant as its best-matching statement: a memory that states up to 16 statements on one topic
 * has one embedding of all of them, an average that matches no single question well, so a question one of its
 * statements answers ranks the statement and leaves the observation (and the other statements' evidence it cites)
 * below the top. Here each observation (and topic list) takes the relevance logit of the best candidate statement it
 * cites (a statement whose first source, the message that first said it, is one of the observation's sources: how
 * {@code Observations} builds an observation's sources), when that is above its own — the max over its members that
 * Hindsight and ColBERT-style late interaction score a multi-part document by, restricted to the members that are
 * candidates already (the best {@code overfetch·k}), so it costs no extra vector comparison.
 *
 * <p>Only statements lift: not an exchange episode, a conversation summary or another observation. The lifted
 * candidates join the ranking by relevance (ties by id) and the list is cut to its former length again, so the priors
 * then see the same number of candidates. Both ranking paths ({@link HybridScorer}) apply it to their candidates, so
 * they still agree. Stateless.
 */
final class ObservationLift {

    private ObservationLift() {
    }

    /**
     * @param memory a memory
     * @return whether it is an observation or a topic list (a memory that may be lifted)
     */
    static boolean lifts(final Memory memory) {
        return ExtractedMemory.isObservation(memory.getType(), memory.getDisplayName());
    }

    /**
     * @param ranked candidates by relevance, best first (the best {@code fetch})
     * @param observations the ranked memories' observations with their own relevance, candidates or not (logit
     *     below the threshold too)
     * @param fetch candidates kept
     * @return the candidates with lifted observations, best first, at most {@code max(fetch, ranked.size())}
     */
    static List<Candidate> lift(final List<Candidate> ranked, final List<Candidate> observations,
                                final int fetch) {
        if (ranked.isEmpty() || observations.isEmpty()) {
            return ranked;
        }
        final Map<SourceRef, Double> bestBySource = new HashMap<>();
        for (final Candidate c : ranked) {
            final Memory m = c.memory();
            if (m.getSources().isEmpty() || lifts(m) || ExtractedMemory.isExchange(m.getDisplayName())
                || ExtractedMemory.isSummary(m.getType(), m.getDisplayName())) {
                continue;
            }
            bestBySource.merge(m.getSources().get(0), c.logit(), Math::max);
        }
        if (bestBySource.isEmpty()) {
            return ranked;
        }
        final Map<String, Candidate> byId = new HashMap<>();
        for (final Candidate c : ranked) {
            byId.put(c.memory().getMemoryId(), c);
        }
        boolean changed = false;
        for (final Candidate o : observations) {
            double best = Double.NEGATIVE_INFINITY;
            for (final SourceRef ref : o.memory().getSources()) {
                final Double logit = bestBySource.get(ref);
                if (logit != null && logit > best) {
                    best = logit;
                }
            }
            final Candidate held = byId.get(o.memory().getMemoryId());
            final double current = held != null ? held.logit() : o.logit();
            if (best > current) {
                final Candidate c = held != null ? held : o;
                byId.put(c.memory().getMemoryId(), c.withLogit(best));
                changed = true;
            }
        }
        if (!changed) {
            return ranked;
        }
        final List<Candidate> out = new ArrayList<>(byId.values());
        out.sort(Candidate.BY_RELEVANCE);
        return out.subList(0, Math.min(Math.max(fetch, ranked.size()), out.size()));
    }
}
