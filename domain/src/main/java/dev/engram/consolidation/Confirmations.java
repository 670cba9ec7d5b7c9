package dev.engram.consolidation;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.engram.avro.ContradictionDetected;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.port.ExtractedMemory;

/**
 * Rules 7, 8 and 9 of the {@link Consolidator}: what a user's own episode does to the user's ACTIVE facts besides its
 * own decision (it confirms a fact whose value it names, it retracts one whose value it says ended, it corrects one
 * whose value it says was mistyped or mistaken: {@link SelfCorrections}). Stateless.
 */
final class Confirmations {

    private Confirmations() {
    }

    /**
     * Rules 7 and 8, for a user's own episode (not an exchange or a summary: the assistant's words are not the user's)
     * and each of the user's ACTIVE facts the decision did not already write. Rule 8: an episode that says what the
     * fact's value names ended ("Marco and I broke up", "Biscuit died", "I left IBM": {@link Outdated#ends}), said at
     * or after the fact, retracts it as a negation does (ARCHIVED, reason NEGATED, and the memories stating it marked).
     * Rule 7: an episode that names the value ("Still at NASA, fighting our build system"; of a fact corrected since
     * through the API, the value it held when the episode was said, {@link Facts#valueAt}) is a restatement of that
     * fact too: the fact is reinforced as well (one more conversation, {@code lastConfirmedAt}, the message among its
     * sources; importance and confidence stay), so its expiry counts from this confirmation; not when the sentence
     * naming the value is negative ("I'm not at NASA any more"). When the episode's own decision only reinforced or
     * revived an episode and every fact it restates already cites its message (the fact candidate of the same turn
     * came first), the decision is {@link Consolidator.Outcome#RESTATED_FACT}: nothing is written, so one restatement
     * gives one {@code memory-updated} event, the fact's.
     */
    static Consolidator.Decision withConfirmations(final MemoryCandidate candidate, final Consolidator.Decision decision,
                                                    final List<Memory> userMemories) {
        if (candidate.getKey() != null || ExtractedMemory.isExchange(candidate.getDisplayName())
            || ExtractedMemory.isSummary(candidate.getType(), candidate.getDisplayName())) {
            return decision;
        }
        final Set<String> written = new HashSet<>();
        decision.changes().forEach(c -> written.add(c.after().getMemoryId()));
        final List<Consolidator.Change> changes = new ArrayList<>(decision.changes());
        final List<ContradictionDetected> contradictions = new ArrayList<>(decision.contradictions());
        final List<MemoryArchived> archived = new ArrayList<>(decision.archived());
        boolean factHoldsIt = false;
        final Consolidator.Decision corrected = SelfCorrections.correct(candidate, userMemories);
        if (corrected != null) {
            // rule 9 first: "I meant Lisbon, not Lisbn" names the old value, which rule 7 would read as a restatement
            corrected.changes().forEach(c -> written.add(c.after().getMemoryId()));
            changes.addAll(corrected.changes());
        }
        for (final Memory fact : userMemories) {
            if (fact.getStatus() != MemoryStatus.ACTIVE || fact.getKey() == null || written.contains(fact.getMemoryId())) {
                continue;
            }
            final Consolidator.Decision more;
            if (Outdated.ends(candidate.getContent(), fact.getValue())
                && !candidate.getEventTime().isBefore(fact.getValidFrom())) {
                more = MemoryWrites.retract(fact, candidate, 0.0, userMemories);
            } else if (Facts.restates(candidate.getContent(), Facts.valueAt(fact, candidate.getEventTime()))) {
                // the value the fact held when it was said: a late episode naming a value a correction replaced after it
                // confirms the fact as a replay (candidates and commands in time order) confirms it before the correction
                more = MemoryWrites.confirm(fact, candidate);
                // DUPLICATE: the fact already cites this very message (its own candidate came first)
                factHoldsIt |= more.outcome() == Consolidator.Outcome.DUPLICATE;
            } else {
                continue;
            }
            if (more.outcome() == Consolidator.Outcome.REINFORCED || more.outcome() == Consolidator.Outcome.RETRACTED) {
                more.changes().forEach(c -> written.add(c.after().getMemoryId()));
                changes.addAll(more.changes());
                contradictions.addAll(more.contradictions());
                archived.addAll(more.archived());
            }
        }
        if (changes.size() == decision.changes().size() && factHoldsIt
            && (decision.outcome() == Consolidator.Outcome.REINFORCED || decision.outcome() == Consolidator.Outcome.REVIVED)) {
            return Consolidator.Decision.nothing(Consolidator.Outcome.RESTATED_FACT);
        }
        return changes.size() == decision.changes().size() ? decision
            : new Consolidator.Decision(decision.outcome(), changes, contradictions, archived);
    }
}
