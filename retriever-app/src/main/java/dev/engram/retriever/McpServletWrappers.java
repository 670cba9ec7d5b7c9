package dev.engram.retriever;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The servlet request and response wrappers {@link McpEndpoint} hands the MCP SDK's transport: the request with
 * its body already read by {@link McpMessages}' envelope check, and the response held until complete so an error
 * answer can be replaced by a JSON-RPC error ({@link McpMessages#sanitizedError}).
 */
final class McpServletWrappers {

    private McpServletWrappers() {
    }

    /**
     * The transport's answer, held until it is complete: an error status (≥ 400) is sent with {@link McpMessages#sanitizedError}
     * instead of the SDK's serialized exception; anything else is sent as written.
     */
    static final class BufferedResponse extends jakarta.servlet.http.HttpServletResponseWrapper {
        private final java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
        private java.io.PrintWriter writer;

        BufferedResponse(final jakarta.servlet.http.HttpServletResponse response) {
            super(response);
        }

        @Override
        public jakarta.servlet.ServletOutputStream getOutputStream() {
            return new jakarta.servlet.ServletOutputStream() {
                @Override
                public void write(final int b) {
                    buffer.write(b);
                }

                @Override
                public void write(final byte[] b, final int off, final int len) {
                    buffer.write(b, off, len);
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setWriteListener(final jakarta.servlet.WriteListener listener) {
                    throw new UnsupportedOperationException("blocking writes only");
                }
            };
        }

        @Override
        public java.io.PrintWriter getWriter() {
            if (writer == null) {
                writer = new java.io.PrintWriter(new java.io.OutputStreamWriter(buffer, StandardCharsets.UTF_8));
            }
            return writer;
        }

        @Override
        public void flushBuffer() {
            // held until sendSanitized
        }

        /** Sends what the transport wrote, an error status with a sanitized body. */
        void sendSanitized() throws IOException {
            if (writer != null) {
                writer.flush();
            }
            final byte[] body = getStatus() >= 400
                ? McpMessages.sanitizedError(getStatus(), buffer.toByteArray()).getBytes(StandardCharsets.UTF_8) : buffer.toByteArray();
            if (getStatus() >= 400) {
                setContentType("application/json");
            }
            setContentLength(body.length);
            getResponse().getOutputStream().write(body);
            getResponse().flushBuffer();
        }
    }

    /** The request with its body already read by the envelope check, served again to the transport. */
    static final class BodyRequest extends jakarta.servlet.http.HttpServletRequestWrapper {
        private final byte[] body;

        BodyRequest(final jakarta.servlet.http.HttpServletRequest request, final byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public jakarta.servlet.ServletInputStream getInputStream() {
            final java.io.ByteArrayInputStream in = new java.io.ByteArrayInputStream(body);
            return new jakarta.servlet.ServletInputStream() {
                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(final byte[] b, final int off, final int len) {
                    return in.read(b, off, len);
                }

                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(final jakarta.servlet.ReadListener listener) {
                    throw new UnsupportedOperationException("blocking reads only");
                }
            };
        }

        /**
         * A body without a Content-Type is JSON, as on {@code /v1} ({@link ApiAccess#nonJson} let it through): the
         * SDK's transport answered it 415.
         */
        @Override
        public String getContentType() {
            return Optional.ofNullable(super.getContentType()).orElse("application/json");
        }

        @Override
        public String getHeader(final String name) {
            final String value = super.getHeader(name);
            return value == null && "Content-Type".equalsIgnoreCase(name) ? getContentType() : value;
        }

        @Override
        public java.util.Enumeration<String> getHeaders(final String name) {
            return "Content-Type".equalsIgnoreCase(name) && super.getHeader(name) == null
                ? java.util.Collections.enumeration(List.of(getContentType())) : super.getHeaders(name);
        }

        @Override
        public java.io.BufferedReader getReader() {
            return new java.io.BufferedReader(new java.io.InputStreamReader(getInputStream(), StandardCharsets.UTF_8));
        }
    }
}
