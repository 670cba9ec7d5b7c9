package dev.engram.port;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;

/**
 * One memory proposed by a {@link MemoryExtractor}, before embedding.
 *
 * @param type EPISODIC, SEMANTIC or PROCEDURAL
 * @param category fact category, null for episodic memories
 * @param key fact slot (snake_case, e.g. {@code preferred_language}), null for episodic memories
 * @param value fact value (e.g. {@code Kotlin}), null for episodic memories
 * @param displayName a human label for the fact, e.g. "Preferred language"; may be null
 * @param content the memory as one sentence in the third person or as said
 * @param negated true when the statement retracts {@code key=value} ("I no longer use Jira")
 * @param importance 0..1
 * @param confidence 0..1
 * @param source EXPLICIT or INFERRED
 * @param sourceMessageIndexes indexes of the messages that state it, non-empty
 * @param eventTime when it was said (the message timestamp)
 */
public record ExtractedMemory(
    MemoryType type,
    FactCategory category,
    String key,
    String value,
    String displayName,
    String content,
    boolean negated,
    double importance,
    double confidence,
    MemorySource source,
    List<Integer> sourceMessageIndexes,
    Instant eventTime) {

    /** @throws NullPointerException or IllegalArgumentException on a missing or out-of-range field */
    public ExtractedMemory {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(eventTime, "eventTime");
        sourceMessageIndexes = List.copyOf(sourceMessageIndexes);
        if (importance < 0 || importance > 1 || confidence < 0 || confidence > 1) {
            throw new IllegalArgumentException("importance and confidence must be within 0..1");
        }
        if ((key == null) != (value == null)) {
            throw new IllegalArgumentException("key and value go together");
        }
    }

    /** @return true when this is a keyed fact (semantic or procedural with key and value) */
    public boolean isFact() {
        return key != null;
    }
}
