package dev.engram.consolidation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.SourceRef;
import dev.engram.port.ExtractedMemory;

/**
 * What else a user's deletion of a fact removes, so that the deleted statement reaches no read: the memories without
 * a key that say it in the user's words. Before 2026-12-06 they were only marked as outdated ({@link Outdated}), and
 * the context block went on telling them under "Earlier, no longer current" (session 15 trial: "Likes hurling"
 * deleted, the turn "Dublin is where I live. Hurling is what I love." still served), as did search, the list, the
 * history, the export and MCP. Stateless, thread-safe.
 */
public final class DeletedWords {

    private DeletedWords() {
    }

    /**
     * The memories a deletion of {@code fact} removes with it: of the user's memories without a key (any status but
     * DELETED, said at or before the deletion, other than the fact itself), those stating its value as a word
     * ({@link Outdated#states}; for a stance such as {@code preference:hurling = like} the key's subject, "hurling")
     * and the turn and exchange episodes citing a message the fact was read from (same conversation, a shared message
     * index: "Please keep answers short" stated {@code response_style = concise} in other words). Summaries and merged
     * memories stating the value go whole: they are rewritten by no rule, and what they say besides is kept by the
     * facts and episodes it came from. Observations are not listed: the caller regroups them without the deleted
     * statements. Memories already outdated are included: an old value is told under "Earlier" as well.
     *
     * @param fact the fact deleted, as it was before the deletion; a memory without a key removes nothing else
     * @param at the deletion time (the command's {@code issuedAt})
     * @param userMemories every memory of the user, as the deletion found them
     * @return the memories to delete, in the order of {@code userMemories}
     */
    public static List<Memory> sayingIt(final Memory fact, final Instant at, final List<Memory> userMemories) {
        final List<Memory> out = new ArrayList<>();
        if (fact.getKey() == null || fact.getValue() == null) {
            return out;
        }
        final String stated = Outdated.isPolarity(fact.getValue()) ? Outdated.subject(fact.getKey()) : fact.getValue();
        for (final Memory m : userMemories) {
            if (m.getStatus() == MemoryStatus.DELETED || m.getKey() != null || m.getValidFrom().isAfter(at)
                || m.getMemoryId().equals(fact.getMemoryId())
                || ExtractedMemory.isObservation(m.getType(), m.getDisplayName())) {
                continue;
            }
            if (stated != null && Outdated.states(m.getContent(), stated) || citesSource(m, fact)) {
                out.add(m);
            }
        }
        return out;
    }

    /** @return whether {@code m} is a turn or exchange episode sharing a message with one of the fact's sources */
    private static boolean citesSource(final Memory m, final Memory fact) {
        if (m.getType() != MemoryType.EPISODIC || ExtractedMemory.isSummary(m.getType(), m.getDisplayName())) {
            return false;
        }
        for (final SourceRef source : fact.getSources()) {
            if (Outdated.cites(m, source)) {
                return true;
            }
        }
        return false;
    }
}
