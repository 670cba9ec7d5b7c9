package dev.engram.consolidation;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import dev.engram.avro.ContradictionDetected;
import dev.engram.avro.FormerValue;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryUpdated;
import dev.engram.core.MemoryIds;
import dev.engram.core.UserKey;
import dev.engram.core.ValueAliases;
import dev.engram.port.ContradictionJudge;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.VectorIndex;
import dev.engram.scoring.Vectors;

/**
 * The consolidation decision for one memory candidate against the same user's memories: drop,
 * ignore as a redelivery, reinforce, supersede (either way round, by event time), retract, or create.
 * Pure apart from the judge and the index it is given: no clock, no I/O, no Kafka; the processor of
 * {@code ConsolidationTopology} applies the {@link Decision} to its stores and forwards its events.
 *
 * <p>The rules, in order (brief "Consolidation decision", cases 01–04, 10, 11):
 * <ol>
 *   <li><b>Thresholds.</b> importance &lt; {@code memory.min.importance} or confidence &lt;
 *       {@code memory.min.confidence} → {@link Outcome#BELOW_THRESHOLD}, nothing stored.</li>
 *   <li><b>Idempotence.</b> a memory with the candidate's id exists, or a memory with the same key and
 *       value already lists this exact statement (conversation, message indexes, event time) among
 *       its sources → {@link Outcome#DUPLICATE}. Reinforcing a memory that already lists the
 *       candidate's conversation never counts as one more confirmation (a redelivery is not evidence):
 *       it only adds the messages the candidate cites, and is a duplicate when it cites none new.
 *       <b>Two readings of one turn</b> are not one statement: an episode of the user's turn (unkeyed, not a
 *       summary or an exchange) is never a duplicate of, nor folded into (rules 2 and 5), a memory with other words
 *       citing the same message — the LLM's fact beside the offline episodes ({@code llm.extraction.episodes}) keeps
 *       what the model chose of the turn ("Melanie's family has been supportive"), the turn as said keeps the rest
 *       ("… we enjoyed camping in the forest"), which list questions ask for.</li>
 *   <li><b>Deleted.</b> a candidate stating what a memory the user deleted stated, said at or before the deletion,
 *       → {@link Outcome#DELETED_BEFORE}, nothing stored ({@link DeletedStatements}); said after it, it goes on. A fact
 *       of another value, said before a deleted fact of its key began (and before any ACTIVE fact of the key between
 *       them), is history: that fact superseded it in time order, so it is stored ARCHIVED / SUPERSEDED by the deleted
 *       fact's id until it began ({@link Outcome#STORED_AS_SUPERSEDED}, {@link DeletedStatements#laterDeletedFact}); said
 *       after it began and before its deletion, it supersedes it in time order and is created ACTIVE, listing it in
 *       {@code supersedes} ({@link DeletedStatements#withDeletedSuperseded}).</li>
 *   <li><b>Retraction.</b> a negated fact ("I no longer use Jira") archives the ACTIVE memory with the
 *       same key (or the renamed entity of rule 4) and value (reason NEGATED, {@code validTo} = the candidate's event
 *       time) when it was said at or after that memory's {@code validFrom}; otherwise nothing changes.</li>
 *   <li><b>Same key.</b> a fact whose key has an ACTIVE memory: the same value (normalized, and the
 *       same numbers when both contents carry numbers; another name of it, {@link dev.engram.core.ValueAliases}: "NYC",
 *       "纽约"; a place slot's current value mistyped, {@link Facts#mistypedPlace}) → reinforce; otherwise supersede. A fact corrected in place
 *       through the API is reinforced, not superseded, by a statement dated before the correction of the value it held
 *       then ({@link Facts#formerValueAt}, its first value for a statement dated before the fact began: "Greetings from
 *       Graz, I live in Graz" dated before a PUT from Graz to Vienna
 *       is evidence of the fact's history, as a replay, ordering candidates and commands by time, applies it before the
 *       correction; the value stays Vienna). <b>A renamed entity</b>: a
 *       key naming a person or pet by name ({@link Facts#entitySlot}: {@code pet:}, {@code friend:},
 *       {@code family:<relation>:}) that has no ACTIVE memory, whose value ({@link MemoryIds#fold}) is the value of an
 *       ACTIVE fact of the same slot, is about that fact: a correction changed its value but not its key
 *       ({@code pet:rex} = Max), so "I have a dog named Max" ({@code pet:max}) reinforces it instead of making a second
 *       fact about one dog. Only the slot and the name decide (a name is one entity within a user's slot, as the
 *       keys already read it); another slot ({@code friend:max} beside {@code pet:rex} = Max) is another entity.
 *       <b>A renaming statement</b> ("my cat's name is Mia, not Luna", "we renamed our dog Max"; {@link Renames}) supersedes
 *       the ACTIVE fact of the same slot it names as replaced, the new fact keyed by its new name.</li>
 *   <li><b>Similarity.</b> the best ACTIVE hit of the user's index that may be compared (a fact
 *       is never merged into a fact of another key): cosine &gt; {@code dedup.reinforce.threshold}
 *       → reinforce; from {@code dedup.judge.threshold} up to it → the {@link ContradictionJudge}
 *       (SAME → reinforce, CONTRADICTS → supersede, COMPATIBLE → create); else create. A fact is
 *       never folded into an unkeyed (episodic) memory: that path creates the fact instead. Two
 *       statements that name different identifiers ({@link Facts#sameIdentifiers}: a number, a code, a
 *       name with a number) are never reinforced on similarity alone: from {@code dedup.judge.threshold}
 *       up such a hit goes to the judge whatever the similarity, SAME reinforces, CONTRADICTS supersedes,
 *       COMPATIBLE passes it over (the next hit is tried).</li>
 *   <li><b>Revival.</b> where the steps above would create a memory, a memory ARCHIVED as STALE or EXPIRED
 *       that the candidate restates is brought back instead of copied: the same key and value for a
 *       fact, else an unkeyed memory of the same model and identifiers with similarity ≥
 *       {@code lifecycle.merge.threshold} (the most similar one; were both ACTIVE, the daily pass would merge
 *       them into one) or above {@code dedup.reinforce.threshold}, whichever is lower. It becomes ACTIVE again (archive
 *       reason cleared) and is reinforced as in step 4: event REINFORCED, its {@code before} the archived
 *       state, so its history reads CREATED, ARCHIVED, REINFORCED ({@link Outcome#REVIVED}). A memory
 *       archived for a reason about its truth (SUPERSEDED, NEGATED, MERGED) is never revived ({@link Revivals}).</li>
 *   <li><b>Confirmation.</b> an episode of the user's own words that names the value of an ACTIVE fact also
 *       reinforces that fact ({@link Facts#restates}), so a restatement in other words keeps it confirmed. An
 *       episode whose message already made that fact (the turn's fact and its episode: "My dog Olaf loves the
 *       beach") and that would only reinforce or revive an episode saying the same is not written at all
 *       ({@link Outcome#RESTATED_FACT}): the restatement is one piece of evidence, counted once, on the fact; a
 *       new episode (a new thing said beside the fact) is still created.</li>
 *   <li><b>Ending.</b> an episode of the user's own words that says the value of an ACTIVE fact ended ("Marco and I
 *       broke up", "Biscuit died", "I left IBM"; {@link Outdated#ends}) retracts that fact as a negation does.</li>
 *   <li><b>Self-correction.</b> an episode of the user's own words that corrects the value of an ACTIVE fact of a
 *       single-valued slot ("I meant Lisbon, not Lisbn", "Sorry, I meant Lisbon" after "Lisbn"; {@link SelfCorrections})
 *       corrects that fact in place, as a correction through the API does (before rule 7, which would read the old
 *       value named as a restatement).</li>
 *   <li><b>Diet.</b> a diet or a food given up ("I'm vegetarian now", "I no longer eat meat"), written ACTIVE, archives
 *       the user's food likes said before it that it rules out ("Likes steak"; {@link DietChanges}, {@link FoodGroups}),
 *       as SUPERSEDED by the diet's memory.</li>
 * </ol>
 * A superseded, corrected, deleted or negated fact marks the memories stating its old value ({@link Outdated}); a
 * memory so marked is never the hit a candidate reinforces or is judged against.
 * A conversation summary ({@link ExtractedMemory#isSummary}) skips steps 3–6: it is created as it
 * is, and it is never the hit another candidate reinforces or is judged against (two sessions'
 * summaries read alike and embed above the reinforce threshold, yet are different episodes). Nor is an
 * observation ({@link Observations}): it restates the user's statements, which are the targets themselves.
 *
 * <p><b>Supersede</b> decides by event time, not processing order: the statement with the later
 * {@code validFrom} stays ACTIVE (ties: the greater memory id wins). When the candidate wins, the old
 * memory becomes ARCHIVED / SUPERSEDED with {@code supersededBy} and {@code validTo} = the new
 * {@code validFrom}, the new memory lists it in {@code supersedes}; events SUPERSEDED then CREATED,
 * a ContradictionDetected and a MemoryArchived. When the candidate is older (it arrived late), it
 * takes its place in the key's history ({@link Timeline}): a restatement of the archived value in force at its time
 * reinforces that memory; another value dated inside an archived value's interval ends that one at its time and is
 * stored ARCHIVED / SUPERSEDED until the interval's end; otherwise it is stored ARCHIVED / SUPERSEDED by the current
 * memory, valid until the key's next value after it; events SUPERSEDED, a ContradictionDetected and a MemoryArchived;
 * the current memory is unchanged.
 *
 * <p>Every time field comes from the candidate's {@code eventTime}; ids from {@link MemoryIds}. So
 * the same candidates in the same order give byte-identical memories and events.
 */
public final class Consolidator {

    /** Hits fetched from the index for the similarity step. */
    static final int SEARCH_LIMIT = 10;

    /** What one candidate did. */
    public enum Outcome {
        /** a new ACTIVE memory */
        CREATED,
        /** an ACTIVE memory gained one more piece of evidence */
        REINFORCED,
        /** a memory archived as STALE or EXPIRED was restated: ACTIVE again, reinforced */
        REVIVED,
        /** the candidate became ACTIVE and archived the memory it contradicts */
        SUPERSEDED,
        /** the candidate is older than the memory it contradicts: stored as ARCHIVED */
        STORED_AS_SUPERSEDED,
        /** a negated fact archived the memory it retracts */
        RETRACTED,
        /** a negated fact found no ACTIVE memory to retract: nothing changed */
        NOTHING_TO_RETRACT,
        /** a redelivery, or a restatement of messages the memory already cites: nothing changed */
        DUPLICATE,
        /**
         * an episode of the user's that would reinforce (or revive) an episode restates a fact this same message already
         * reinforced or created: the fact holds the evidence, nothing changed (rule 7)
         */
        RESTATED_FACT,
        /** importance or confidence below the configured minimum: not stored */
        BELOW_THRESHOLD,
        /** it states what the user deleted and was said at or before the deletion: not stored ({@link DeletedStatements}) */
        DELETED_BEFORE
    }

    /**
     * One memory write.
     *
     * @param before the memory before, or null when it is new
     * @param event the {@code memory-updated} event; {@code event.getMemory()} is the state after
     */
    public record Change(Memory before, MemoryUpdated event) {
        /** @return the state after the change */
        public Memory after() {
            return event.getMemory();
        }
    }

    /**
     * The result of {@link #decide}.
     *
     * @param outcome what happened
     * @param changes memory writes in order, each with its {@code memory-updated} event
     * @param contradictions events for {@code memory-contradictions}
     * @param archived events for {@code memory-archived}
     */
    public record Decision(Outcome outcome, List<Change> changes, List<ContradictionDetected> contradictions,
                           List<MemoryArchived> archived) {

        /** Copies the lists. */
        public Decision {
            changes = List.copyOf(changes);
            contradictions = List.copyOf(contradictions);
            archived = List.copyOf(archived);
        }

        static Decision nothing(final Outcome outcome) {
            return new Decision(outcome, List.of(), List.of(), List.of());
        }
    }

    private final ConsolidatorSettings settings;
    private final ContradictionJudge judge;

    /**
     * @param settings thresholds
     * @param judge asked for hits in the judge band
     */
    public Consolidator(final ConsolidatorSettings settings, final ContradictionJudge judge) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.judge = Objects.requireNonNull(judge, "judge");
    }

    /**
     * @return the embedding model of mostly-Han text ({@code embedding.model.han}), or null when there is none; a
     *     candidate of that model is compared only with memories of that model, every other one with the rest
     */
    public String hanModel() {
        return settings.hanModel();
    }

    /**
     * Checks a candidate before any decision. An invalid candidate goes to the dead-letter topic.
     *
     * @param recordKey the record key (must be the candidate's {@code tenant/user})
     * @param candidate the value, or null for a tombstone
     * @return the reason it is invalid, or empty when valid
     */
    public Optional<String> validate(final String recordKey, final MemoryCandidate candidate) {
        return CandidateChecks.validate(settings, recordKey, candidate);
    }

    /**
     * Decides what one valid candidate does.
     *
     * @param candidate a candidate that passed {@link #validate}
     * @param userMemories every memory of the candidate's user, every status (the store's view,
     *     including what earlier candidates wrote)
     * @param index the user-scoped vector index over the same memories
     * @return the decision; never null
     */
    public Decision decide(final MemoryCandidate candidate, final List<Memory> userMemories, final VectorIndex index) {
        final Decision decision = decideOwn(candidate, userMemories, index);
        return switch (decision.outcome()) {
            case CREATED, REINFORCED, REVIVED -> DietChanges.withRuledOutLikes(candidate, Confirmations.withConfirmations(
                candidate, DeletedStatements.withDeletedSuperseded(candidate, decision, userMemories), userMemories), userMemories);
            case SUPERSEDED -> DietChanges.withRuledOutLikes(candidate, decision, userMemories);
            default -> decision;
        };
    }

    private Decision decideOwn(final MemoryCandidate candidate, final List<Memory> userMemories, final VectorIndex index) {
        if (candidate.getImportance() < settings.minImportance() || candidate.getConfidence() < settings.minConfidence()) {
            return Decision.nothing(Outcome.BELOW_THRESHOLD);
        }
        final float[] candidateVector = Vectors.toArray(candidate.getEmbedding());
        if (UserFacts.alreadySeen(candidate, userMemories, m -> otherReadingOfTurn(candidate, candidateVector, m))) {
            return Decision.nothing(Outcome.DUPLICATE);
        }
        if (DeletedStatements.deletedAfter(candidate, userMemories) != null) {
            return Decision.nothing(Outcome.DELETED_BEFORE); // older data of a deleted statement, not said again
        }
        if (ExtractedMemory.isSummary(candidate.getType(), candidate.getDisplayName())) {
            return MemoryWrites.create(candidate, userMemories);
        }
        final float[] vector = candidateVector;
        if (candidate.getKey() != null && candidate.getNegated()) {
            return retract(candidate, userMemories, vector);
        }
        final Renames.Rename rename = candidate.getKey() == null ? null : Renames.of(candidate, userMemories);
        if (rename != null) {
            return rename.renamed() == null || UserFacts.factOf(userMemories, rename.candidate().getKey(), candidate.getValue()) != null
                ? decideOwn(rename.candidate(), userMemories, index) // renames nothing (or the new name is known): a plain fact
                : MemoryWrites.supersede(rename.renamed(), rename.candidate(), similarity(candidate, vector, rename.renamed()),
                    "rename", userMemories);
        }
        if (candidate.getKey() != null) {
            final Memory current = UserFacts.factOf(userMemories, candidate.getKey(), candidate.getValue());
            final Memory deleted = DeletedStatements.laterDeletedFact(candidate, userMemories);
            if (deleted != null && (current == null || !current.getValidFrom().isAfter(candidate.getEventTime())
                || !current.getValidFrom().isBefore(deleted.getValidFrom()))
                && (current == null || !Facts.sameValue(current.getValue(), current.getContent(), candidate.getValue(),
                    candidate.getContent()))) {
                // said before a value of its key the user deleted began: that value superseded it, as a replay applies it
                return MemoryWrites.supersededByDeleted(candidate, deleted);
            }
            if (current != null) {
                if (Facts.sameValue(current.getValue(), current.getContent(), candidate.getValue(), candidate.getContent())
                    || Facts.mistypedPlace(candidate.getKey(), current.getValue(), candidate.getValue())) {
                    return MemoryWrites.reinforce(current, candidate);
                }
                // said before the fact began: of the value it held first (a late upload of the fact's own history)
                final FormerValue held = Facts.formerValueAt(current, MemoryWrites.later(candidate.getEventTime(),
                    current.getValidFrom()));
                if (held != null && Facts.sameValue(held.getValue(), held.getContent(), candidate.getValue(), candidate.getContent())) {
                    // said before a correction, of the value the fact held then: history, as a replay applies it
                    return MemoryWrites.reinforce(current, candidate);
                }
                return MemoryWrites.supersede(current, candidate, similarity(candidate, vector, current), "same-key", userMemories);
            }
        }
        final UserKey user = new UserKey(candidate.getTenantId(), candidate.getUserId());
        for (final VectorIndex.Hit hit : index.search(new VectorIndex.Query(user, vector, SEARCH_LIMIT, true,
                candidate.getEmbeddingModel(), leastDecidingCosine(candidate.getEmbeddingModel())))) {
            final Memory existing = hit.memory();
            if (ExtractedMemory.isSummary(existing.getType(), existing.getDisplayName())
                || ExtractedMemory.isObservation(existing.getType(), existing.getDisplayName())) {
                continue; // a conversation summary or an observation (derived) is never a dedup target
            }
            if (Outdated.isOutdated(existing)) {
                continue; // it states what stopped being true: a restatement is new evidence, not this memory's
            }
            if (candidate.getKey() != null && existing.getKey() != null && !candidate.getKey().equals(existing.getKey())) {
                continue; // another fact slot: never merged, never superseded
            }
            if (otherReadingOfTurn(candidate, vector, existing)) {
                continue; // the turn as said beside another extractor's reading of it: never folded into that reading
            }
            final boolean factOntoUnkeyed = candidate.getKey() != null && existing.getKey() == null;
            final double similarity = settings.scale().similarity(candidate.getEmbeddingModel(), hit.similarity());
            if (similarity >= settings.judgeThreshold()
                && !Facts.sameIdentifiers(existing.getContent(), candidate.getContent())) {
                // "flight LH 441" vs "flight LH 414": close embeddings, different facts. Never reinforced
                // on similarity alone: only the judge, which reads both statements, may call them the same
                // (an LLM reads "the 3rd" and "March 3" as one date; the rule judge says SAME only for one
                // key and value) or contradicting.
                switch (judge.judge(existing, candidate, similarity)) {
                    case SAME:
                        if (!factOntoUnkeyed) {
                            return MemoryWrites.reinforce(existing, candidate);
                        }
                        continue;
                    case CONTRADICTS:
                        if (!factOntoUnkeyed) {
                            return MemoryWrites.supersede(existing, candidate, similarity, "judge", userMemories);
                        }
                        continue;
                    default:
                        continue;
                }
            }
            if (similarity > settings.reinforceThreshold()) {
                return factOntoUnkeyed ? createOrRevive(candidate, userMemories, vector) : MemoryWrites.reinforce(existing, candidate);
            }
            if (similarity >= settings.judgeThreshold()) {
                switch (judge.judge(existing, candidate, similarity)) {
                    case SAME:
                        return factOntoUnkeyed ? createOrRevive(candidate, userMemories, vector) : MemoryWrites.reinforce(existing, candidate);
                    case CONTRADICTS:
                        return MemoryWrites.supersede(existing, candidate, similarity, "judge", userMemories);
                    default:
                        return createOrRevive(candidate, userMemories, vector);
                }
            }
            break; // hits come by descending similarity: nothing further is close enough
        }
        return createOrRevive(candidate, userMemories, vector);
    }

    /**
     * The least cosine of a hit the similarity step reads: it stops at the first hit (not skipped for its kind) whose
     * scaled similarity is below both the judge threshold and the reinforce threshold, so a hit below this cosine (less
     * a margin for rounding) decides nothing, and the index may leave it out ({@link VectorIndex.Query#minCosine()}).
     */
    private double leastDecidingCosine(final String model) {
        final double floor = settings.scale().floor(model);
        final double threshold = Math.min(settings.judgeThreshold(), settings.reinforceThreshold());
        return floor < 1 ? floor + threshold * (1 - floor) - 1e-9 : Double.NEGATIVE_INFINITY;
    }

    /** {@link UserFacts#otherReadingOfTurn} with this consolidator's similarity and reinforce threshold. */
    private boolean otherReadingOfTurn(final MemoryCandidate candidate, final float[] vector, final Memory existing) {
        return UserFacts.otherReadingOfTurn(candidate, existing, m -> similarity(candidate, vector, m), settings.reinforceThreshold());
    }

    /** The archived memory the candidate restates back to ACTIVE (rule 6, {@link Revivals}), else a new memory. */
    private Decision createOrRevive(final MemoryCandidate candidate, final List<Memory> userMemories, final float[] vector) {
        return Revivals.createOrRevive(candidate, userMemories, m -> similarity(candidate, vector, m), settings.reviveThreshold());
    }

    /** A negated fact archives the ACTIVE memory stating that key and value, if said after it. */
    private Decision retract(final MemoryCandidate candidate, final List<Memory> userMemories, final float[] vector) {
        final Memory current = UserFacts.factOf(userMemories, candidate.getKey(), candidate.getValue());
        if (current == null || candidate.getEventTime().isBefore(MemoryWrites.lastStated(current))
            || !ValueAliases.fold(current.getValue()).equals(ValueAliases.fold(candidate.getValue()))) {
            return Decision.nothing(Outcome.NOTHING_TO_RETRACT);
        }
        return MemoryWrites.retract(current, candidate, similarity(candidate, vector, current), userMemories);
    }

    /** The candidate's similarity to a memory; 0 when their vectors are of two models (never compared). */
    private double similarity(final MemoryCandidate candidate, final float[] vector, final Memory memory) {
        final float[] other = Vectors.toArray(memory.getEmbedding());
        return other.length == vector.length && candidate.getEmbeddingModel().equals(memory.getEmbeddingModel())
            ? settings.scale().similarity(memory.getEmbeddingModel(), Vectors.cosine(vector, other)) : 0.0;
    }
}
