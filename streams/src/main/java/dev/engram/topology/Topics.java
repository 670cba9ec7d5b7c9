package dev.engram.topology;

/**
 * Every topic name in one place (kebab-case, {@code <domain>-<entity>[-<stage>]}). All per-user
 * topics are keyed by {@link dev.engram.core.UserKey} so they are co-partitioned.
 */
public final class Topics {

    /** ConversationCompleted, from chat platforms; read by the extractor. */
    public static final String CONVERSATIONS_COMPLETED = "conversations-completed";
    /** MemoryCandidate, the extraction log; written by the extractor, read by the consolidator. */
    public static final String MEMORY_CANDIDATES = "memory-candidates";
    /** MemoryCommand (correct, delete, erase, toggle); written by the retriever. */
    public static final String MEMORY_COMMANDS = "memory-commands";
    /** MemoryAccessed, retrieval hits; written by the retriever. */
    public static final String MEMORY_ACCESS = "memory-access";
    /** MemoryUpdated; written by the consolidator, read by downstream, the retriever and the extractor. */
    public static final String MEMORY_UPDATED = "memory-updated";
    /** ContradictionDetected; written by the consolidator. */
    public static final String MEMORY_CONTRADICTIONS = "memory-contradictions";
    /** MemoryArchived; written by the consolidator. */
    public static final String MEMORY_ARCHIVED = "memory-archived";
    /**
     * UserProfile, compacted; written by the consolidator on every profile change (a tombstone when a
     * user is erased), read by the extractor as its co-partitioned profiles table.
     */
    public static final String USER_PROFILES = "user-profiles";
    /**
     * The users' data keys (key = user key, value = the Tink keyset wrapped by the key-encryption key),
     * compacted; written by whichever app first writes a record of the user, tombstoned by the consolidator
     * when it erases the user. Only with {@code crypto.enabled}.
     */
    public static final String DATA_KEYS = "engram-data-keys";
    /** AuditRecord; written by the retriever and the consolidator. */
    public static final String MEMORY_AUDIT = "memory-audit";
    /**
     * TenantSettings, compacted, one record per version (key {@code <tenant>/<version ms, 13 digits>}, so compaction
     * keeps the history a replay needs); written by the retriever's admin route, read by the extractor as a global
     * table and by the retriever.
     */
    public static final String TENANT_SETTINGS = "tenant-settings";

    /** application.id of the extractor. */
    public static final String EXTRACTOR_APP = "engram-extractor";
    /** application.id of the consolidator. */
    public static final String CONSOLIDATOR_APP = "engram-consolidator";
    /** application.id of the retriever. */
    public static final String RETRIEVER_APP = "engram-retriever";

    private Topics() {
    }

    /**
     * @param applicationId an app's application.id, e.g. {@code engram-extractor}
     * @return its dead-letter topic, {@code <application.id>-dlq}
     */
    public static String deadLetter(final String applicationId) {
        return applicationId + "-dlq";
    }

    /** @return the topics every deployment creates up front, dead-letter topics included */
    public static java.util.List<String> all() {
        return java.util.List.of(CONVERSATIONS_COMPLETED, MEMORY_CANDIDATES, MEMORY_COMMANDS, MEMORY_ACCESS,
            MEMORY_UPDATED, MEMORY_CONTRADICTIONS, MEMORY_ARCHIVED, MEMORY_AUDIT, USER_PROFILES, TENANT_SETTINGS,
            deadLetter(EXTRACTOR_APP), deadLetter(CONSOLIDATOR_APP), deadLetter(RETRIEVER_APP));
    }
}
