package dev.engram.llm;

import java.time.Duration;

/**
 * A failed LLM call. {@link #kind()} says why (for metrics and dead-letter reasons);
 * {@link #transientFailure()} says whether the same request may succeed later (429, 5xx, timeouts,
 * connection errors), which is what the retry and the circuit breaker act on.
 */
public final class LlmException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why a call failed. */
    public enum Kind {
        /** HTTP 429 */
        RATE_LIMITED(true),
        /** HTTP 5xx */
        SERVER_ERROR(true),
        /** no answer within {@code llm.timeout.ms} */
        TIMEOUT(true),
        /** connection refused or reset */
        CONNECTION(true),
        /** another 4xx: the request itself is wrong */
        CLIENT_ERROR(false),
        /** a 2xx whose body is not a Chat Completions response, or whose content does not parse */
        MALFORMED(false);

        private final boolean transientFailure;

        Kind(final boolean transientFailure) {
            this.transientFailure = transientFailure;
        }
    }

    private final Kind kind;
    private final Duration retryAfter;

    /**
     * @param kind why
     * @param message detail (status and a short excerpt, never the prompt)
     * @param retryAfter the server's {@code Retry-After}, or null
     */
    public LlmException(final Kind kind, final String message, final Duration retryAfter) {
        super(kind + ": " + message);
        this.kind = kind;
        this.retryAfter = retryAfter;
    }

    /** @return why */
    public Kind kind() {
        return kind;
    }

    /** @return the server's Retry-After, or null */
    public Duration retryAfter() {
        return retryAfter;
    }

    /** @return true for 429, 5xx, timeouts and connection errors */
    public boolean transientFailure() {
        return kind.transientFailure;
    }
}
