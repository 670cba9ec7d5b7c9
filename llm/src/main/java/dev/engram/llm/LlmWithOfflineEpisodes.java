package dev.engram.llm;

import java.util.ArrayList;
import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryType;
import dev.engram.avro.UserProfile;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.Extraction;
import dev.engram.port.MemoryExtractor;
import dev.engram.port.TenantPolicy;

/**
 * What the LLM path stores with {@code llm.extraction.episodes=true}: the LLM extractor's memories
 * (facts and the episodic summary) followed by the offline extractor's EPISODIC memories (the user's
 * substantive turns as said, one per turn); the offline extractor's facts are left out, the LLM's
 * stand for them. One call to the LLM per chunk, as without the episodes; the offline part costs no
 * call. Memory off gives nothing from either.
 *
 * <p>{@link #name()} is the LLM extractor's name plus {@code +episodes}, recorded on every candidate,
 * so the two set-ups never share candidate provenance. Thread-safe when both extractors are.
 */
public final class LlmWithOfflineEpisodes implements MemoryExtractor {

    private final MemoryExtractor llm;
    private final MemoryExtractor offline;

    /**
     * @param llm the LLM extractor
     * @param offline the offline extractor whose EPISODIC memories are added (the rule-based one)
     */
    public LlmWithOfflineEpisodes(final MemoryExtractor llm, final MemoryExtractor offline) {
        this.llm = llm;
        this.offline = offline;
    }

    @Override
    public String name() {
        return llm.name() + "+episodes";
    }


    /** Both under the tenant's settings; the usage is the LLM's. */
    @Override
    public Extraction extract(final ConversationCompleted conversation, final UserProfile profile,
                              final TenantPolicy policy) {
        final Extraction fromLlm = llm.extract(conversation, profile, policy);
        final List<ExtractedMemory> out = new ArrayList<>(fromLlm.memories());
        for (final ExtractedMemory memory : offline.extract(conversation, profile, policy).memories()) {
            if (memory.type() == MemoryType.EPISODIC) {
                out.add(memory);
            }
        }
        return new Extraction(name(), out, fromLlm.usage());
    }
}
