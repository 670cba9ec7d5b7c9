package dev.engram.client;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The typed bodies of the retrieval API, as the client reads them. Fields the API adds later are ignored, so
 * an older client keeps working against a newer retriever.
 */
public final class Views {

    private Views() {
    }

    /**
     * Where a memory came from.
     *
     * @param conversationId the conversation
     * @param messageIndexes the indexes of the messages that state it
     */
    public record Source(String conversationId, List<Integer> messageIndexes) {
    }

    /**
     * A value a fact held before a correction ({@code correct}) rewrote it in place.
     *
     * @param value the fact's value before the correction
     * @param content the fact's sentence before the correction
     * @param correctedAt when the correction replaced it: the value held until then
     */
    public record FormerValue(String value, String content, Instant correctedAt) {
    }

    /**
     * The four components of a hit's score, each 0..1 before weighting.
     *
     * @param semantic fused dense + BM25 relevance
     * @param recency recency
     * @param importance importance
     * @param access access
     */
    public record Components(double semantic, double recency, double importance, double access) {
    }

    /**
     * One search hit.
     *
     * @param memoryId id
     * @param type EPISODIC, SEMANTIC or PROCEDURAL
     * @param category fact category or null
     * @param key fact key or null
     * @param value fact value or null
     * @param content the memory's sentence
     * @param score total score
     * @param components its components
     * @param sources where it came from
     * @param status ACTIVE
     * @param reinforcementCount conversations that stated it
     * @param createdAt event time created
     * @param updatedAt event time of the last change
     * @param agentId the agent whose own memory it is (the {@code agentId} of the conversation it came from), null
     *     when every agent of the user shares it
     * @param outdated true when the memory is ACTIVE (what the user said) but states something that stopped being
     *     true: a fact it names was superseded, corrected, deleted or negated. The context block tells such a memory
     *     under "Earlier, no longer current"; a caller building its own prompt should do the same. False from a
     *     retriever older than this field
     * @param validTo event time it stopped being current, null while current
     * @param supersededBy the id of the memory holding what replaced it, null while current or when nothing replaced
     *     it (a deletion, a negation)
     * @param outdatedValues the old values the memory states that made it outdated ("Lisbon" after a move to Porto);
     *     empty while current and for a memory outdated whole; null from a retriever older than this field
     * @param currentPart what of an outdated memory is still current (the user's clauses that state none of
     *     {@code outdatedValues}: "I love sushi." of "I love sushi, any good places in Lisbon?"), the line the context
     *     block tells as current; a caller building its own prompt may tell it as current. Null while current, when
     *     nothing of it is, and from a retriever older than this field
     * @param formerValues the values corrections replaced, oldest first; empty for a memory never corrected in place,
     *     null from a retriever older than this field
     */
    public record Hit(String memoryId, String type, String category, String key, String value, String content,
                      double score, Components components, List<Source> sources, String status,
                      int reinforcementCount, Instant createdAt, Instant updatedAt, String agentId,
                      boolean outdated, Instant validTo, String supersededBy, List<String> outdatedValues,
                      String currentPart, List<FormerValue> formerValues) {
    }

    /**
     * The answer of a search.
     *
     * @param tenantId tenant
     * @param userId user
     * @param query the query
     * @param k the k asked for
     * @param memories at most k hits, best first
     */
    public record SearchResult(String tenantId, String userId, String query, int k, List<Hit> memories) {
    }

    /**
     * One stored memory (without its embedding).
     *
     * @param memoryId id
     * @param type type
     * @param category category or null
     * @param key key or null
     * @param value value or null
     * @param displayName display name or null
     * @param content sentence
     * @param importance 0..1
     * @param confidence 0..1
     * @param source EXPLICIT, INFERRED or CORRECTED
     * @param status ACTIVE, ARCHIVED or DELETED
     * @param archiveReason reason or null
     * @param sources where it came from
     * @param reinforcementCount conversations that stated it
     * @param accessCount retrieval hits
     * @param createdAt created
     * @param updatedAt last change
     * @param lastAccessedAt last hit (or createdAt)
     * @param validFrom valid from
     * @param validTo valid to, null while current
     * @param supersededBy the memory that replaced it, or null
     * @param language the content's language as the extractor detected it (a BCP 47 primary subtag: en, zh, …), or
     *     null when unknown
     * @param eventDates absolute dates the content refers to (ISO 8601 days or intervals), possibly empty; null from
     *     a retriever older than this field
     * @param agentId the agent whose own memory it is, null when every agent of the user shares it
     * @param outdatedValues as a hit's ({@link Hit#outdatedValues}); kept after the memory is archived, as history
     * @param currentPart as a hit's ({@link Hit#currentPart})
     * @param formerValues as a hit's ({@link Hit#formerValues}): in a history version, what the fact held before it
     */
    public record MemoryView(String memoryId, String type, String category, String key, String value,
                             String displayName, String content, double importance, double confidence, String source,
                             String status, String archiveReason, List<Source> sources, int reinforcementCount,
                             int accessCount, Instant createdAt, Instant updatedAt, Instant lastAccessedAt,
                             Instant validFrom, Instant validTo, String supersededBy, String language,
                             List<String> eventDates, String agentId, List<String> outdatedValues,
                             String currentPart, List<FormerValue> formerValues) {
    }

    /**
     * Every memory of a user.
     *
     * @param tenantId tenant
     * @param userId user
     * @param count number listed
     * @param memories newest change first
     */
    public record MemoryList(String tenantId, String userId, int count, List<MemoryView> memories) {
    }

    /**
     * The prompt block for the next message.
     *
     * @param tenantId tenant
     * @param userId user
     * @param budgetTokens the budget asked for
     * @param estimatedTokens estimated tokens of {@code context}
     * @param memoryIds the memories included, in score order
     * @param context the text to put into the prompt
     */
    public record Context(String tenantId, String userId, int budgetTokens, int estimatedTokens,
                          List<String> memoryIds, String context) {
    }

    /**
     * A write the API accepted (202): published to {@code memory-commands}, applied by the consolidator in
     * order with the user's other events.
     *
     * @param commandId the command's id
     * @param kind CORRECT, DELETE, ERASE or SET_MEMORY_ENABLED
     * @param status ACCEPTED
     */
    public record Accepted(String commandId, String kind, String status) {
    }

    /**
     * One profile fact.
     *
     * @param key key
     * @param value value
     * @param displayName display name or null
     * @param memoryId the active memory holding it
     * @param confidence 0..1
     * @param source EXPLICIT, INFERRED or CORRECTED
     * @param updatedAt last change
     */
    public record Fact(String key, String value, String displayName, String memoryId, double confidence,
                       String source, Instant updatedAt) {
    }

    /**
     * A user's live profile.
     *
     * @param tenantId tenant
     * @param userId user
     * @param memoryEnabled whether memory is on
     * @param activeMemories ACTIVE memories
     * @param archivedMemories ARCHIVED memories
     * @param firstInteractionAt first event time (at most the newest message its memory cites)
     * @param lastInteractionAt last event time, never later than the newest message its memory cites
     * @param facts by category name
     */
    public record Profile(String tenantId, String userId, boolean memoryEnabled, int activeMemories,
                          int archivedMemories, Instant firstInteractionAt, Instant lastInteractionAt,
                          Map<String, List<Fact>> facts) {
    }

    /**
     * Everything held about a user (GDPR Art. 15 / 20).
     *
     * @param format {@code engram-export-v1}
     * @param exportedAt when
     * @param tenantId tenant
     * @param userId user
     * @param settings {@code memoryEnabled}
     * @param profile the profile
     * @param memories every memory, oldest first
     */
    public record Export(String format, Instant exportedAt, String tenantId, String userId,
                         Map<String, Object> settings, Profile profile, List<MemoryView> memories) {
    }

    /**
     * One version of a memory: the change and the memory's state after it.
     *
     * @param operation CREATED, REINFORCED, SUPERSEDED, ACCESSED, ARCHIVED, MERGED, CORRECTED, …
     * @param cause {@code candidate:<id>}, {@code command:<id>}, {@code access:<offset>} or {@code consolidation}
     * @param eventTime event time of the change
     * @param previousValue the fact's value before a change of value, else null
     * @param memory the memory after the change (the version object's other fields)
     */
    public record Version(String operation, String cause, Instant eventTime, String previousValue, MemoryView memory) {
    }

    /**
     * Every version of one memory, oldest first.
     *
     * @param tenantId tenant
     * @param userId user
     * @param memoryId the memory
     * @param versions oldest first
     */
    public record History(String tenantId, String userId, String memoryId, List<Version> versions) {
    }

    /**
     * A conversation the API published to {@code conversations-completed} (202); its memories follow once the
     * extractor and the consolidator have processed it.
     *
     * @param conversationId the conversation
     * @param status ACCEPTED
     * @param messages messages published
     */
    public record ConversationAccepted(String conversationId, String status, int messages) {
    }

    /**
     * What one retriever still holds of a user (admin keys only).
     *
     * @param tenantId tenant
     * @param userId user
     * @param erasedAt when the user was erased, null if never
     * @param places count held per store, and {@code dataKey}: live, none or "crypto off"
     * @param clean nothing held and no live data key
     */
    public record Erasure(String tenantId, String userId, Instant erasedAt, Map<String, Object> places,
                          boolean clean) {
    }

    /**
     * A custom memory category of a tenant.
     *
     * @param name the category's name
     * @param description what belongs in it (the LLM extractor reads it)
     * @param keywords words that put a statement in it (the rule-based extractor reads them)
     * @param ttlDays days its memories live after their last statement, null for the built-in rule
     */
    public record TenantCategory(String name, String description, List<String> keywords, Integer ttlDays) {
    }

    /**
     * A new version of a tenant's settings ({@code PUT /v1/tenants/{tenant}/settings}): the whole of them, a null field
     * is empty.
     *
     * @param categories custom categories
     * @param instructions extra instructions for the LLM extractor
     * @param disabledCategories built-in categories not extracted
     * @param retentionDays days memories are kept, null for no limit
     * @param dailyTokenBudget LLM tokens a day, null for no limit
     * @param effectiveFrom event time from which the version applies, null for now
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record TenantSettingsInput(List<TenantCategory> categories, String instructions,
                                      List<String> disabledCategories, Integer retentionDays, Long dailyTokenBudget,
                                      Instant effectiveFrom) {
    }

    /**
     * One version of a tenant's settings.
     *
     * @param tenantId tenant
     * @param version the version's event time (from when it applies), null for the defaults
     * @param categories custom categories
     * @param instructions extra instructions for the LLM extractor
     * @param disabledCategories built-in categories not extracted
     * @param retentionDays days memories are kept, null for no limit
     * @param dailyTokenBudget LLM tokens a day, null for no limit
     * @param updatedBy who wrote the version
     * @param updatedAt when
     * @param versions how many versions the tenant has
     */
    public record TenantSettings(String tenantId, Instant version, List<TenantCategory> categories, String instructions,
                                 List<String> disabledCategories, Integer retentionDays, Long dailyTokenBudget,
                                 String updatedBy, Instant updatedAt, int versions) {
    }

    /**
     * LLM spend of one UTC day (or a total).
     *
     * @param day the day, null for a total
     * @param calls LLM calls
     * @param promptTokens prompt tokens
     * @param completionTokens completion tokens
     * @param estimatedCostUsd estimated cost, USD
     * @param conversations conversations extracted
     */
    public record Spend(java.time.LocalDate day, long calls, long promptTokens, long completionTokens,
                        double estimatedCostUsd, long conversations) {
    }

    /**
     * A tenant's cost ledger over some days.
     *
     * @param tenantId tenant
     * @param from first day
     * @param to last day (today, UTC)
     * @param days each day's spend
     * @param total the sum
     * @param tokensToday tokens spent today
     * @param dailyTokenBudget the budget, null for none
     */
    public record Usage(String tenantId, java.time.LocalDate from, java.time.LocalDate to, List<Spend> days, Spend total,
                        long tokensToday, Long dailyTokenBudget) {
    }
}
