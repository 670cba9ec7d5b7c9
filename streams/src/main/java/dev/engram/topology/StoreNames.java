package dev.engram.topology;

/** Every state store name in one place (kebab-case nouns ending in {@code -store}). */
public final class StoreNames {

    /** Consolidator: {@code <user key>\0<memory id>} → Memory, every status. Prefix-scanned per user. */
    public static final String MEMORIES = "memories-by-user-store";
    /** Consolidator: user key → UserProfile. */
    public static final String PROFILES = "profiles-store";
    /** Consolidator: user key → erasure time (ms), the erasure ledger. */
    public static final String ERASURES = "erasures-store";
    /**
     * Consolidator: {@code <user key>\0<memory id>} → {@link dev.engram.scoring.AccessCounts}, the retrieval hits of
     * a memory folded from {@code memory-access} (kept apart from the memory: a read never rewrites it); joined with
     * the memories by the lifecycle pass. Replaces {@code access-pending-store} (hits applied as ACCESSED changes).
     */
    public static final String ACCESS = "memory-access-store";
    /**
     * Consolidator: user key → stream time (ms) at which the user's statements changed since the user's observations
     * were last regrouped ({@link ObservationRegroups}); in memory, changelogged, so a restart regroups them.
     */
    public static final String OBSERVATION_PENDING = "observation-pending-store";
    /** Retriever: {@code <user key>\0<memory id>} → Memory, materialized from memory-updated. */
    public static final String RETRIEVER_MEMORIES = "retriever-memories-store";
    /** Retriever: user key → UserProfile, materialized from memory-updated. */
    public static final String RETRIEVER_PROFILES = "retriever-profiles-store";

    /**
     * Retriever: {@code <user key>\0<memory id>\0<event time ms, 13 digits>\0<event id>} → MemoryUpdated
     * (embedding stripped), every version of every memory in event-time order, from memory-updated; except
     * ACCESSED (written before access moved to {@link #RETRIEVER_ACCESS}), of which only the latest is kept, under
     * {@code <user key>\0<memory id>\0access}.
     */
    public static final String RETRIEVER_HISTORY = "retriever-history-store";
    /**
     * Retriever: {@code <user key>\0<memory id>} → {@link dev.engram.scoring.AccessCounts}, folded from
     * {@code memory-access} as the consolidator folds it ({@link StoreNames#ACCESS}); joined with the memories at read
     * time (ranking, the counters an answer shows).
     */
    public static final String RETRIEVER_ACCESS = "retriever-access-store";
    /** Retriever: user key → erasure time (ms), the read model's copy of the erasure ledger. */
    public static final String RETRIEVER_ERASURES = "retriever-erasures-store";
    /** Extractor: user key → UserProfile, materialized from {@code USER_PROFILES}. */
    public static final String EXTRACTOR_PROFILES = "extractor-profiles-store";
    /**
     * Extractor: per-task sequence number → a consumed conversation whose output is not forwarded yet
     * (changelogged; see {@link ExtractionTopology}).
     */
    public static final String EXTRACTION_PENDING = "extraction-pending-store";
    /**
     * Extractor (a global store, every instance holds every tenant): {@code tenant-settings} as it is,
     * {@code <tenant>/<version ms, 13 digits>} → TenantSettings; read by version time ({@link TenantSettingsTable}).
     */
    public static final String TENANT_SETTINGS = "tenant-settings-store";

    private StoreNames() {
    }
}
