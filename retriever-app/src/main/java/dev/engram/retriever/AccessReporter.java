package dev.engram.retriever;

import java.util.List;

import dev.engram.core.UserKey;

/**
 * Reports the memories a retrieval returned, so the consolidator can update their access count and
 * last-access time (the recency and access components of the score).
 */
public interface AccessReporter extends AutoCloseable {

    /**
     * @param user the user the memories belong to
     * @param memoryIds the returned memories, best first; nothing is sent when empty
     */
    void report(UserKey user, List<String> memoryIds);

    @Override
    default void close() {
    }
}
