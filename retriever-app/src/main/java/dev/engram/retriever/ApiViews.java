package dev.engram.retriever;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.engram.avro.Memory;
import dev.engram.avro.ProfileFact;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UserProfile;
import dev.engram.consolidation.Outdated;
import dev.engram.consolidation.OutdatedPart;
import dev.engram.scoring.ScoredMemory;

/** The JSON bodies of the retrieval API (Jackson serializes records in declaration order). */
public final class ApiViews {

    private ApiViews() {
    }

    /**
     * The category a view shows: the tenant's own category (lower-case, e.g. {@code medications}) when the memory has
     * one, else the built-in one (upper-case, e.g. {@code PERSONAL}).
     *
     * @param m a memory
     * @return its category's name, or null for a memory of none
     */
    static String categoryOf(final Memory m) {
        return m.getCustomCategory() != null ? m.getCustomCategory()
            : m.getCategory() == null ? null : m.getCategory().name();
    }

    /**
     * Where a memory came from.
     *
     * @param conversationId conversation
     * @param messageIndexes indexes of the messages that state it
     */
    public record Source(String conversationId, List<Integer> messageIndexes) {

        static List<Source> of(final List<SourceRef> refs) {
            final List<Source> out = new ArrayList<>(refs.size());
            for (final SourceRef ref : refs) {
                out.add(new Source(ref.getConversationId(), List.copyOf(ref.getMessageIndexes())));
            }
            return out;
        }
    }

    /**
     * A value a fact held before a correction rewrote it in place ({@code PUT} on the memory, event CORRECTED;
     * {@link Memory#getFormerValues}).
     *
     * @param value the fact's value before the correction
     * @param content the fact's sentence before the correction
     * @param correctedAt when the correction replaced it (the command's issue time): the value held until then
     */
    public record FormerValue(String value, String content, Instant correctedAt) {

        static List<FormerValue> of(final Memory m) {
            final List<FormerValue> out = new ArrayList<>(m.getFormerValues().size());
            for (final dev.engram.avro.FormerValue former : m.getFormerValues()) {
                out.add(new FormerValue(former.getValue(), former.getContent(), former.getCorrectedAt()));
            }
            return List.copyOf(out);
        }
    }

    /**
     * The four score components, each 0..1 before weighting.
     *
     * @param semantic fused dense + BM25 relevance
     * @param recency exp(−days since last access / 30) from the user's newest event
     * @param importance importance
     * @param access min(accessCount / 10, 1)
     */
    public record Components(double semantic, double recency, double importance, double access) {
    }

    /**
     * One hit of {@code GET .../memories?query=}.
     *
     * @param memoryId id
     * @param type EPISODIC | SEMANTIC | PROCEDURAL
     * @param category the tenant's own category (e.g. medications) or the built-in one (e.g. PERSONAL), or null
     * @param key fact key or null
     * @param value fact value or null
     * @param content the memory's sentence
     * @param score total score
     * @param components its four components
     * @param sources where it came from
     * @param status ACTIVE (only active memories are returned)
     * @param reinforcementCount conversations that stated it
     * @param createdAt event time created
     * @param updatedAt event time of the last change
     * @param agentId the agent whose own memory it is, null when every agent of the user shares it
     * @param outdated true when the memory is ACTIVE but states something that stopped being true (a fact it names was
     *     superseded, corrected, deleted or negated: {@link Outdated#isOutdated}), the same
     *     judgment that puts it under "Earlier, no longer current" in the context block ({@link ContextBlock})
     * @param validTo when it stopped being current, null while current
     * @param supersededBy the memory holding what replaced it, null while current or when nothing replaced it (a
     *     deletion, a negation)
     * @param outdatedValues the old values it states that made it outdated ({@link Memory#getOutdatedValues}), in the
     *     order they were marked; empty while current, and for a memory outdated whole (a correction reaching the
     *     sentence a fact was read from, a mark written before the values were kept: {@code outdated} says it)
     * @param currentPart what of it is still current: the clauses of the user's own words that state none of
     *     {@code outdatedValues} ({@link OutdatedPart#currentPart}: "I love sushi." of "I love sushi, any good places
     *     in Lisbon?" after a move from Lisbon), the line the context block tells as current; null while current
     *     (all of it is) and when nothing of it is
     * @param formerValues the values a correction replaced, oldest first ({@link FormerValue}): what the fact said
     *     before each {@code PUT}; empty for a memory never corrected in place
     */
    public record Hit(String memoryId, String type, String category, String key, String value, String content,
                      double score, Components components, List<Source> sources, String status,
                      int reinforcementCount, Instant createdAt, Instant updatedAt, String agentId,
                      boolean outdated, Instant validTo, String supersededBy, List<String> outdatedValues,
                      String currentPart, List<FormerValue> formerValues) {

        static Hit of(final ScoredMemory scored) {
            final Memory m = scored.memory();
            return new Hit(m.getMemoryId(), m.getType().name(), categoryOf(m),
                m.getKey(), m.getValue(), m.getContent(), round(scored.score()),
                new Components(round(scored.semantic()), round(scored.recency()), round(scored.importance()),
                    round(scored.access())),
                Source.of(m.getSources()), m.getStatus().name(), m.getReinforcementCount(), m.getCreatedAt(),
                m.getUpdatedAt(), m.getAgentId(), Outdated.isOutdated(m), m.getValidTo(), m.getSupersededBy(),
                List.copyOf(m.getOutdatedValues()), OutdatedPart.currentPart(m), FormerValue.of(m));
        }
    }

    /**
     * Body of {@code GET .../memories?query=}.
     *
     * @param tenantId tenant
     * @param userId user
     * @param query the query
     * @param k requested k
     * @param memories at most k hits, best first
     */
    public record QueryResult(String tenantId, String userId, String query, int k, List<Hit> memories) {
    }

    /**
     * One memory in the view, history and export: its stored state without the embedding.
     *
     * @param memoryId id
     * @param type type
     * @param category the tenant's own category (e.g. medications) or the built-in one (e.g. PERSONAL), or null
     * @param key key or null
     * @param value value or null
     * @param displayName display name or null
     * @param content sentence
     * @param importance 0..1
     * @param confidence 0..1
     * @param source EXPLICIT | INFERRED | CORRECTED
     * @param status ACTIVE | ARCHIVED | DELETED
     * @param archiveReason reason or null
     * @param sources where it came from
     * @param reinforcementCount conversations that stated it
     * @param accessCount retrieval hits
     * @param createdAt created
     * @param updatedAt last change
     * @param lastAccessedAt last hit (or createdAt)
     * @param validFrom valid from
     * @param validTo valid to, or null while current
     * @param supersededBy the memory that replaced it, or null
     * @param language the content's language as the extractor detected it (BCP 47 primary subtag: en, zh, ja,
     *     ko, ar, vi, …), or null when unknown
     * @param eventDates absolute dates the content refers to (ISO 8601 days or intervals), possibly empty
     * @param agentId the agent whose own memory it is, null when every agent of the user shares it
     * @param outdatedValues as a search hit's ({@link Hit#outdatedValues}): the old values it states that made it
     *     outdated (kept after it is archived, as history), empty for a memory never marked or marked whole
     * @param currentPart as a search hit's ({@link Hit#currentPart}): what of an outdated memory is still current,
     *     null otherwise
     * @param formerValues as a search hit's ({@link Hit#formerValues}): the values corrections replaced, oldest first,
     *     so a version of the history shows what the fact held before that version
     */
    public record MemoryView(String memoryId, String type, String category, String key, String value,
                             String displayName, String content, double importance, double confidence, String source,
                             String status, String archiveReason, List<Source> sources, int reinforcementCount,
                             int accessCount, Instant createdAt, Instant updatedAt, Instant lastAccessedAt,
                             Instant validFrom, Instant validTo, String supersededBy, String language,
                             List<String> eventDates, String agentId, List<String> outdatedValues,
                             String currentPart, List<FormerValue> formerValues) {

        static MemoryView of(final Memory m) {
            return new MemoryView(m.getMemoryId(), m.getType().name(),
                categoryOf(m), m.getKey(), m.getValue(), m.getDisplayName(),
                m.getContent(), m.getImportance(), m.getConfidence(), m.getSource().name(), m.getStatus().name(),
                m.getArchiveReason() == null ? null : m.getArchiveReason().name(), Source.of(m.getSources()),
                m.getReinforcementCount(), m.getAccessCount(), m.getCreatedAt(), m.getUpdatedAt(),
                m.getLastAccessedAt(), m.getValidFrom(), m.getValidTo(), m.getSupersededBy(), m.getLanguage(),
                List.copyOf(m.getEventDates()), m.getAgentId(), List.copyOf(m.getOutdatedValues()),
                OutdatedPart.currentPart(m), FormerValue.of(m));
        }
    }

    /**
     * Body of {@code GET .../memories} without a query.
     *
     * @param tenantId tenant
     * @param userId user
     * @param count number of memories listed
     * @param memories newest change first
     */
    public record MemoryList(String tenantId, String userId, int count, List<MemoryView> memories) {
    }

    /**
     * Body of {@code GET .../memories/{id}/history}.
     *
     * @param tenantId tenant
     * @param userId user
     * @param memoryId memory
     * @param versions every version, oldest first (event time), each the state after that event
     */
    public record History(String tenantId, String userId, String memoryId, List<Version> versions) {
    }

    /**
     * One version of a memory: the event that made it and the memory's state after it (its fields
     * unwrapped into the version object).
     *
     * @param operation CREATED, REINFORCED, SUPERSEDED, ACCESSED, ARCHIVED, MERGED, CORRECTED, …
     * @param cause {@code candidate:<id>}, {@code command:<id>}, {@code access:<offset>} or {@code consolidation}
     * @param eventTime when it happened (event time)
     * @param previousValue the fact value before, null when none
     * @param memory the state after
     */
    public record Version(String operation, String cause, Instant eventTime, String previousValue,
                          @com.fasterxml.jackson.annotation.JsonUnwrapped MemoryView memory) {

        /**
         * @param event a memory-updated event with its state after
         * @return the version
         */
        public static Version of(final dev.engram.avro.MemoryUpdated event) {
            return new Version(event.getOperation().name(), event.getCause(), event.getEventTime(),
                event.getPreviousValue(), MemoryView.of(event.getMemory()));
        }
    }

    /**
     * One fact of the profile.
     *
     * @param key key
     * @param value value
     * @param displayName display name or null
     * @param memoryId the active memory holding it
     * @param confidence 0..1
     * @param source EXPLICIT | INFERRED | CORRECTED
     * @param updatedAt last change
     */
    public record Fact(String key, String value, String displayName, String memoryId, double confidence,
                       String source, Instant updatedAt) {
    }

    /**
     * Body of {@code GET .../profile}.
     *
     * @param tenantId tenant
     * @param userId user
     * @param memoryEnabled whether memory is on for the user
     * @param activeMemories count of ACTIVE memories
     * @param archivedMemories count of ARCHIVED memories
     * @param firstInteractionAt first event time (at most the newest message its memory cites)
     * @param lastInteractionAt last event time, never later than the newest message its memory cites: the regrouping
     *     and the lifecycle pass stamp their writes later than the user spoke
     * @param facts by category name (facts without a category under {@code OTHER}), each sorted by key
     */
    public record Profile(String tenantId, String userId, boolean memoryEnabled, int activeMemories,
                          int archivedMemories, Instant firstInteractionAt, Instant lastInteractionAt,
                          Map<String, List<Fact>> facts) {

        static Profile of(final UserProfile p) {
            final Map<String, List<Fact>> byCategory = new TreeMap<>();
            new TreeMap<>(p.getFacts()).forEach((key, f) -> byCategory
                .computeIfAbsent(categoryName(f), c -> new ArrayList<>())
                .add(new Fact(f.getKey(), f.getValue(), f.getDisplayName(), f.getMemoryId(), f.getConfidence(),
                    f.getSource().name(), f.getUpdatedAt())));
            return new Profile(p.getTenantId(), p.getUserId(), p.getMemoryEnabled(), p.getActiveMemories(),
                p.getArchivedMemories(), p.getFirstInteractionAt(), p.getLastInteractionAt(), byCategory);
        }

        private static String categoryName(final ProfileFact f) {
            return f.getCustomCategory() != null ? f.getCustomCategory()
                : f.getCategory() == null ? "OTHER" : f.getCategory().name();
        }
    }

    /**
     * Body of {@code GET .../context}.
     *
     * @param tenantId tenant
     * @param userId user
     * @param budgetTokens the budget asked for
     * @param estimatedTokens estimated tokens of {@code context} (≈ chars / 4, rounded up)
     * @param memoryIds the memories included, in score order
     * @param context the prompt block to inject
     */
    public record Context(String tenantId, String userId, int budgetTokens, int estimatedTokens,
                          List<String> memoryIds, String context) {
    }

    /** Rounds to 6 decimals so bodies are stable and readable. */
    static double round(final double v) {
        return Math.round(v * 1e6) / 1e6;
    }
}
