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
            }).start();
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
        assertThat(metrics.body()).contains("engram_test_events_total{application=\"engram-test\",instance=\"test-host\"}");
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
    void shouldAnswerProblemJsonWhenTheMethodIsNotAllowed() throws Exception {
        final HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri("/metrics"))
            .DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isIn(404, 405);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
            t -> assertThat(t).startsWith(AppHttpServer.PROBLEM_JSON));
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
