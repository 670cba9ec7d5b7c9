package dev.engram.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bad HTTP framing, below any route, sent over raw sockets (an HTTP client library would refuse to send
 * it): a malformed chunked body, a body shorter than its {@code Content-Length}, a client that stops
 * sending. Each is a problem+json 4xx naming the fault, like every other bad request, never a 500 with an
 * empty body; a route that ignores its body does not answer 200 to a malformed one either.
 */
class AppHttpServerFramingTest {

    /** A small body limit, so that going over it takes a few kilobytes. */
    private static final int LIMIT = 4096;

    private final ObjectMapper json = new ObjectMapper();
    private final java.util.concurrent.atomic.AtomicInteger routeRuns = new java.util.concurrent.atomic.AtomicInteger();
    private PrometheusMeterRegistry registry;
    private AppHttpServer server;

    @BeforeEach
    void start() {
        registry = AppMetrics.registry("engram-test", "test-host");
        server = new AppHttpServer(0, registry, () -> new AppHttpServer.Health(true, "RUNNING"),
            () -> new AppHttpServer.Health(true, "RUNNING"), app -> {
                app.put("/echo", ctx -> ctx.result(ctx.bodyAsBytes()));
                app.put("/count", ctx -> {
                    routeRuns.incrementAndGet();
                    ctx.result(ctx.bodyAsBytes());
                });
                app.put("/ignores-body", ctx -> ctx.result("ok"));
            }).idleTimeout(Duration.ofSeconds(2)).maxBodyBytes(LIMIT).start();
    }

    @AfterEach
    void stop() {
        server.close();
        registry.close();
    }

    @Test
    void shouldEchoAWellFormedChunkedBodyWhenTheFramingIsRight() throws Exception {
        final String answer = send("PUT /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", true);
        assertThat(answer).startsWith("HTTP/1.1 200").endsWith("hello world");
    }

    @Test
    void shouldAnswer400ProblemWhenAChunkSizeIsNotHexadecimal() throws Exception {
        for (final String size : new String[] {"zz", "-5", "FFFFFFFFFFFFFFFFFFFF", ""}) {
            final String answer = send(chunked("/echo", size + "\r\nhello\r\n0\r\n\r\n"), true);
            assertThat(status(answer)).as(size + ": " + answer).isEqualTo(400);
            assertThat(detail(answer)).as(size).containsIgnoringCase("chunk");
        }
    }

    @Test
    void shouldAnswer400ProblemWhenTheCrlfAfterAChunkIsMissing() throws Exception {
        final String answer = send(chunked("/echo", "5\r\nhelloXX0\r\n\r\n"), true);
        assertThat(status(answer)).as(answer).isEqualTo(400);
        assertThat(detail(answer)).containsIgnoringCase("chunk");
    }

    @Test
    void shouldAnswer400ProblemEvenWhenTheRouteIgnoresAMalformedBody() throws Exception {
        final String answer = send(chunked("/ignores-body", "zz\r\nhello\r\n0\r\n\r\n"), true);
        assertThat(status(answer)).as(answer).isEqualTo(400);
    }

    @Test
    void shouldAnswer400ProblemWhenTheBodyEndsBeforeItsContentLength() throws Exception {
        final String answer = send("PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a\":1}", true);
        assertThat(status(answer)).as(answer).isEqualTo(400);
        assertThat(detail(answer)).contains("100");
    }

    @Test
    void shouldAnswer408ProblemWhenTheClientStopsSendingTheBody() throws Exception {
        final long start = System.nanoTime();
        final String answer = send("PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a\":1}", false);
        assertThat(status(answer)).as(answer).isEqualTo(408);
        assertThat(detail(answer)).containsIgnoringCase("timeout");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));
    }

    @Test
    void shouldAnswer408ProblemNamingTheWaitAndSettingAndNotRunTheRouteWhenAChunkStopsShortOfItsSizeOnAnOpenConnection()
        throws Exception {
        final long start = System.nanoTime();
        final String answer = send(chunked("/count", "a\r\nhello"), false); // 10 declared, 5 sent, the connection left open

        assertThat(status(answer)).as(answer).isEqualTo(408);
        assertThat(detail(answer)).contains("chunk shorter than its size", "2,000 ms (http.idle.timeout.ms)");
        assertThat(answer).containsIgnoringCase("Connection: close");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the idle timeout, not the socket's 30 s")
            .isLessThan(Duration.ofSeconds(25));
        assertThat(routeRuns).as("no route saw a part of the body").hasValue(0);
    }

    @Test
    void shouldAnswer400AtOnceAndNotRunTheRouteWhenTheClientHalfClosesInsideAChunk() throws Exception {
        final String answer = send(chunked("/count", "a\r\nhello"), true);

        assertThat(status(answer)).as(answer).isEqualTo(400);
        assertThat(detail(answer)).containsIgnoringCase("chunk");
        assertThat(routeRuns).hasValue(0);
    }

    @Test
    void shouldNotRunTheRouteWhenTheConnectionClosesInsideAChunk() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.getOutputStream().write(chunked("/count", "a\r\nhello").getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
        } // closed: nobody is left to answer
        // the server is done with the request once it holds no connection (bounded; well under the 2-s idle timeout's
        // worst case under load)
        final org.eclipse.jetty.server.Server jetty = server.javalin().jettyServer().server();
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (java.util.Arrays.stream(jetty.getConnectors())
            .mapToInt(c -> ((org.eclipse.jetty.server.AbstractConnector) c).getConnectedEndPoints().size()).sum() > 0) {
            assertThat(System.nanoTime()).as("the server still holds the closed connection after 30 s").isLessThan(deadline);
            Thread.sleep(20); // polling the connector's endpoint count: nothing to block on
        }

        assertThat(routeRuns).as("no route saw a part of the body").hasValue(0);
        final String after = send(chunked("/count", "5\r\nhello\r\n0\r\n\r\n"), true);
        assertThat(after).startsWith("HTTP/1.1 200").endsWith("hello");
        assertThat(routeRuns).as("the server still answers, and the complete body reached the route").hasValue(1);
    }

    @Test
    void shouldAnswer400ProblemWhenTheContentLengthIsNotANumber() throws Exception {
        final String answer = send("PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}", true);
        assertThat(status(answer)).as(answer).isEqualTo(400);
        detail(answer);
    }

    @Test
    void shouldAnswer413NamingTheLimitAndItsKeyWhenTheContentLengthIsOverIt() throws Exception {
        final String body = "x".repeat(LIMIT + 1);
        final String answer = send("PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length()
            + "\r\nConnection: close\r\n\r\n" + body, true);

        assertThat(status(answer)).as(answer).isEqualTo(413);
        assertThat(detail(answer)).isEqualTo("The request body of 4,097 bytes (Content-Length) is larger than the "
            + "4,096 bytes this server reads (http.max.body.bytes)");
    }

    @Test
    void shouldAnswer413NamingTheLimitWhenAChunkedBodyGoesOverIt() throws Exception {
        final String chunk = "y".repeat(1000);
        final StringBuilder body = new StringBuilder();
        for (int i = 0; i < 5; i++) { // 5,000 bytes in five chunks, no Content-Length to refuse up front
            body.append(Integer.toHexString(chunk.length())).append("\r\n").append(chunk).append("\r\n");
        }
        final String answer = send(chunked("/ignores-body", body + "0\r\n\r\n"), true);

        assertThat(status(answer)).as(answer).isEqualTo(413);
        assertThat(detail(answer)).isEqualTo("The request body (chunked) is larger than the 4,096 bytes this server "
            + "reads (http.max.body.bytes)");
    }

    @Test
    void shouldEchoABodyOfExactlyTheLimitWhetherChunkedOrNot() throws Exception {
        final String body = "z".repeat(LIMIT);
        final String plain = send("PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + LIMIT
            + "\r\nConnection: close\r\n\r\n" + body, true);
        final String chunked = send(chunked("/echo", Integer.toHexString(LIMIT) + "\r\n" + body + "\r\n0\r\n\r\n"), true);

        assertThat(plain).startsWith("HTTP/1.1 200").endsWith(body);
        assertThat(chunked).startsWith("HTTP/1.1 200").endsWith(body);
    }

    private static String chunked(final String path, final String body) {
        return "PUT " + path + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + body;
    }

    /** Sends the bytes, half-closes when told, and reads the answer (to EOF, or what came within 30 s). */
    private String send(final String request, final boolean halfClose) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            if (halfClose) {
                socket.shutdownOutput();
            }
            final ByteArrayOutputStream answer = new ByteArrayOutputStream();
            final InputStream in = socket.getInputStream();
            final byte[] buffer = new byte[4096];
            try {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    answer.write(buffer, 0, n);
                }
            } catch (SocketTimeoutException | java.net.SocketException e) {
                // what came before the timeout or reset is the answer
            }
            return answer.toString(StandardCharsets.UTF_8);
        }
    }

    private static int status(final String answer) {
        return answer.length() < 12 ? -1 : Integer.parseInt(answer.substring(9, 12));
    }

    private String detail(final String answer) throws IOException {
        assertThat(answer).containsIgnoringCase("Content-Type: " + AppHttpServer.PROBLEM_JSON);
        final JsonNode problem = json.readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4));
        assertThat(problem.get("status").asInt()).isEqualTo(status(answer));
        return problem.get("detail").asText();
    }
}
