package dev.engram.client;

/**
 * The retrieval API answered with an error: its {@code application/problem+json} body (RFC 9457) as an
 * exception. The subclasses name the statuses a caller handles differently; any other status is this class.
 *
 * <table>
 *   <caption>statuses</caption>
 *   <tr><td>400, 422</td><td>{@link BadRequest}: a parameter or body the API refuses (the detail says which)</td></tr>
 *   <tr><td>401</td><td>{@link Unauthorized}: no or an unknown API key</td></tr>
 *   <tr><td>403</td><td>{@link Forbidden}: the key may not reach that tenant or user</td></tr>
 *   <tr><td>404</td><td>{@link NotFound}: no memories known for the user, or no such memory</td></tr>
 *   <tr><td>503</td><td>{@link Unavailable}: retry after {@link #retryAfterSeconds()}</td></tr>
 * </table>
 * A transport failure (connection refused, timeout) is an {@link java.io.UncheckedIOException}, not this.
 */
public class EngramApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String title;
    private final String detail;
    private final long retryAfterSeconds;

    /**
     * @param status the HTTP status
     * @param title the problem's title (e.g. {@code Not Found})
     * @param detail the problem's detail, what the API says went wrong
     * @param retryAfterSeconds the Retry-After header in seconds, -1 when absent
     */
    public EngramApiException(final int status, final String title, final String detail, final long retryAfterSeconds) {
        super(status + " " + title + ": " + detail);
        this.status = status;
        this.title = title;
        this.detail = detail;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** @return the HTTP status */
    public int status() {
        return status;
    }

    /** @return the problem's title */
    public String title() {
        return title;
    }

    /** @return the problem's detail */
    public String detail() {
        return detail;
    }

    /** @return seconds to wait before retrying (503), -1 when the API gave none */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    static EngramApiException of(final int status, final String title, final String detail, final long retryAfter) {
        return switch (status) {
            case 400, 422 -> new BadRequest(status, title, detail);
            case 401 -> new Unauthorized(title, detail);
            case 403 -> new Forbidden(title, detail);
            case 404 -> new NotFound(title, detail);
            case 503 -> new Unavailable(title, detail, retryAfter);
            default -> new EngramApiException(status, title, detail, retryAfter);
        };
    }

    /** 400 or 422: the request was refused as invalid. */
    public static final class BadRequest extends EngramApiException {
        private static final long serialVersionUID = 1L;

        BadRequest(final int status, final String title, final String detail) {
            super(status, title, detail, -1);
        }
    }

    /** 401: no API key, or an unknown one. */
    public static final class Unauthorized extends EngramApiException {
        private static final long serialVersionUID = 1L;

        Unauthorized(final String title, final String detail) {
            super(401, title, detail, -1);
        }
    }

    /** 403: the API key may not reach that tenant or user. */
    public static final class Forbidden extends EngramApiException {
        private static final long serialVersionUID = 1L;

        Forbidden(final String title, final String detail) {
            super(403, title, detail, -1);
        }
    }

    /** 404: no memories are known for the user (never seen, or erased), or no such memory. */
    public static final class NotFound extends EngramApiException {
        private static final long serialVersionUID = 1L;

        NotFound(final String title, final String detail) {
            super(404, title, detail, -1);
        }
    }

    /** 503: the retriever cannot answer now (restoring, rebalancing, vector index down). */
    public static final class Unavailable extends EngramApiException {
        private static final long serialVersionUID = 1L;

        Unavailable(final String title, final String detail, final long retryAfterSeconds) {
            super(503, title, detail, retryAfterSeconds);
        }
    }
}
