package dev.engram.consolidation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.ContradictionDetected;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.core.MemoryIds;
import dev.engram.core.UserKey;
import dev.engram.port.ContradictionJudge;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.VectorIndex;
import dev.engram.scoring.SimilarityScale;
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
 *       candidate's conversation is also a duplicate: a redelivery never counts as evidence.</li>
 *   <li><b>Retraction.</b> a negated fact ("I no longer use Jira") archives the ACTIVE memory with the
 *       same key and value (reason NEGATED, {@code validTo} = the candidate's event time) when it
 *       was said at or after that memory's {@code validFrom}; otherwise nothing changes.</li>
 *   <li><b>Same key.</b> a fact whose key has an ACTIVE memory: the same value (normalized, and the
 *       same numbers when both contents carry numbers) → reinforce; otherwise supersede.</li>
 *   <li><b>Similarity.</b> the best ACTIVE hit of the user's index that may be compared (a fact
 *       is never merged into a fact of another key): cosine &gt; {@code dedup.reinforce.threshold}
 *       → reinforce; from {@code dedup.judge.threshold} up to it → the {@link ContradictionJudge}
 *       (SAME → reinforce, CONTRADICTS → supersede, COMPATIBLE → create); else create. A fact is
 *       never folded into an unkeyed (episodic) memory: that path creates the fact instead. Two
 *       statements that name different identifiers ({@link Facts#sameIdentifiers}: a number, a code, a
 *       name with a number) are never reinforced or judged SAME on similarity: such a hit is passed over
 *       unless the judge finds a contradiction (then it supersedes).</li>
 *   <li><b>Revival.</b> where the steps above would create a memory, a memory ARCHIVED as STALE or EXPIRED
 *       that the candidate restates is brought back instead of copied: the same key and value for a
 *       fact, else an unkeyed memory of the same model and identifiers with similarity ≥
 *       {@code lifecycle.merge.threshold} (the most similar one; were both ACTIVE, the daily pass would merge
 *       them into one) or above {@code dedup.reinforce.threshold}, whichever is lower. It becomes ACTIVE again (archive
 *       reason cleared) and is reinforced as in step 4: event REINFORCED, its {@code before} the archived
 *       state, so its history reads CREATED, ARCHIVED, REINFORCED ({@link Outcome#REVIVED}). A memory
 *       archived for a reason about its truth (SUPERSEDED, NEGATED, MERGED) is never revived.</li>
 * </ol>
 * A conversation summary ({@link ExtractedMemory#isSummary}) skips steps 3–6: it is created as it
 * is, and it is never the hit another candidate reinforces or is judged against (two sessions'
 * summaries read alike and embed above the reinforce threshold, yet are different episodes).
 *
 * <p><b>Supersede</b> decides by event time, not processing order: the statement with the later
 * {@code validFrom} stays ACTIVE (ties: the greater memory id wins). When the candidate wins, the old
 * memory becomes ARCHIVED / SUPERSEDED with {@code supersededBy} and {@code validTo} = the new
 * {@code validFrom}, the new memory lists it in {@code supersedes}; events SUPERSEDED then CREATED,
 * a ContradictionDetected and a MemoryArchived. When the candidate is older (it arrived late), it
 * is stored directly as ARCHIVED / SUPERSEDED by the current memory; events SUPERSEDED, a
 * ContradictionDetected and a MemoryArchived; the current memory is unchanged.
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
        /** a redelivery or restatement from a conversation already counted: nothing changed */
        DUPLICATE,
        /** importance or confidence below the configured minimum: not stored */
        BELOW_THRESHOLD
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

    /**
     * The numbers the decision depends on.
     *
     * @param minImportance candidates below it are dropped (0..1)
     * @param minConfidence candidates below it are dropped (0..1)
     * @param reinforceThreshold similarity ({@code scale}) above which a hit is reinforced
     * @param judgeThreshold similarity from which (up to the reinforce threshold) the judge is asked
     * @param reviveThreshold similarity from which an unkeyed memory archived as STALE or EXPIRED is revived by
     *     a restatement ({@code lifecycle.merge.threshold}: what the daily pass would merge were both active)
     * @param dimensions expected embedding size of the default model
     * @param hanModel the model of mostly-Han text ({@code embedding.model.han}), or null when there is none
     * @param hanDimensions expected embedding size of a candidate of {@code hanModel}
     * @param maxContentChars longest accepted content
     * @param scale puts each model's cosines on the thresholds' scale ({@code embedding.similarity.floors})
     */
    public record Settings(double minImportance, double minConfidence, double reinforceThreshold,
                           double judgeThreshold, double reviveThreshold, int dimensions, String hanModel, int hanDimensions,
                           int maxContentChars, SimilarityScale scale) {

        /**
         * @param config {@code memory.min.importance}, {@code memory.min.confidence},
         *     {@code dedup.reinforce.threshold}, {@code dedup.judge.threshold}, {@code lifecycle.merge.threshold},
         *     {@code embedding.dimensions}, {@code embedding.model.han}, {@code embedding.han.dimensions},
         *     {@code input.max.message.chars}, {@code embedding.similarity.floors}
         * @return the settings
         */
        public static Settings from(final EngramConfig config) {
            return new Settings(config.getDouble(EngramConfig.MIN_IMPORTANCE),
                config.getDouble(EngramConfig.MIN_CONFIDENCE),
                config.getDouble(EngramConfig.REINFORCE_THRESHOLD),
                config.getDouble(EngramConfig.JUDGE_THRESHOLD),
                Math.min(config.getDouble(EngramConfig.MERGE_THRESHOLD), config.getDouble(EngramConfig.REINFORCE_THRESHOLD)),
                config.getInt(EngramConfig.EMBEDDING_DIMENSIONS),
                hanModel(config),
                config.getInt(EngramConfig.EMBEDDING_HAN_DIMENSIONS),
                config.getInt(EngramConfig.MAX_MESSAGE_CHARS),
                SimilarityScale.fromConfig(config));
        }

        private static String hanModel(final EngramConfig config) {
            final String han = config.getString(EngramConfig.EMBEDDING_MODEL_HAN);
            return han == null || han.isBlank() || han.equals(config.getString(EngramConfig.EMBEDDING_MODEL)) ? null : han;
        }
    }

    private final Settings settings;
    private final ContradictionJudge judge;

    /**
     * @param settings thresholds
     * @param judge asked for hits in the judge band
     */
    /**
     * @return the embedding model of mostly-Han text ({@code embedding.model.han}), or null when there is none; a
     *     candidate of that model is compared only with memories of that model, every other one with the rest
     */
    public String hanModel() {
        return settings.hanModel();
    }

    public Consolidator(final Settings settings, final ContradictionJudge judge) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.judge = Objects.requireNonNull(judge, "judge");
    }

    /**
     * Checks a candidate before any decision. An invalid candidate goes to the dead-letter topic.
     *
     * @param recordKey the record key (must be the candidate's {@code tenant/user})
     * @param candidate the value, or null for a tombstone
     * @return the reason it is invalid, or empty when valid
     */
    public Optional<String> validate(final String recordKey, final MemoryCandidate candidate) {
        if (candidate == null) {
            return Optional.of("empty value: a memory candidate is required");
        }
        final UserKey user;
        try {
            user = UserKey.parse(recordKey);
        } catch (IllegalArgumentException | NullPointerException e) {
            return Optional.of("invalid user key: " + e.getMessage());
        }
        if (!user.tenantId().equals(candidate.getTenantId()) || !user.userId().equals(candidate.getUserId())) {
            return Optional.of("record key does not match the candidate's tenantId/userId");
        }
        if (isBlank(candidate.getCandidateId()) || isBlank(candidate.getConversationId())) {
            return Optional.of("candidateId and conversationId are required");
        }
        if (isBlank(candidate.getContent())) {
            return Optional.of("content is missing or blank");
        }
        if (candidate.getContent().length() > settings.maxContentChars()) {
            return Optional.of("content longer than " + settings.maxContentChars() + " characters");
        }
        if ((candidate.getKey() == null) != (candidate.getValue() == null)
            || candidate.getKey() != null && (isBlank(candidate.getKey()) || isBlank(candidate.getValue()))) {
            return Optional.of("key and value go together and must not be blank");
        }
        if (!inUnitRange(candidate.getImportance()) || !inUnitRange(candidate.getConfidence())) {
            return Optional.of("importance and confidence must be numbers within 0..1");
        }
        final List<Float> embedding = candidate.getEmbedding();
        final int dimensions = candidate.getEmbeddingModel().equals(settings.hanModel())
            ? settings.hanDimensions() : settings.dimensions();
        if (embedding.size() != dimensions) {
            return Optional.of("embedding has " + embedding.size() + " dimensions, expected " + dimensions);
        }
        double norm = 0;
        for (final Float v : embedding) {
            if (v == null || !Float.isFinite(v)) {
                return Optional.of("embedding contains a NaN or infinite value");
            }
            norm += (double) v * v;
        }
        if (norm == 0) {
            return Optional.of("embedding is the zero vector");
        }
        for (final Integer index : candidate.getSourceMessageIndexes()) {
            if (index == null || index < 0) {
                return Optional.of("sourceMessageIndexes must be non-negative");
            }
        }
        return Optional.empty();
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
        if (candidate.getImportance() < settings.minImportance() || candidate.getConfidence() < settings.minConfidence()) {
            return Decision.nothing(Outcome.BELOW_THRESHOLD);
        }
        if (alreadySeen(candidate, userMemories)) {
            return Decision.nothing(Outcome.DUPLICATE);
        }
        if (ExtractedMemory.isSummary(candidate.getType(), candidate.getDisplayName())) {
            return create(candidate);
        }
        final float[] vector = Vectors.toArray(candidate.getEmbedding());
        if (candidate.getKey() != null && candidate.getNegated()) {
            return retract(candidate, userMemories, vector);
        }
        if (candidate.getKey() != null) {
            final Memory current = currentFact(userMemories, candidate.getKey());
            if (current != null) {
                if (Facts.sameValue(current.getValue(), current.getContent(), candidate.getValue(), candidate.getContent())) {
                    return reinforce(current, candidate);
                }
                return supersede(current, candidate, similarity(candidate, vector, current), "same-key");
            }
        }
        final UserKey user = new UserKey(candidate.getTenantId(), candidate.getUserId());
        for (final VectorIndex.Hit hit : index.search(new VectorIndex.Query(user, vector, SEARCH_LIMIT, true,
                candidate.getEmbeddingModel()))) {
            final Memory existing = hit.memory();
            if (ExtractedMemory.isSummary(existing.getType(), existing.getDisplayName())) {
                continue; // a conversation summary is never a dedup target
            }
            if (candidate.getKey() != null && existing.getKey() != null && !candidate.getKey().equals(existing.getKey())) {
                continue; // another fact slot: never merged, never superseded
            }
            final boolean factOntoUnkeyed = candidate.getKey() != null && existing.getKey() == null;
            final double similarity = settings.scale().similarity(candidate.getEmbeddingModel(), hit.similarity());
            if (similarity >= settings.judgeThreshold()
                && !Facts.sameIdentifiers(existing.getContent(), candidate.getContent())) {
                // "flight LH 441" vs "flight LH 414": close embeddings, different facts. Never reinforced
                // or judged the same on similarity; only a contradiction (the judge) may supersede.
                if (judge.judge(existing, candidate, similarity) == ContradictionJudge.Verdict.CONTRADICTS
                    && !factOntoUnkeyed) {
                    return supersede(existing, candidate, similarity, "judge");
                }
                continue;
            }
            if (similarity > settings.reinforceThreshold()) {
                return factOntoUnkeyed ? createOrRevive(candidate, userMemories, vector) : reinforce(existing, candidate);
            }
            if (similarity >= settings.judgeThreshold()) {
                switch (judge.judge(existing, candidate, similarity)) {
                    case SAME:
                        return factOntoUnkeyed ? createOrRevive(candidate, userMemories, vector) : reinforce(existing, candidate);
                    case CONTRADICTS:
                        return supersede(existing, candidate, similarity, "judge");
                    default:
                        return createOrRevive(candidate, userMemories, vector);
                }
            }
            break; // hits come by descending similarity: nothing further is close enough
        }
        return createOrRevive(candidate, userMemories, vector);
    }

    /** The archived memory the candidate restates back to ACTIVE (rule 6), else a new memory. */
    private Decision createOrRevive(final MemoryCandidate candidate, final List<Memory> userMemories, final float[] vector) {
        Memory best = null;
        double bestSimilarity = Double.NEGATIVE_INFINITY;
        for (final Memory memory : userMemories) {
            if (memory.getStatus() != MemoryStatus.ARCHIVED || memory.getArchiveReason() != ArchiveReason.STALE
                && memory.getArchiveReason() != ArchiveReason.EXPIRED
                || ExtractedMemory.isSummary(memory.getType(), memory.getDisplayName())) {
                continue;
            }
            final double similarity = similarity(candidate, vector, memory);
            final boolean restated = candidate.getKey() != null
                ? candidate.getKey().equals(memory.getKey())
                    && Facts.sameValue(memory.getValue(), memory.getContent(), candidate.getValue(), candidate.getContent())
                : memory.getKey() == null && candidate.getEmbeddingModel().equals(memory.getEmbeddingModel())
                    && similarity >= settings.reviveThreshold()
                    && Facts.sameIdentifiers(memory.getContent(), candidate.getContent());
            if (restated && (similarity > bestSimilarity
                || similarity == bestSimilarity && memory.getMemoryId().compareTo(best.getMemoryId()) < 0)) {
                best = memory;
                bestSimilarity = similarity;
            }
        }
        if (best == null) {
            return create(candidate);
        }
        final Decision reinforced = reinforce(Memory.newBuilder(best).setStatus(MemoryStatus.ACTIVE)
            .setArchiveReason(null).setSupersededBy(null).build(), candidate);
        if (reinforced.outcome() != Outcome.REINFORCED) {
            return reinforced; // its conversation already counted: a redelivery
        }
        final Change change = reinforced.changes().get(0);
        return new Decision(Outcome.REVIVED, List.of(new Change(best, change.event())), List.of(), List.of());
    }

    /** A new ACTIVE memory from the candidate. */
    private Decision create(final MemoryCandidate candidate) {
        final Memory created = newMemory(candidate, MemoryStatus.ACTIVE).build();
        return new Decision(Outcome.CREATED, List.of(change(null, created, UpdateOperation.CREATED, candidate)),
            List.of(), List.of());
    }

    /** One more piece of evidence for {@code target}, unless its conversation already counted. */
    private Decision reinforce(final Memory target, final MemoryCandidate candidate) {
        for (final SourceRef source : target.getSources()) {
            if (source.getConversationId().equals(candidate.getConversationId())) {
                return Decision.nothing(Outcome.DUPLICATE);
            }
        }
        final Instant at = candidate.getEventTime();
        final List<SourceRef> sources = new ArrayList<>(target.getSources());
        sources.add(sourceOf(candidate));
        final Memory after = Memory.newBuilder(target)
            .setReinforcementCount(target.getReinforcementCount() + 1)
            .setSources(sources)
            .setLastConfirmedAt(later(target.getLastConfirmedAt(), at))
            .setUpdatedAt(later(target.getUpdatedAt(), at))
            .setConfidence(Math.max(target.getConfidence(), candidate.getConfidence()))
            .setImportance(Math.max(target.getImportance(), candidate.getImportance()))
            .build();
        return new Decision(Outcome.REINFORCED, List.of(change(target, after, UpdateOperation.REINFORCED, candidate)),
            List.of(), List.of());
    }

    /** Contradiction between {@code existing} and the candidate: the later statement stays ACTIVE. */
    private Decision supersede(final Memory existing, final MemoryCandidate candidate, final double similarity,
                               final String reason) {
        final Instant at = candidate.getEventTime();
        final int order = at.compareTo(existing.getValidFrom());
        final boolean candidateWins = order > 0 || order == 0 && candidate.getCandidateId().compareTo(existing.getMemoryId()) > 0;
        if (candidateWins) {
            final Memory created = newMemory(candidate, MemoryStatus.ACTIVE)
                .setSupersedes(List.of(existing.getMemoryId())).build();
            final Memory archived = Memory.newBuilder(existing)
                .setStatus(MemoryStatus.ARCHIVED).setArchiveReason(ArchiveReason.SUPERSEDED)
                .setSupersededBy(created.getMemoryId()).setValidTo(created.getValidFrom())
                .setUpdatedAt(later(existing.getUpdatedAt(), at)).build();
            return new Decision(Outcome.SUPERSEDED,
                List.of(change(existing, archived, UpdateOperation.SUPERSEDED, candidate),
                    change(null, created, UpdateOperation.CREATED, candidate)),
                List.of(contradiction(existing, created, similarity, reason, at)),
                List.of(archivedEvent(existing, ArchiveReason.SUPERSEDED, created.getMemoryId(), at)));
        }
        final Memory late = newMemory(candidate, MemoryStatus.ARCHIVED)
            .setArchiveReason(ArchiveReason.SUPERSEDED).setSupersededBy(existing.getMemoryId())
            .setValidTo(existing.getValidFrom()).build();
        return new Decision(Outcome.STORED_AS_SUPERSEDED,
            List.of(change(null, late, UpdateOperation.SUPERSEDED, candidate)),
            List.of(contradiction(late, existing, similarity, reason, at)),
            List.of(archivedEvent(late, ArchiveReason.SUPERSEDED, existing.getMemoryId(), at)));
    }

    /** A negated fact archives the ACTIVE memory stating that key and value, if said after it. */
    private Decision retract(final MemoryCandidate candidate, final List<Memory> userMemories, final float[] vector) {
        final Memory current = currentFact(userMemories, candidate.getKey());
        final Instant at = candidate.getEventTime();
        if (current == null || at.isBefore(current.getValidFrom())
            || !MemoryIds.normalize(current.getValue()).equals(MemoryIds.normalize(candidate.getValue()))) {
            return Decision.nothing(Outcome.NOTHING_TO_RETRACT);
        }
        final Memory archived = Memory.newBuilder(current)
            .setStatus(MemoryStatus.ARCHIVED).setArchiveReason(ArchiveReason.NEGATED)
            .setValidTo(at).setUpdatedAt(later(current.getUpdatedAt(), at)).build();
        final ContradictionDetected contradiction = ContradictionDetected.newBuilder()
            .setTenantId(candidate.getTenantId()).setUserId(candidate.getUserId())
            .setOldMemoryId(current.getMemoryId()).setNewMemoryId(candidate.getCandidateId())
            .setKey(current.getKey()).setOldValue(current.getValue()).setNewValue(null)
            .setSimilarity(similarity(candidate, vector, current)).setReason("negation").setDetectedAt(at).build();
        return new Decision(Outcome.RETRACTED,
            List.of(change(current, archived, UpdateOperation.ARCHIVED, candidate)),
            List.of(contradiction),
            List.of(archivedEvent(current, ArchiveReason.NEGATED, null, at)));
    }

    /**
     * @return true when the candidate's id is a memory, or a memory of the same key and value lists
     *     this exact statement among its sources
     */
    private static boolean alreadySeen(final MemoryCandidate candidate, final List<Memory> userMemories) {
        final String value = MemoryIds.normalize(candidate.getValue());
        for (final Memory memory : userMemories) {
            if (memory.getMemoryId().equals(candidate.getCandidateId())) {
                return true;
            }
            if (!Objects.equals(memory.getKey(), candidate.getKey()) || !MemoryIds.normalize(memory.getValue()).equals(value)) {
                continue;
            }
            for (final SourceRef source : memory.getSources()) {
                if (source.getConversationId().equals(candidate.getConversationId())
                    && source.getObservedAt().equals(candidate.getEventTime())
                    && source.getMessageIndexes().equals(candidate.getSourceMessageIndexes())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * @return the ACTIVE memory holding the key (the latest validFrom, then the greatest id, should
     *     there ever be more than one), or null
     */
    private static Memory currentFact(final List<Memory> userMemories, final String key) {
        Memory current = null;
        for (final Memory memory : userMemories) {
            if (memory.getStatus() != MemoryStatus.ACTIVE || !key.equals(memory.getKey())) {
                continue;
            }
            if (current == null || memory.getValidFrom().isAfter(current.getValidFrom())
                || memory.getValidFrom().equals(current.getValidFrom()) && memory.getMemoryId().compareTo(current.getMemoryId()) > 0) {
                current = memory;
            }
        }
        return current;
    }

    private static Memory.Builder newMemory(final MemoryCandidate candidate, final MemoryStatus status) {
        final Instant at = candidate.getEventTime();
        return Memory.newBuilder()
            .setMemoryId(candidate.getCandidateId())
            .setTenantId(candidate.getTenantId()).setUserId(candidate.getUserId())
            .setType(candidate.getType()).setCategory(candidate.getCategory())
            .setKey(candidate.getKey()).setValue(candidate.getValue()).setDisplayName(candidate.getDisplayName())
            .setContent(candidate.getContent())
            .setImportance(candidate.getImportance()).setConfidence(candidate.getConfidence())
            .setSource(candidate.getSource()).setStatus(status).setArchiveReason(null)
            .setCreatedAt(at).setUpdatedAt(at).setLastAccessedAt(at).setLastConfirmedAt(at)
            .setAccessCount(0).setReinforcementCount(1).setExpiresAt(null)
            .setValidFrom(at).setValidTo(null).setSupersededBy(null).setSupersedes(List.of())
            .setSources(List.of(sourceOf(candidate)))
            .setEmbedding(new ArrayList<>(candidate.getEmbedding()))
            .setEmbeddingModel(candidate.getEmbeddingModel())
            .setLanguage(candidate.getLanguage())
            .setEventDates(new ArrayList<>(candidate.getEventDates()));
    }

    private static SourceRef sourceOf(final MemoryCandidate candidate) {
        return SourceRef.newBuilder().setConversationId(candidate.getConversationId())
            .setMessageIndexes(new ArrayList<>(candidate.getSourceMessageIndexes()))
            .setObservedAt(candidate.getEventTime()).build();
    }

    private static Change change(final Memory before, final Memory after, final UpdateOperation operation,
                                 final MemoryCandidate candidate) {
        final String cause = "candidate:" + candidate.getCandidateId();
        return new Change(before, MemoryUpdated.newBuilder()
            .setEventId(MemoryIds.eventId(after.getMemoryId(), operation.name(), cause))
            .setTenantId(after.getTenantId()).setUserId(after.getUserId()).setMemoryId(after.getMemoryId())
            .setOperation(operation).setMemory(after)
            .setPreviousValue(before == null ? null : before.getValue())
            .setCause(cause).setEventTime(candidate.getEventTime()).build());
    }

    private static ContradictionDetected contradiction(final Memory older, final Memory newer, final double similarity,
                                                       final String reason, final Instant at) {
        return ContradictionDetected.newBuilder()
            .setTenantId(newer.getTenantId()).setUserId(newer.getUserId())
            .setOldMemoryId(older.getMemoryId()).setNewMemoryId(newer.getMemoryId())
            .setKey(newer.getKey() != null ? newer.getKey() : older.getKey())
            .setOldValue(older.getValue()).setNewValue(newer.getValue())
            .setSimilarity(similarity).setReason(reason).setDetectedAt(at).build();
    }

    private static MemoryArchived archivedEvent(final Memory memory, final ArchiveReason reason, final String supersededBy,
                                                final Instant at) {
        return MemoryArchived.newBuilder().setTenantId(memory.getTenantId()).setUserId(memory.getUserId())
            .setMemoryId(memory.getMemoryId()).setReason(reason).setSupersededBy(supersededBy).setArchivedAt(at).build();
    }

    /** The candidate's similarity to a memory; 0 when their vectors are of two models (never compared). */
    private double similarity(final MemoryCandidate candidate, final float[] vector, final Memory memory) {
        final float[] other = Vectors.toArray(memory.getEmbedding());
        return other.length == vector.length && candidate.getEmbeddingModel().equals(memory.getEmbeddingModel())
            ? settings.scale().similarity(memory.getEmbeddingModel(), Vectors.cosine(vector, other)) : 0.0;
    }

    private static Instant later(final Instant a, final Instant b) {
        return a.isAfter(b) ? a : b;
    }

    private static boolean inUnitRange(final double v) {
        return Double.isFinite(v) && v >= 0 && v <= 1;
    }

    private static boolean isBlank(final String s) {
        return s == null || s.isBlank();
    }
}
