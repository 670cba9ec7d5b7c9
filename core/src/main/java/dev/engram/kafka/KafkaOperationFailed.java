package dev.engram.kafka;

import java.util.Optional;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.common.errors.AuthorizationException;

/**
 * A tool's Kafka operation that failed, named by what it did and on what ({@code write} {@code topic
 * memory-commands}, {@code delete} {@code topic memory-embeddings-x}), so that a refusal by the cluster's ACLs reads
 * as what was denied, in one line: "not authorized to write topic memory-commands (the cluster's ACLs: Not authorized
 * to access topics: [memory-commands])". Kafka's own {@link AuthorizationException}s name the topic or group but not
 * the operation, and a generic wrapper ("Cannot read from the cluster") called a denied write a read.
 */
public final class KafkaOperationFailed extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /**
     * @param operation what was done, a verb: {@code read}, {@code write}, {@code create}, {@code delete},
     *     {@code describe}
     * @param resource on what: {@code topic memory-commands}, {@code group engram-consolidator}
     * @param cause the client's error (an {@link ExecutionException} is unwrapped)
     */
    public KafkaOperationFailed(final String operation, final String resource, final Throwable cause) {
        super(message(operation, resource, cause), cause);
    }

    private static String message(final String operation, final String resource, final Throwable cause) {
        final Optional<AuthorizationException> denied = denial(cause);
        if (denied.isPresent()) {
            return "not authorized to " + operation + " " + resource + " (the cluster's ACLs: "
                + denied.get().getMessage() + ")";
        }
        Throwable inner = cause;
        while (inner instanceof ExecutionException && inner.getCause() != null) {
            inner = inner.getCause();
        }
        return "cannot " + operation + " " + resource + ": " + inner;
    }

    /**
     * @param error an error and its causes
     * @return the cluster's refusal among them, if any (Kafka's topic, group, transactional id or cluster
     *     authorization errors)
     */
    public static Optional<AuthorizationException> denial(final Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof AuthorizationException denied) {
                return Optional.of(denied);
            }
        }
        return Optional.empty();
    }
}
