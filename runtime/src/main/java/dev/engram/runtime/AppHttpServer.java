package dev.engram.runtime;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import io.javalin.json.JavalinJackson;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server every Engram app runs (Javalin 6 on Jetty): health probes, Prometheus metrics, and
 * whatever routes the app adds (the retriever's API).
 *
 * <ul>
 *   <li>{@code GET /health/live} and {@code GET /health/ready}: 200 when the supplier says up, else
 *       503; body {@code {"status":"UP"|"DOWN","state":"<streams state>"}}.</li>
 *   <li>{@code GET /metrics}: the registry's {@code scrape()}, Prometheus text format 0.0.4.</li>
 *   <li>Every error is {@code application/problem+json} (RFC 9457) {@code {type,title,status,detail}}
 *       — unknown routes (404), {@link ApiProblem}s thrown by handlers, Javalin's own
 *       {@link HttpResponseException}s, and any other exception (500, detail without stack trace;
 *       the stack trace goes to the log).</li>
 * </ul>
 */
public final class AppHttpServer implements AutoCloseable {

    /** Content type of every error body. */
    public static final String PROBLEM_JSON = "application/problem+json";
    /** Content type of the Prometheus text exposition format. */
    public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private static final Logger LOG = LoggerFactory.getLogger(AppHttpServer.class);

    private final Javalin app;
    private final ObjectMapper json;
    private final int requestedPort;
    private volatile boolean started;

    /**
     * Health of one probe.
     *
     * @param up whether the probe passes
     * @param state a short reason shown in the body, e.g. the Kafka Streams state
     */
    public record Health(boolean up, String state) {
    }

    /**
     * Creates the server (not started).
     *
     * @param port TCP port, 0 for any free port
     * @param registry the registry scraped by {@code /metrics}
     * @param live liveness supplier
     * @param ready readiness supplier
     * @param routes adds the app's own routes (may be a no-op)
     */
    public AppHttpServer(final int port, final PrometheusMeterRegistry registry, final Supplier<Health> live,
                         final Supplier<Health> ready, final Consumer<Javalin> routes) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(live, "live");
        Objects.requireNonNull(ready, "ready");
        this.requestedPort = port;
        this.json = objectMapper();
        this.app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            config.startupWatcherEnabled = false;
            config.jsonMapper(new JavalinJackson(json, false));
        });
        app.get("/health/live", ctx -> health(ctx, live.get()));
        app.get("/health/ready", ctx -> health(ctx, ready.get()));
        app.get("/metrics", ctx -> ctx.contentType(PROMETHEUS_TEXT).result(registry.scrape()));
        app.exception(ApiProblem.class, (e, ctx) -> problem(ctx, e.status(), e.getMessage(), e.retryAfterSeconds()));
        app.exception(HttpResponseException.class, (e, ctx) -> problem(ctx, e.getStatus(), e.getMessage(), -1));
        app.exception(Exception.class, (e, ctx) -> {
            LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
            problem(ctx, 500, "The server could not answer this request.", -1);
        });
        // Unknown routes and any status set without a body end up here.
        app.error(404, ctx -> {
            if (!isProblem(ctx)) {
                problem(ctx, 404, "No resource at " + ctx.path(), -1);
            }
        });
        app.error(405, ctx -> {
            if (!isProblem(ctx)) {
                problem(ctx, 405, "Method " + ctx.method() + " is not allowed on " + ctx.path(), -1);
            }
        });
        routes.accept(app);
    }

    /**
     * A server with the health and metrics routes only.
     *
     * @param port TCP port, 0 for any free port
     * @param registry the registry scraped by {@code /metrics}
     * @param runner the runner whose state feeds the probes
     * @param routes the app's own routes
     * @return the server, not started
     */
    public static AppHttpServer forRunner(final int port, final PrometheusMeterRegistry registry,
                                          final StreamsRunner runner, final Consumer<Javalin> routes) {
        return new AppHttpServer(port, registry,
            () -> new Health(runner.isLive(), runner.state().name()),
            () -> new Health(runner.isReady(), runner.state().name()), routes);
    }

    /** @return the Jackson mapper used for bodies (ISO-8601 instants, no nulls dropped) */
    public static ObjectMapper objectMapper() {
        return new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    }

    /**
     * Starts listening.
     *
     * @return this
     */
    public AppHttpServer start() {
        app.start(requestedPort);
        started = true;
        LOG.info("HTTP listening on port {}", app.port());
        return this;
    }

    /**
     * @return the bound port (the free port chosen when configured with 0)
     * @throws IllegalStateException if not started
     */
    public int port() {
        if (!started) {
            throw new IllegalStateException("server not started");
        }
        return app.port();
    }

    /** @return the underlying Javalin, to add routes before start */
    public Javalin javalin() {
        return app;
    }

    /** Stops the server; idempotent. */
    @Override
    public void close() {
        app.stop();
    }

    private static void health(final Context ctx, final Health health) {
        ctx.status(health.up() ? 200 : 503).json(Map.of("status", health.up() ? "UP" : "DOWN",
            "state", health.state()));
    }

    private static boolean isProblem(final Context ctx) {
        final String type = ctx.res().getContentType();
        return type != null && type.startsWith(PROBLEM_JSON);
    }

    /**
     * Writes a problem body.
     *
     * @param ctx the request
     * @param status HTTP status
     * @param detail human-readable detail, never a stack trace
     * @param retryAfterSeconds value of Retry-After, or negative for none
     */
    private void problem(final Context ctx, final int status, final String detail, final long retryAfterSeconds) {
        final HttpStatus http = HttpStatus.forStatus(status);
        final Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "about:blank");
        body.put("title", http == HttpStatus.UNKNOWN ? "HTTP " + status : http.getMessage());
        body.put("status", status);
        body.put("detail", detail == null || detail.isBlank() ? body.get("title") : detail);
        if (retryAfterSeconds >= 0) {
            ctx.header("Retry-After", Long.toString(retryAfterSeconds));
        }
        try {
            ctx.status(status).contentType(PROBLEM_JSON).result(json.writeValueAsString(body));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            ctx.status(status).contentType(PROBLEM_JSON).result("{\"type\":\"about:blank\",\"status\":" + status + "}");
        }
    }
}
