package dev.engram.runtime;

/**
 * Thrown by HTTP handlers to answer with an {@code application/problem+json} body; the message is
 * the problem's {@code detail} and must not carry internals.
 */
public final class ApiProblem extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final long retryAfterSeconds;

    /**
     * @param status HTTP status, e.g. 400
     * @param detail human-readable detail
     */
    public ApiProblem(final int status, final String detail) {
        this(status, detail, -1);
    }

    /**
     * @param status HTTP status, e.g. 503
     * @param detail human-readable detail
     * @param retryAfterSeconds value of the Retry-After header, or negative for none
     */
    public ApiProblem(final int status, final String detail, final long retryAfterSeconds) {
        super(detail, null, false, false);
        this.status = status;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** @param detail detail @return a 400 */
    public static ApiProblem badRequest(final String detail) {
        return new ApiProblem(400, detail);
    }

    /** @param detail detail @return a 404 */
    public static ApiProblem notFound(final String detail) {
        return new ApiProblem(404, detail);
    }

    /** @param detail detail @param retryAfterSeconds seconds @return a 503 with Retry-After */
    public static ApiProblem unavailable(final String detail, final long retryAfterSeconds) {
        return new ApiProblem(503, detail, retryAfterSeconds);
    }

    /** @return the HTTP status */
    public int status() {
        return status;
    }

    /** @return seconds for Retry-After, negative for none */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
