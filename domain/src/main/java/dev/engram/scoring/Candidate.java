package dev.engram.scoring;

import java.util.Comparator;
import java.util.Set;

import dev.engram.avro.Memory;

/**
 * A relevant memory before the priors: its relevance logit and the fields the priors read.
 *
 * @param memory the memory (for the answer)
 * @param logit its {@link RelevanceModel} logit
 * @param importance its importance
 * @param lastAccessed lastAccessedAt in epoch ms, {@link Long#MIN_VALUE} when unknown
 * @param accessCount its access count
 * @param cited the messages it cites ({@link dev.engram.core.MemoryIds#citedMessages}) when the kept index holds them
 *     (EPISODIC memories), null when they are to be read from the memory
 * @param lent when {@code logit} is a statement's that this derived memory cites but does not state
 *     ({@link ObservationLift}): the lender and the memory's own logit; null when the logit is its own
 * @param lift the memory's text as {@link ObservationLift} reads it when the kept index holds it ({@link LiftText}),
 *     null when it is to be read from the memory
 */
record Candidate(Memory memory, double logit, double importance, long lastAccessed, int accessCount, Set<String> cited,
                 Lent lent, LiftText lift) {

    /**
     * A borrowed relevance: {@link ObservationLift} lent a statement's logit to a derived memory that does not state it.
     *
     * @param lender the statement's memory id
     * @param own the derived memory's own logit (or that of the best statement it states)
     */
    record Lent(String lender, double own) {
    }

    /** Best relevance first, ties by memory id. */
    static final Comparator<Candidate> BY_RELEVANCE = Comparator.comparingDouble((Candidate c) -> -c.logit())
        .thenComparing(c -> c.memory().getMemoryId());

    /**
     * @param view a read view of the user's kept index
     * @param slot a slot of it
     * @param logit the memory's relevance logit
     * @return the candidate of that slot
     */
    static Candidate of(final UserMemoryIndex.View view, final int slot, final double logit) {
        return new Candidate(view.memory(slot), logit, view.importance(slot), view.lastAccessed(slot),
            view.accessCount(slot), view.cited(slot), null, view.liftText(slot));
    }

    /**
     * @param lifted the logit of a statement it states
     * @return this candidate with that logit as its own
     */
    Candidate withLogit(final double lifted) {
        return new Candidate(memory, lifted, importance, lastAccessed, accessCount, cited, null, lift);
    }

    /**
     * @param lender a statement it cites but does not state
     * @param own its own logit, or that of the best statement it states
     * @return this candidate ranked by the lender's logit, which it borrows
     */
    Candidate borrowing(final Candidate lender, final double own) {
        return new Candidate(memory, lender.logit(), importance, lastAccessed, accessCount, cited,
            new Lent(lender.memory().getMemoryId(), own), lift);
    }

    /** @return the memory's text for {@link ObservationLift#states}: the kept one, else made from the memory now */
    LiftText text() {
        return lift != null ? lift : LiftText.of(memory);
    }
}
