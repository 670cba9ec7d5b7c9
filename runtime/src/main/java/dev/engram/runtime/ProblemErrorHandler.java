package dev.engram.runtime;

import java.io.IOException;
import java.nio.ByteBuffer;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.ErrorHandler;

/**
 * Jetty's error pages as {@code application/problem+json} (RFC 9457), for the answers Jetty gives
 * before any Javalin route runs: a request line or URI too long (414), headers too large (431), a
 * request it cannot parse (400, e.g. a NUL or an ambiguous encoding in the path), and any error it
 * raises in the servlet layer. Jetty's own answer is an HTML page; an API client gets the same body
 * shape as every other Engram error instead. The reason Jetty gives becomes the detail.
 */
final class ProblemErrorHandler extends ErrorHandler {

    private final ObjectMapper json;

    ProblemErrorHandler(final ObjectMapper json) {
        this.json = json;
        setShowStacks(false);
        setShowServlet(false);
    }

    /**
     * Errors found while parsing the request (no servlet request exists yet): 400, 414, 431. For a target
     * Jetty cannot parse, the reason is what {@link TargetCheckingConnectionFactory} found wrong with it.
     */
    @Override
    public ByteBuffer badMessageError(final int status, final String reason, final HttpFields.Mutable fields) {
        fields.put(new HttpField(HttpHeader.CONTENT_TYPE, AppHttpServer.PROBLEM_JSON));
        return ByteBuffer.wrap(AppHttpServer.problemBody(json, status, reason));
    }

    /** Errors raised once the request was parsed (the servlet layer's sendError). */
    @Override
    public void handle(final String target, final Request baseRequest, final HttpServletRequest request,
                       final HttpServletResponse response) throws IOException {
        final Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
        final byte[] body = AppHttpServer.problemBody(json, response.getStatus(), message == null ? null : message.toString());
        baseRequest.setHandled(true);
        response.setContentType(AppHttpServer.PROBLEM_JSON);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
