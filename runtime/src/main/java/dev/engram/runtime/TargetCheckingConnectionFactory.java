package dev.engram.runtime;

import org.eclipse.jetty.http.BadMessageException;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpChannelOverHttp;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnection;
import org.eclipse.jetty.server.HttpConnectionFactory;

/**
 * Jetty's HTTP/1.1 connections, with one change: when Jetty refuses a request target it cannot parse (a
 * {@code %} without two hexadecimal digits or an encoded NUL in the path: {@code HttpURI} fails inside the
 * request line and the parser answers 400 with the bare reason "Bad Request"), the reason becomes what
 * {@link RequestTarget} says is wrong with that target, which {@link ProblemErrorHandler} puts in the
 * problem's detail. The raw target is kept from {@code startRequest} for the length of one request.
 */
final class TargetCheckingConnectionFactory extends HttpConnectionFactory {

    /** @param config the server's HTTP configuration (Javalin's) */
    TargetCheckingConnectionFactory(final HttpConfiguration config) {
        super(config);
    }

    @Override
    public Connection newConnection(final Connector connector, final EndPoint endPoint) {
        final HttpConnection connection = new HttpConnection(getHttpConfiguration(), connector, endPoint,
            isRecordHttpComplianceViolations()) {
            @Override
            protected HttpChannelOverHttp newHttpChannel() {
                return new TargetKeepingChannel(this, getConnector(), getHttpConfiguration(), getEndPoint());
            }
        };
        connection.setUseInputDirectByteBuffers(isUseInputDirectByteBuffers());
        connection.setUseOutputDirectByteBuffers(isUseOutputDirectByteBuffers());
        return configure(connection, connector, endPoint);
    }

    /** A channel that remembers the raw request target until the request is recycled. */
    private static final class TargetKeepingChannel extends HttpChannelOverHttp {
        private String target;

        TargetKeepingChannel(final HttpConnection connection, final Connector connector, final HttpConfiguration config,
                             final EndPoint endPoint) {
            super(connection, connector, config, endPoint, connection);
        }

        @Override
        public void startRequest(final String method, final String uri, final HttpVersion version) {
            target = uri;
            super.startRequest(method, uri, version);
        }

        @Override
        public void badMessage(final BadMessageException failure) {
            final String problem = failure.getCode() == 400 ? problem(target) : null;
            super.badMessage(problem == null ? failure : new BadMessageException(400, problem, failure));
        }

        @Override
        public void recycle() {
            target = null;
            super.recycle();
        }

        /** @return what is wrong with the raw target's path or query, or null */
        private static String problem(final String raw) {
            if (raw == null) {
                return null;
            }
            final int query = raw.indexOf('?');
            final String path = RequestTarget.problem(query < 0 ? raw : raw.substring(0, query), RequestTarget.PATH);
            return path != null || query < 0 ? path : RequestTarget.problem(raw.substring(query + 1), RequestTarget.QUERY);
        }
    }
}
