package dev.engram.consolidation;

import java.util.Locale;

import dev.engram.avro.ProfileFact;
import dev.engram.avro.UserProfile;
import dev.engram.core.ValueAliases;
import dev.engram.port.ExtractedMemory;

/**
 * A fact told to one agent that would change what every agent knows stays that agent's (session 15 trial: "Let's
 * role-play. I'm a pirate captain. I live in Tortuga and I work at the Black Pearl." told to {@code agentId=storybot}
 * replaced the user's city Leeds and employer Asda for the support bot too). The user's keyed facts are shared (the
 * profile, agentId null); one said in a conversation with an agent that states another value of a single-valued slot
 * the shared profile holds ({@code city}, {@code employer}: a key without {@code :}), or takes back a fact the profile
 * holds, is keyed for that agent instead: {@code <key>@<agentId>} ({@link ExtractedMemory#AGENT_KEY}), so the consolidator, which
 * supersedes by key, leaves the shared fact current; the candidate keeps the conversation's agent, and the profile
 * leaves it out (as the name asked of one agent, {@link ExtractedMemory#AGENT_NICKNAME}). A fact the profile does not
 * hold yet, or holds with the same value, stays shared: what the user tells the travel bot about where they live is
 * the user's city until it contradicts it. Stateless, thread-safe.
 */
public final class AgentFacts {

    private AgentFacts() {
    }

    /**
     * @param memory a memory the extractor made of the conversation
     * @param agent the conversation's agent, or null
     * @param profile the user's shared profile when the conversation was extracted, or null
     * @return the memory, or the same fact keyed {@code <key>@<agent>} when it would change the shared profile
     */
    public static ExtractedMemory scoped(final ExtractedMemory memory, final String agent, final UserProfile profile) {
        if (agent == null || profile == null || !memory.isFact() || ExtractedMemory.agentScoped(memory.key())) {
            return memory;
        }
        final ProfileFact shared = profile.getFacts().get(memory.key());
        if (shared == null || !memory.negated() && (memory.key().contains(":")
            || ValueAliases.fold(shared.getValue()).equals(ValueAliases.fold(memory.value())))) {
            return memory;
        }
        return new ExtractedMemory(memory.type(), memory.category(),
            memory.key() + ExtractedMemory.AGENT_KEY + agent.strip().toLowerCase(Locale.ROOT), memory.value(), memory.displayName(),
            memory.content(), memory.negated(), memory.importance(), memory.confidence(), memory.source(),
            memory.sourceMessageIndexes(), memory.eventTime(), memory.language(), memory.eventDates(),
            memory.customCategory());
    }
}
