package dev.engram.qdrant;

/** Qdrant refused a call for a reason a retry does not fix (gRPC status in {@link #status()}). */
public final class QdrantCallException extends IllegalStateException {
    private static final long serialVersionUID = 1L;
    private final String operation;
    private final String status;

    QdrantCallException(final String operation, final String status, final String message, final Throwable cause) {
        super(message, cause);
        this.operation = operation;
        this.status = status;
    }

    /** @return the failed operation */
    public String operation() {
        return operation;
    }

    /** @return the gRPC status code name, e.g. {@code NOT_FOUND} */
    public String status() {
        return status;
    }
}
