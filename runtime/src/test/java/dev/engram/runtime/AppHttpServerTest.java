package dev.engram.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AppHttpServerTest {

    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private final AtomicBoolean up = new AtomicBoolean(false);
    private PrometheusMeterRegistry registry;
    private AppHttpServer server;

    @BeforeEach
    void start() {
        registry = AppMetrics.registry("engram-test", "test-host");
        registry.counter("engram.test.events").increment();
        server = new AppHttpServer(0, registry,
            () -> new AppHttpServer.Health(true, "RUNNING"),
            () -> new AppHttpServer.Health(up.get(), up.get() ? "RUNNING" : "REBALANCING"),
            app -> {
                app.get("/boom", ctx -> {
                    throw new IllegalStateException("secret internals");
                });
                app.get("/bad", ctx -> {
                    throw ApiProblem.badRequest("k must be a number");
                });
                app.get("/later", ctx -> {
                    throw ApiProblem.unavailable("stores are restoring", 2);
                });
                app.get("/unicode", ctx -> {
                    throw ApiProblem.badRequest("user Zoë 北京 \uD83C\uDF1F is unknown");
                });
                app.put("/unicode", ctx -> ctx.result("ok"));
                app.put("/put-only", ctx -> ctx.result("ok"));
                app.get("/users/{user}", ctx -> {
                    throw ApiProblem.notFound("user " + ctx.pathParam("user") + " is unknown");
                });
                app.get("/users/{user}/search", ctx -> ctx.result(String.valueOf(ctx.queryParam("query"))));
            }).queryParameters(java.util.Map.of("GET /users/{user}/search", java.util.Set.of("query", "k"))).start();
    }

    @AfterEach
    void stop() {
        server.close();
        registry.close();
    }

    @Test
    void shouldBindAFreePortWhenConfiguredWithZero() {
        assertThat(server.port()).isPositive();
    }

    @Test
    void shouldReportReadyOnlyWhenTheSupplierSaysSo() throws Exception {
        HttpResponse<String> ready = get("/health/ready");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(json.readTree(ready.body()).get("status").asText()).isEqualTo("DOWN");
        assertThat(json.readTree(ready.body()).get("state").asText()).isEqualTo("REBALANCING");

        up.set(true);
        ready = get("/health/ready");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(json.readTree(ready.body()).get("status").asText()).isEqualTo("UP");
        assertThat(get("/health/live").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldServePrometheusTextWithCommonTagsWhenScraped() throws Exception {
        final HttpResponse<String> metrics = get("/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        assertThat(metrics.body()).contains("engram_test_events_total{application=\"engram-test\",host=\"test-host\"}");
        assertThat(metrics.body()).contains("jvm_memory_used_bytes");
    }

    @Test
    void shouldAnswerProblemJsonWhenTheRouteIsUnknown() throws Exception {
        final HttpResponse<String> response = get("/nope");
        assertProblem(response, 404);
    }

    @Test
    void shouldAnswerProblemJsonWithoutStackTraceWhenAHandlerFails() throws Exception {
        final HttpResponse<String> response = get("/boom");
        assertProblem(response, 500);
        assertThat(response.body()).doesNotContain("secret internals").doesNotContain("at dev.engram");
    }

    @Test
    void shouldAnswerTheThrownProblemWhenAHandlerRejectsTheRequest() throws Exception {
        final HttpResponse<String> response = get("/bad");
        final JsonNode body = assertProblem(response, 400);
        assertThat(body.get("detail").asText()).isEqualTo("k must be a number");
        assertThat(body.get("title").asText()).isEqualTo("Bad Request");
    }

    @Test
    void shouldSetRetryAfterWhenUnavailable() throws Exception {
        final HttpResponse<String> response = get("/later");
        assertProblem(response, 503);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("2");
    }

    @Test
    void shouldAnswer405WithAllowWhenTheMethodIsNotAllowed() throws Exception {
        final HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri("/metrics"))
            .DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertProblem(response, 405);
        assertThat(response.headers().firstValue("Allow")).hasValue("GET, HEAD");

        final HttpResponse<String> post = http.send(HttpRequest.newBuilder(uri("/unicode"))
            .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertProblem(post, 405);
        assertThat(post.headers().firstValue("Allow")).hasValueSatisfying(a ->
            assertThat(a.split(",\\s*")).containsExactlyInAnyOrder("GET", "HEAD", "PUT"));
    }

    @Test
    void shouldNameTheMethodSentWhenItIsNotOneJavalinKnows() throws Exception {
        // Javalin maps a method it does not know to INVALID: the answer said "Method INVALID is not allowed"
        final HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri("/metrics"))
            .method("FOO", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        final JsonNode body = assertProblem(response, 405);
        assertThat(body.get("detail").asText()).startsWith("Method FOO is not allowed on /metrics").doesNotContain("INVALID");
    }

    @Test
    void shouldAnswerHeadLikeGetWithoutABodyAndWith405WhereThereIsNoGet() throws Exception {
        up.set(true);
        for (final String path : new String[] {"/health/ready", "/metrics", "/bad", "/later", "/no-such-route"}) {
            final HttpResponse<String> get = get(path);
            final HttpResponse<String> head = http.send(HttpRequest.newBuilder(uri(path))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(head.statusCode()).as(path).isEqualTo(get.statusCode());
            assertThat(head.headers().firstValue("Content-Type")).as(path).isEqualTo(get.headers().firstValue("Content-Type"));
            assertThat(head.body()).as(path).isEmpty();
            assertThat(get.body()).as(path).isNotEmpty();
        }
        final HttpResponse<String> headPutOnly = http.send(HttpRequest.newBuilder(uri("/put-only"))
            .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(headPutOnly.statusCode()).isEqualTo(405);
        assertThat(headPutOnly.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith(AppHttpServer.PROBLEM_JSON));
        assertThat(headPutOnly.headers().firstValue("Allow")).hasValue("PUT");
        assertThat(headPutOnly.body()).isEmpty();
    }

    @Test
    void shouldKeepUtf8InTheDetailWhenTheMessageIsNotAscii() throws Exception {
        final HttpResponse<String> response = get("/unicode");

        assertThat(assertProblem(response, 400).get("detail").asText()).isEqualTo("user Zoë 北京 \uD83C\uDF1F is unknown");
    }

    @Test
    void shouldAnswer400ProblemWhenPercentEncodingIsMalformed() throws Exception {
        // java.net.URI refuses such targets, so they go over a plain socket
        final String malformed = raw("/health/live?query=%zz");
        assertThat(malformed).startsWith("HTTP/1.1 400").contains("Content-Type: " + AppHttpServer.PROBLEM_JSON)
            .contains("percent-encoding").contains("query string");
        assertThat(raw("/health/live?query=abc%2")).startsWith("HTTP/1.1 400").contains("percent-encoding");
        assertThat(raw("/health/%zzlive")).startsWith("HTTP/1.1 400").contains(AppHttpServer.PROBLEM_JSON);
        assertThat(raw("/users/ana/search?query=a%20b")).startsWith("HTTP/1.1 200").endsWith("a b");
    }

    @Test
    void shouldAnswer400NamingTheUnknownQueryParameterAndTheRoutesOwnWhenARequestNamesAnother() throws Exception {
        final JsonNode misspelt = assertProblem(get("/users/ana/search?query=kotlin&limit=3"), 400);
        assertThat(misspelt.get("detail").asText()).isEqualTo("Unknown query parameter 'limit' on GET "
            + "/users/{user}/search; this route reads: k, query");
        final JsonNode two = assertProblem(get("/users/ana/search?zeta=1&alpha=2&k=3"), 400);
        assertThat(two.get("detail").asText()).startsWith("Unknown query parameters 'alpha', 'zeta' on GET");
        final JsonNode health = assertProblem(get("/health/live?verbose=true"), 400);
        assertThat(health.get("detail").asText()).isEqualTo("Unknown query parameter 'verbose' on GET /health/live; "
            + "this route reads no query parameters");
        assertProblem(get("/metrics?name=x"), 400);
        // HEAD is checked as its GET: the same status, no body
        final HttpResponse<String> head = http.send(HttpRequest.newBuilder(uri("/users/ana/search?limit=3"))
            .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(head.statusCode()).isEqualTo(400);
    }

    @Test
    void shouldAnswer400NamingTheParameterWhenAQueryGivesOneTwice() throws Exception {
        final JsonNode twice = assertProblem(get("/users/ana/search?query=kotlin&k=3&k=5"), 400);

        assertThat(twice.get("detail").asText()).isEqualTo("Query parameter 'k' given more than once on GET "
            + "/users/{user}/search; give each once");
    }

    @Test
    void shouldAnswer400NamingTheSegmentWhenAQueryGivesAValueWithoutAName() throws Exception {
        final JsonNode nameless = assertProblem(get("/users/ana/search?=x"), 400);
        assertThat(nameless.get("detail").asText()).isEqualTo("Query parameter without a name ('=x') on GET "
            + "/users/{user}/search; this route reads: k, query");
        assertThat(assertProblem(get("/users/ana/search?query=kotlin&=3"), 400).get("detail").asText())
            .startsWith("Query parameter without a name ('=3')");
        assertThat(assertProblem(get("/health/live?="), 400).get("detail").asText())
            .isEqualTo("Query parameter without a name ('=') on GET /health/live; this route reads no query parameters");
    }

    @Test
    void shouldAnswerTheDeclaredQueryParametersAndIgnoreAnEmptyNameWhenNothingElseIsNamed() throws Exception {
        final HttpResponse<String> both = get("/users/ana/search?query=kotlin&k=3&");

        assertThat(both.statusCode()).as(both.body()).isEqualTo(200);
        assertThat(both.body()).isEqualTo("kotlin");
        assertThat(get("/health/live?").statusCode()).isEqualTo(200);
        assertThat(get("/users/ana/search?&query=kotlin&&k=3").statusCode()).as("empty segments").isEqualTo(200);
        // no route: the 404 wins over the parameter
        assertProblem(get("/nowhere?limit=3"), 404);
    }

    @Test
    void shouldAnswerProblemJsonWhenJettyRefusesTheRequestBeforeAnyRoute() throws Exception {
        assertProblem(get("/health/" + "x".repeat(20_000)), 414);
        final HttpResponse<String> headers = http.send(HttpRequest.newBuilder(uri("/health/live"))
            .header("X-Big", "y".repeat(20_000)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertProblem(headers, 431);
        assertProblem(get("/health/live%00"), 400);
    }

    @Test
    void shouldListenOnLoopbackOnlyWhenNoAddressIsConfigured() throws Exception {
        final java.net.InetAddress external = nonLoopbackAddress();
        org.junit.jupiter.api.Assumptions.assumeTrue(external != null, "this machine has no non-loopback address");

        try (java.net.Socket socket = new java.net.Socket()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() ->
                    socket.connect(new java.net.InetSocketAddress(external, server.port()), 2000))
                .isInstanceOf(java.io.IOException.class);
        }
        assertThat(get("/health/live").statusCode()).isEqualTo(200);
        assertThat(AppHttpServer.isLoopback("127.0.0.1")).isTrue();
        assertThat(AppHttpServer.isLoopback("localhost")).isTrue();
        assertThat(AppHttpServer.isLoopback("0.0.0.0")).isFalse();
    }

    /**
     * A path id whose encoded bytes are not UTF-8 was decoded to U+FFFD and answered 404 for user "�"; a
     * query parameter the same way was dropped or searched as "�". Each is a 400 naming the bad bytes.
     */
    @Test
    void shouldAnswer400NamingTheBytesWhenThePathOrQueryIsNotUtf8() throws Exception {
        assertThat(detail(raw("/users/%ED%A0%80"))).contains("Invalid UTF-8 in the path at character 8 (%ED%A0%80)")
            .contains("lone surrogate");
        assertThat(detail(raw("/users/%FF"))).contains("Invalid UTF-8 in the path", "(%FF)", "0xFF");
        assertThat(detail(raw("/users/a%C3%28b"))).contains("Invalid UTF-8 in the path at character 9 (%C3%28)");
        assertThat(detail(raw("/users/x?query=caf%C3"))).contains("Invalid UTF-8 in the query string", "(%C3)");
        assertThat(raw("/users/%ED%A0%80")).startsWith("HTTP/1.1 400").contains(AppHttpServer.PROBLEM_JSON);
        // valid UTF-8 still reaches the route: an emoji (a surrogate pair, four bytes) and an encoded slash
        assertThat(detail(raw("/users/%F0%9F%8C%9F"))).isEqualTo("user \uD83C\uDF1F is unknown");
        assertThat(raw("/users/Zo%C3%AB")).startsWith("HTTP/1.1 404");
        assertThat(raw("/users/Zo%C3%AB/search?query=a%0Ab")).startsWith("HTTP/1.1 200").endsWith("a\nb");
    }

    /** Jetty refuses these before any route with a bare "Bad Request"; the detail now says what is wrong. */
    @Test
    void shouldSayWhatIsWrongWhenJettyRefusesABadPath() throws Exception {
        assertThat(detail(raw("/health/%zzlive"))).isEqualTo("Malformed percent-encoding in the path (at character 9):"
            + " every % must be followed by two hexadecimal digits");
        assertThat(detail(raw("/health/live%00"))).isEqualTo("A control character (NUL, U+0000, encoded as %00) in the"
            + " path at character 13: identifiers cannot contain control characters");
        assertThat(detail(raw("/users/x%zz"))).contains("Malformed percent-encoding in the path (at character 9)");
    }

    /** @return the problem detail of a raw answer (its body after the blank line) */
    private String detail(final String answer) throws Exception {
        final String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
        final JsonNode problem = json.readTree(body);
        assertThat(problem.get("status").asInt()).as(answer).isBetween(400, 499);
        return problem.get("detail").asText();
    }

    /** @return the whole answer to {@code GET target} sent as it is over a socket */
    private String raw(final String target) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** @return an address of this machine that is not loopback, or null */
    static java.net.InetAddress nonLoopbackAddress() throws java.net.SocketException {
        for (final java.net.NetworkInterface nic : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
            if (!nic.isUp() || nic.isLoopback()) {
                continue;
            }
            for (final java.net.InetAddress address : java.util.Collections.list(nic.getInetAddresses())) {
                if (address instanceof java.net.Inet4Address) {
                    return address;
                }
            }
        }
        return null;
    }

    private JsonNode assertProblem(final HttpResponse<String> response, final int status) throws Exception {
        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
            t -> assertThat(t).startsWith(AppHttpServer.PROBLEM_JSON));
        final JsonNode body = json.readTree(response.body());
        assertThat(body.get("type").asText()).isNotBlank();
        assertThat(body.get("title").asText()).isNotBlank();
        assertThat(body.get("status").asInt()).isEqualTo(status);
        assertThat(body.get("detail").asText()).isNotBlank();
        return body;
    }

    private URI uri(final String path) {
        return URI.create("http://localhost:" + server.port() + path);
    }

    private HttpResponse<String> get(final String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
}
