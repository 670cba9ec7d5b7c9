package dev.engram.retriever;

import dev.engram.avro.MemoryCommand;

/**
 * Publishes the API's writes to {@code memory-commands}, keyed by the user key, so they are applied
 * by the consolidator in order with the user's other events.
 */
public interface CommandPublisher extends AutoCloseable {

    /**
     * Publishes one command and waits until the broker has acknowledged it.
     *
     * @param command the command
     * @throws dev.engram.runtime.ApiProblem 503 if it could not be published
     */
    void publish(MemoryCommand command);

    @Override
    default void close() {
    }
}
