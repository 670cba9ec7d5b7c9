package dev.engram.port;

import java.util.Locale;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryType;

/**
 * What a memory is, as far as ranking is concerned: where its words come from and how much of a conversation it
 * covers. The kinds differ in how often a memory of that kind holds the answer at equal relevance signals (a
 * consolidated observation states several of the user's statements on its topic; an assistant's reply often only
 * acknowledges), which {@link KindPrior} weighs.
 */
public enum MemoryKind {

    /** An EPISODIC memory of the user's own turn, verbatim. */
    STATEMENT,
    /** An exchange episode: a user turn with the assistant's reply ({@link ExtractedMemory#EXCHANGE_REPLY}). */
    REPLY,
    /** An exchange episode whose reply recommends something ({@link ExtractedMemory#EXCHANGE_RECOMMENDATION}). */
    RECOMMENDATION,
    /** A conversation's episodic summary ({@link ExtractedMemory#SUMMARY_DISPLAY_NAME}). */
    SUMMARY,
    /** A SEMANTIC or PROCEDURAL memory: an extracted fact or preference. */
    FACT,
    /** An observation the consolidator wrote: several statements of the user on one topic. */
    OBSERVATION;

    private static final MemoryKind[] ALL = values();

    /**
     * @param type the memory's type
     * @param displayName its display name, or null
     * @return its kind
     */
    public static MemoryKind of(final MemoryType type, final String displayName) {
        if (type != MemoryType.EPISODIC) {
            return ExtractedMemory.isObservation(type, displayName) ? OBSERVATION : FACT;
        }
        if (ExtractedMemory.isSummary(type, displayName)) {
            return SUMMARY;
        }
        if (ExtractedMemory.EXCHANGE_RECOMMENDATION.equals(displayName)) {
            return RECOMMENDATION;
        }
        return ExtractedMemory.EXCHANGE_REPLY.equals(displayName) ? REPLY : STATEMENT;
    }

    /**
     * @param memory a memory
     * @return its kind
     */
    public static MemoryKind of(final Memory memory) {
        return of(memory.getType(), memory.getDisplayName());
    }

    /**
     * @param name a kind's name in any case ({@code observation})
     * @return the kind
     * @throws IllegalArgumentException when no kind has that name
     */
    public static MemoryKind named(final String name) {
        for (final MemoryKind kind : ALL) {
            if (kind.name().equalsIgnoreCase(name.strip())) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown memory kind '" + name.strip() + "' (one of "
            + java.util.Arrays.toString(ALL).toLowerCase(Locale.ROOT) + ")");
    }

    /** @return the name in configuration ({@code observation}) */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
