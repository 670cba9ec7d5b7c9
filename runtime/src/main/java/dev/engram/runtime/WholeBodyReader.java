package dev.engram.runtime;

import java.util.Locale;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;

/**
 * Reads a request's body before any route runs (Javalin keeps it for the route's {@code bodyAsBytes()}), so that bad
 * framing gets one answer on every route, also on a route that ignores its body, as an {@link ApiProblem}:
 * <ul>
 *   <li>a chunked body that is malformed (a size that is not hexadecimal, a chunk without its CRLF) or ends early, and
 *       a body shorter than its {@code Content-Length}: 400. Jetty reports both framing faults as an early end of the
 *       input (Javalin would answer them with a bare 500), so the detail names the framing the request declared;</li>
 *   <li>a body that stops coming for the server's idle timeout ({@link AppHttpServer#idleTimeout},
 *       {@code http.idle.timeout.ms}), e.g. a chunk shorter than its declared size on a connection left open: 408 naming
 *       the wait and the setting;</li>
 *   <li>a body over the limit ({@code http.max.body.bytes}, bytes): 413 naming the limit and its key, at once when its
 *       {@code Content-Length} says so, once that many bytes have come when it is chunked ({@link BodyLimitFilter}).
 *       Javalin's own 413 said "Content Too Large" and nothing else, and did not look at chunked bodies at all.</li>
 * </ul>
 * Runs as a Javalin {@code before} handler. Stateless apart from the limit it reads at each request.
 */
final class WholeBodyReader {

    private final LongSupplier maxBodyBytes;
    private final LongSupplier idleTimeoutMs;

    /**
     * @param maxBodyBytes the largest body, bytes, read per request (the server's setting, which may change before start)
     * @param idleTimeoutMs the connector's idle timeout, ms, named by a 408
     */
    WholeBodyReader(final LongSupplier maxBodyBytes, final LongSupplier idleTimeoutMs) {
        this.maxBodyBytes = maxBodyBytes;
        this.idleTimeoutMs = idleTimeoutMs;
    }

    /**
     * @param ctx a request, before its route runs
     * @throws ApiProblem 400, 408 or 413 as the class comment says; Javalin's own {@link HttpResponseException}s pass
     */
    void read(final Context ctx) {
        final String transferEncoding = ctx.header("Transfer-Encoding");
        final boolean chunked = transferEncoding != null && transferEncoding.toLowerCase(Locale.ROOT).contains("chunked");
        final long declared = ctx.req().getContentLengthLong();
        if (!chunked && declared <= 0) {
            return;
        }
        if (!chunked && declared > maxBodyBytes.getAsLong()) {
            throw tooLarge("of " + String.format(Locale.ROOT, "%,d", declared) + " bytes (Content-Length)");
        }
        try {
            ctx.bodyAsBytes();
        } catch (HttpResponseException e) {
            throw e;
        } catch (Exception e) { // Jetty's EofException or an IOException around a TimeoutException, thrown unchecked
            throw bodyProblem(e, chunked, declared);
        }
    }

    /** @return the 413 for a body over the limit, {@code which} saying how it was found out */
    private ApiProblem tooLarge(final String which) {
        return new ApiProblem(413, "The request body " + which + " is larger than the "
            + String.format(Locale.ROOT, "%,d", maxBodyBytes.getAsLong()) + " bytes this server reads ("
            + RuntimeConfig.HTTP_MAX_BODY_BYTES + ")");
    }

    /** @return the problem for a body that could not be read (Javalin wraps the IOException it got, or not) */
    private ApiProblem bodyProblem(final Throwable failure, final boolean chunked, final long declared) {
        for (Throwable c = failure; c != null; c = c.getCause()) {
            if (c instanceof BodyLimitFilter.TooLarge) {
                return tooLarge("(chunked)");
            }
            if (c instanceof TimeoutException) {
                return new ApiProblem(408, "Request timeout: the request body stopped coming before it was complete"
                    + (chunked ? " (chunked: a chunk shorter than its size, or no last chunk of size 0)"
                        : " (" + declared + " bytes declared by Content-Length)")
                    + "; nothing came for " + String.format(Locale.ROOT, "%,d", idleTimeoutMs.getAsLong()) + " ms ("
                    + RuntimeConfig.HTTP_IDLE_TIMEOUT_MS + ")");
            }
        }
        if (chunked) {
            return ApiProblem.badRequest("Malformed chunked body: each chunk is its size in hexadecimal, CRLF, that"
                + " many bytes, CRLF, and the body ends with a chunk of size 0 then CRLF");
        }
        return ApiProblem.badRequest("The body ended before its Content-Length of " + declared + " bytes");
    }
}
