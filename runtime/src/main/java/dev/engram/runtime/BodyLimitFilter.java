package dev.engram.runtime;

import java.io.IOException;
import java.util.function.LongSupplier;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

/**
 * A servlet filter that bounds what a request body may deliver: its input stream throws {@link TooLarge} once more
 * than the limit has been read. A body with a {@code Content-Length} is refused before it is read
 * ({@link AppHttpServer}); this catches the chunked ones, which Javalin would otherwise read whole into memory
 * whatever their size.
 */
final class BodyLimitFilter implements Filter {

    /** Thrown by a request's input stream once the body is over the limit. */
    static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        TooLarge(final long limit) {
            super("request body over " + limit + " bytes");
        }
    }

    private final LongSupplier limit;

    /** @param limit the largest body, bytes, read per request (the server's setting, which may change before start) */
    BodyLimitFilter(final LongSupplier limit) {
        this.limit = limit;
    }

    @Override
    public void doFilter(final ServletRequest request, final ServletResponse response, final FilterChain chain)
        throws IOException, ServletException {
        if (request instanceof HttpServletRequest http && http.getContentLengthLong() < 0) {
            chain.doFilter(new Bounded(http, limit.getAsLong()), response);
        } else {
            chain.doFilter(request, response);
        }
    }

    /** The request with its input stream counted. */
    private static final class Bounded extends HttpServletRequestWrapper {
        private final long limit;
        private ServletInputStream stream;

        Bounded(final HttpServletRequest request, final long limit) {
            super(request);
            this.limit = limit;
        }

        @Override
        public synchronized ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                stream = new Counted(super.getInputStream(), limit);
            }
            return stream;
        }
    }

    /** Counts the bytes read and throws once they pass the limit. */
    private static final class Counted extends ServletInputStream {
        private final ServletInputStream in;
        private final long limit;
        private long read;

        Counted(final ServletInputStream in, final long limit) {
            this.in = in;
            this.limit = limit;
        }

        private int count(final int n) throws TooLarge {
            if (n > 0) {
                read += n;
                if (read > limit) {
                    throw new TooLarge(limit);
                }
            }
            return n;
        }

        @Override
        public int read() throws IOException {
            final int b = in.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(final byte[] buffer, final int offset, final int length) throws IOException {
            return count(in.read(buffer, offset, length));
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(final ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
