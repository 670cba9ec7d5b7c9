package dev.engram.retriever;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryCommand;

/**
 * Publishes the API's writes, keyed by the user key so they are processed in order with the user's other events:
 * commands to {@code memory-commands} (applied by the consolidator) and posted conversations to
 * {@code conversations-completed} (read by the extractor).
 */
public interface CommandPublisher extends AutoCloseable {

    /**
     * Publishes one command and waits until the broker has acknowledged it.
     *
     * @param command the command
     * @throws dev.engram.runtime.ApiProblem 503 if it could not be published
     */
    void publish(MemoryCommand command);

    /**
     * Publishes one completed conversation and waits until the broker has acknowledged it.
     *
     * @param conversation a valid conversation, written at its {@code completedAt}
     * @throws dev.engram.runtime.ApiProblem 413 if its record is larger than {@code input.max.record.bytes}, 503 if
     *     it could not be published
     */
    void publish(ConversationCompleted conversation);

    @Override
    default void close() {
    }
}
