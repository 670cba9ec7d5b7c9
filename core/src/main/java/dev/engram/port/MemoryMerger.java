package dev.engram.port;

import java.util.List;

import dev.engram.avro.Memory;

/**
 * Writes the content of a memory that the consolidation pass merges from several memories (one
 * cluster of alike, unkeyed memories of one user; see {@code MemoryLifecycle}). Everything else of the
 * merged memory (id, sources, counts, embedding) is decided by the lifecycle rule, not here.
 *
 * <p>Must be deterministic for the same members, so that a replay of the consolidator rebuilds the
 * same memory; an implementation that asks a model falls back to {@link #CONCATENATE} whenever it
 * gets no usable answer.
 */
@FunctionalInterface
public interface MemoryMerger {

    /** Longest merged content, in characters. */
    int MAX_CHARS = 2_000;

    /**
     * The rule without a model: the lead's content, then each other member's content (in the given
     * order) that the text does not already contain, up to {@link #MAX_CHARS} — the members' own words,
     * so they stay findable by lexical retrieval.
     */
    MemoryMerger CONCATENATE = (lead, others) -> {
        final StringBuilder text = new StringBuilder(lead.getContent());
        for (final Memory other : others) {
            final String content = other.getContent();
            if (!text.toString().contains(content) && text.length() + content.length() + 1 <= MAX_CHARS) {
                text.append(' ').append(content);
            }
        }
        return text.toString();
    };

    /**
     * @param lead the most important member (its embedding becomes the merged memory's)
     * @param others the other members, oldest first
     * @return the merged memory's content, non-blank, at most {@link #MAX_CHARS} characters
     */
    String mergedContent(Memory lead, List<Memory> others);
}
