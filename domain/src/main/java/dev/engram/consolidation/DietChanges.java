package dev.engram.consolidation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.ContradictionDetected;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.UpdateOperation;

/**
 * Rule 10 of the {@link Consolidator}: a diet or a food the user gives up takes back the food likes it rules out. "I
 * love steak", then "I no longer eat meat" ({@code avoids:meat}) or "I'm vegetarian now" ({@code diet} = vegetarian):
 * "Likes steak" ({@code preference:steak} = like) is another key, so no rule keyed by the slot saw it, and it stayed
 * current beside "Does not eat meat". Which foods a diet or food rules out is {@link FoodGroups}' small vocabulary.
 * Stateless.
 */
final class DietChanges {

    private DietChanges() {
    }

    /**
     * For a diet or food-avoided fact the decision wrote ACTIVE (created, superseding the old diet, reinforced or
     * revived; not a negation): each of the user's ACTIVE likes ({@code preference:<subject>} = like) said at or before
     * it whose subject it rules out ({@link FoodGroups#rulesOut}) is archived as SUPERSEDED by the diet's memory,
     * {@code validTo} = the candidate's event time (a ContradictionDetected with reason {@code diet} and a
     * MemoryArchived each), and the memories stating the liked subject are marked as outdated ({@link Outdated#mark}:
     * "I love steak" is told as earlier). A like said after the diet stands (the user says what they eat now). Every
     * time is the candidate's, so a replay writes the same.
     *
     * @param candidate the candidate decided
     * @param decision its decision
     * @param userMemories every memory of the user before the decision
     * @return the decision with the likes' changes appended, or {@code decision} itself when it rules out none
     */
    static Consolidator.Decision withRuledOutLikes(final MemoryCandidate candidate, final Consolidator.Decision decision,
                                                  final List<Memory> userMemories) {
        if (candidate.getKey() == null || candidate.getNegated()) {
            return decision;
        }
        final Set<String> ruledOut = FoodGroups.ruledOutBy(candidate.getKey(), candidate.getValue());
        final Memory diet = decision.changes().stream().map(Consolidator.Change::after)
            .filter(m -> candidate.getKey().equals(m.getKey()) && m.getStatus() == MemoryStatus.ACTIVE)
            .findFirst().orElse(null);
        if (ruledOut.isEmpty() || diet == null) {
            return decision;
        }
        final Instant at = candidate.getEventTime();
        final Set<String> written = new HashSet<>();
        decision.changes().forEach(c -> written.add(c.after().getMemoryId()));
        final List<Consolidator.Change> changes = new ArrayList<>(decision.changes());
        final List<ContradictionDetected> contradictions = new ArrayList<>(decision.contradictions());
        final List<MemoryArchived> archived = new ArrayList<>(decision.archived());
        // the user's memories as the changes so far left them: one episode may state two liked foods ruled out
        final List<Memory> view = new ArrayList<>(userMemories);
        for (final Memory like : userMemories) {
            if (like.getStatus() != MemoryStatus.ACTIVE || like.getKey() == null || !like.getKey().startsWith("preference:")
                || !"like".equalsIgnoreCase(like.getValue()) || written.contains(like.getMemoryId())
                || like.getValidFrom().isAfter(at)
                || !FoodGroups.rulesOut(like.getKey().substring("preference:".length()), ruledOut)) {
                continue;
            }
            final Memory after = Memory.newBuilder(like).setStatus(MemoryStatus.ARCHIVED)
                .setArchiveReason(ArchiveReason.SUPERSEDED).setSupersededBy(diet.getMemoryId()).setValidTo(at)
                .setUpdatedAt(MemoryWrites.later(like.getUpdatedAt(), at)).build();
            final List<Consolidator.Change> more = new ArrayList<>();
            more.add(MemoryWrites.change(like, after, UpdateOperation.SUPERSEDED, candidate));
            more.addAll(Outdated.mark(like, null, diet.getMemoryId(), MemoryWrites.sourceOf(candidate), at, view,
                MemoryWrites.causeOf(candidate)));
            for (final Consolidator.Change c : more) {
                view.replaceAll(m -> m.getMemoryId().equals(c.after().getMemoryId()) ? c.after() : m);
            }
            changes.addAll(more);
            contradictions.add(MemoryWrites.contradiction(like, diet, 0.0, "diet", at));
            archived.add(MemoryWrites.archivedEvent(like, ArchiveReason.SUPERSEDED, diet.getMemoryId(), at));
            written.add(like.getMemoryId());
        }
        return changes.size() == decision.changes().size() ? decision
            : new Consolidator.Decision(decision.outcome(), changes, contradictions, archived);
    }
}
