package dev.engram.scoring;

import java.util.regex.Pattern;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;

/**
 * A question about what was true before ("Where did I live before Lisbon?", "Where did I work previously?", "What
 * was my former employer?"): its answer is a value the user changed, a fact ARCHIVED as SUPERSEDED or NEGATED, which a
 * ranking of the ACTIVE memories never reaches. Such a question ranks those facts beside the ACTIVE memories; they are
 * told as past wherever they are shown (the context block's {@code Earlier, no longer current:} with the time each
 * held, a view's status and {@code validTo}), never as current.
 *
 * <p>The cue is a word of the question, not a clock: "before", "previously", "used to", "former(ly)", "earlier", "in
 * the past", "originally", "prior to", "no longer". What the cue reaches is the user's own earlier values only: not a
 * memory archived as STALE, EXPIRED or MERGED (its value did not change), not an episode (an episode that states an
 * old value is ACTIVE already, marked as outdated). Stateless.
 */
public final class PastCues {

    private static final Pattern PAST = Pattern.compile("(?i)\\b(?:before|previously|used\\s+to|former(?:ly)?|earlier"
        + "|in\\s+the\\s+past|originally|prior\\s+to|no\\s+longer)\\b");

    private PastCues() {
    }

    /**
     * @param question a query or a message
     * @return whether it asks about what was true before
     */
    public static boolean asks(final String question) {
        return question != null && PAST.matcher(question).find();
    }

    /**
     * @param memory a memory of any status
     * @return whether it is a value the user changed or took back: a keyed fact ARCHIVED as SUPERSEDED or NEGATED,
     *     with the time its value ended
     */
    public static boolean earlierValue(final Memory memory) {
        return memory.getStatus() == MemoryStatus.ARCHIVED && memory.getKey() != null && memory.getValidTo() != null
            && (memory.getArchiveReason() == ArchiveReason.SUPERSEDED || memory.getArchiveReason() == ArchiveReason.NEGATED);
    }

    /**
     * @param memory a memory of any status
     * @return whether a question about the past ranks it: ACTIVE, or an {@link #earlierValue}
     */
    public static boolean eligible(final Memory memory) {
        return memory.getStatus() == MemoryStatus.ACTIVE || earlierValue(memory);
    }
}
