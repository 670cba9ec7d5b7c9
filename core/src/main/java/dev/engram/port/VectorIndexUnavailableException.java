package dev.engram.port;


/**
 * A {@link VectorIndex} could not answer now (server down, unreachable, overloaded, timed out) and
 * the same call may succeed later. Callers must not treat it as "no hits": the consolidator retries
 * and never moves past the record (see {@code RetryingVectorIndex}); the retriever answers 503 with
 * {@code Retry-After}. Errors that a retry cannot fix (a wrong collection, a rejected request) are
 * other runtime exceptions.
 */
public class VectorIndexUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** the failed operation, e.g. {@code search} */
    private final String operation;
    /** the transport's status, e.g. the gRPC code {@code UNAVAILABLE} */
    private final String status;

    /**
     * @param operation the failed operation, e.g. {@code search}
     * @param status the transport's status, e.g. {@code UNAVAILABLE}
     * @param message what failed
     * @param cause the underlying error
     */
    public VectorIndexUnavailableException(final String operation, final String status, final String message,
                                           final Throwable cause) {
        super(message, cause);
        this.operation = operation;
        this.status = status;
    }

    /** @return the failed operation, e.g. {@code search} */
    public String operation() {
        return operation;
    }

    /** @return the transport's status, e.g. {@code UNAVAILABLE} or {@code DEADLINE_EXCEEDED} */
    public String status() {
        return status;
    }
}
