package dev.engram.port;

import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.UserProfile;

/**
 * Extracts memories from one completed conversation. Only the {@code user} role's statements make
 * facts about the user; other roles give context.
 *
 * <p>The embedded default is rule-based; production uses an LLM. Implementations must be
 * deterministic for the same input where they can be (the rule-based one is), and thread-safe.
 */
public interface MemoryExtractor {

    /** @return a stable name recorded on candidates, e.g. {@code rule-based-v1} */
    String name();

    /**
     * Extracts for a tenant without settings. The default runs {@link #extract(ConversationCompleted, UserProfile,
     * TenantPolicy)} with {@link TenantPolicy#none}; an implementation overrides one of the two (each default calls the
     * other).
     *
     * @param conversation a validated conversation
     * @param profile the user's current profile (known facts to skip), or null when unknown
     * @return the memories to propose, possibly empty
     * @throws ExtractionException when extraction failed (never returned as an empty list)
     */
    default List<ExtractedMemory> extract(final ConversationCompleted conversation, final UserProfile profile) {
        return extract(conversation, profile, TenantPolicy.none(conversation.getTenantId())).memories();
    }

    /**
     * Extracts under the tenant's settings in force at the conversation's time. The default ignores the policy
     * (an extractor without tenant support); the extraction topology drops the facts of disabled built-in
     * categories and sets TTLs whatever the extractor does.
     *
     * @param conversation a validated conversation
     * @param profile the user's current profile, or null
     * @param policy the tenant's settings at the conversation's time ({@link TenantPolicy#none} without any)
     * @return the memories, this extractor's name and its LLM usage
     * @throws ExtractionException when extraction failed
     */
    default Extraction extract(final ConversationCompleted conversation, final UserProfile profile,
                               final TenantPolicy policy) {
        return new Extraction(name(), extract(conversation, profile), Extraction.Usage.NONE);
    }

    /** Extraction failed: the conversation goes to the dead-letter topic with this message. */
    class ExtractionException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** @param message why */
        public ExtractionException(final String message) {
            super(message);
        }

        /** @param message why @param cause the underlying error */
        public ExtractionException(final String message, final Throwable cause) {
            super(message, cause);
        }
    }
}
