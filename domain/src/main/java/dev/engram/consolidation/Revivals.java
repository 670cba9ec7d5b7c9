package dev.engram.consolidation;

import java.util.List;
import java.util.function.ToDoubleFunction;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.port.ExtractedMemory;

/**
 * Rule 6 of the {@link Consolidator}, revival: where the other rules would create a memory, a memory ARCHIVED as
 * STALE or EXPIRED that the candidate restates is brought back instead of copied. A fact is restated by the same key
 * and value ({@link Facts#sameValue}); an unkeyed memory by a candidate of the same embedding model and identifiers
 * ({@link Facts#sameIdentifiers}) with similarity of at least the revive threshold (the most similar one; ties: the
 * least id). The memory becomes ACTIVE again (archive reason and {@code supersededBy} cleared) and is reinforced
 * ({@link MemoryWrites#reinforce}): event REINFORCED whose {@code before} is the archived state, so its history reads
 * CREATED, ARCHIVED, REINFORCED ({@link Consolidator.Outcome#REVIVED}). A memory archived for a reason about its truth
 * (SUPERSEDED, NEGATED, MERGED) and a conversation summary are never revived. Stateless.
 */
final class Revivals {

    private Revivals() {
    }

    /**
     * @param candidate the candidate the other rules would create
     * @param userMemories every memory of the candidate's user, every status
     * @param similarity the candidate's similarity to a memory on the thresholds' scale (0 across embedding models)
     * @param reviveThreshold least similarity of an unkeyed memory the candidate revives
     *     ({@link ConsolidatorSettings#reviveThreshold})
     * @return REVIVED with the one change, CREATED, or DUPLICATE when the revived memory already cites the candidate's
     *     messages (a redelivery)
     */
    static Consolidator.Decision createOrRevive(final MemoryCandidate candidate, final List<Memory> userMemories,
                                                final ToDoubleFunction<Memory> similarity, final double reviveThreshold) {
        Memory best = null;
        double bestSimilarity = Double.NEGATIVE_INFINITY;
        for (final Memory memory : userMemories) {
            if (memory.getStatus() != MemoryStatus.ARCHIVED || memory.getArchiveReason() != ArchiveReason.STALE
                && memory.getArchiveReason() != ArchiveReason.EXPIRED
                || ExtractedMemory.isSummary(memory.getType(), memory.getDisplayName())) {
                continue;
            }
            final double s = similarity.applyAsDouble(memory);
            final boolean restated = candidate.getKey() != null
                ? candidate.getKey().equals(memory.getKey())
                    && Facts.sameValue(memory.getValue(), memory.getContent(), candidate.getValue(), candidate.getContent())
                : memory.getKey() == null && candidate.getEmbeddingModel().equals(memory.getEmbeddingModel())
                    && s >= reviveThreshold
                    && Facts.sameIdentifiers(memory.getContent(), candidate.getContent());
            if (restated && (s > bestSimilarity
                || s == bestSimilarity && memory.getMemoryId().compareTo(best.getMemoryId()) < 0)) {
                best = memory;
                bestSimilarity = s;
            }
        }
        if (best == null) {
            return MemoryWrites.create(candidate, userMemories);
        }
        final Consolidator.Decision reinforced = MemoryWrites.reinforce(Memory.newBuilder(best)
            .setStatus(MemoryStatus.ACTIVE).setArchiveReason(null).setSupersededBy(null).build(), candidate);
        if (reinforced.outcome() != Consolidator.Outcome.REINFORCED) {
            return reinforced; // its conversation already counted: a redelivery
        }
        final Consolidator.Change change = reinforced.changes().get(0);
        return new Consolidator.Decision(Consolidator.Outcome.REVIVED, List.of(new Consolidator.Change(best, change.event())),
            List.of(), List.of());
    }
}
