package dev.engram.runtime;

import java.util.Collection;
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
 *   <li>Every error is {@code application/problem+json} (RFC 9457) {@code {type,title,status,detail}},
 *       UTF-8 — unknown routes (404), a known path with another method (405 with {@code Allow}),
 *       {@link ApiProblem}s thrown by handlers, Javalin's own {@link HttpResponseException}s, any other
 *       exception (500, detail without stack trace; the stack trace goes to the log), malformed
 *       percent-encoding, a control character or encoded bytes that are not UTF-8 in the path or query
 *       (400 naming the fault, instead of a parameter silently dropped or a U+FFFD id), and what
 *       Jetty answers before any route runs: a URI too long (414), headers too large (431), a request
 *       it cannot parse (400) — through {@link ProblemErrorHandler}.</li>
 *   <li>HEAD answers like GET without a body on every GET route (the app's too); elsewhere 405 with
 *       {@code Allow}.</li>
 *   <li>Query parameters are strict like bodies: a route reads the ones {@link #queryParameters declared} for it
 *       (health and metrics none), any other is a 400 naming it and the ones the route reads. A body larger than
 *       {@link #maxBodyBytes} ({@code http.max.body.bytes}), declared or chunked, is a 413 naming the limit.</li>
 *   <li>It listens on {@link #bindTo(String) one address}, loopback ({@value #LOOPBACK}) unless told
 *       otherwise: nothing is reachable from another machine by default.</li>
 * </ul>
 */
public final class AppHttpServer implements AutoCloseable {

    /** Content type of every error body. */
    public static final String PROBLEM_JSON = "application/problem+json";
    /** Content type of the Prometheus text exposition format. */
    public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    /** The address every server binds unless {@link #bindTo} says otherwise. */
    public static final String LOOPBACK = "127.0.0.1";

    private static final Logger LOG = LoggerFactory.getLogger(AppHttpServer.class);

    private final Javalin app;
    private final ObjectMapper json;
    private final int requestedPort;
    private volatile String host = LOOPBACK;
    private volatile long idleTimeoutMs = RuntimeConfig.DEFAULT_IDLE_TIMEOUT_MS;
    private volatile long maxBodyBytes = RuntimeConfig.DEFAULT_MAX_BODY_BYTES;
    private final QueryParameterCheck queryParameterCheck = new QueryParameterCheck();
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
        final ProblemErrorHandler jettyErrors = new ProblemErrorHandler(json);
        this.app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            config.startupWatcherEnabled = false;
            config.jsonMapper(new JavalinJackson(json, false));
            // a known path asked with another method is a 405 (with Allow), not a 404
            config.http.prefer405over404 = true;
            config.jetty.modifyServer(server -> server.setErrorHandler(jettyErrors));
            config.jetty.modifyServletContextHandler(handler -> {
                handler.setErrorHandler(jettyErrors);
                // counts what a chunked body (no Content-Length to check up front) delivers against the limit
                handler.addFilter(new org.eclipse.jetty.servlet.FilterHolder(new BodyLimitFilter(() -> maxBodyBytes)),
                    "/*", java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
            });
            // the one connector, on the address and port of start(): Jetty's, naming what is wrong with a bad target
            config.jetty.addConnector((server, http) -> {
                final org.eclipse.jetty.server.ServerConnector connector =
                    new org.eclipse.jetty.server.ServerConnector(server, new TargetCheckingConnectionFactory(http));
                connector.setHost(host);
                connector.setPort(requestedPort);
                connector.setIdleTimeout(idleTimeoutMs);
                return connector;
            });
        });
        app.before(AppHttpServer::rejectMalformedEncoding);
        app.before(new WholeBodyReader(() -> maxBodyBytes, () -> idleTimeoutMs)::read);
        app.beforeMatched(queryParameterCheck::check);
        app.get("/health/live", ctx -> health(ctx, live.get()));
        app.get("/health/ready", ctx -> health(ctx, ready.get()));
        app.get("/metrics", ctx -> ctx.contentType(PROMETHEUS_TEXT).result(registry.scrape()));
        app.exception(ApiProblem.class, (e, ctx) -> problem(ctx, e.status(), e.getMessage(), e.retryAfterSeconds()));
        app.exception(HttpResponseException.class, (e, ctx) -> {
            if (e.getStatus() == 405) {
                allow(ctx, e.getDetails().get("availableMethods"));
                problem(ctx, 405, "Method " + ctx.req().getMethod() + " is not allowed on " + ctx.path()
                    + "; allowed: " + ctx.res().getHeader("Allow"), -1);
                return;
            }
            problem(ctx, e.getStatus(), e.getMessage(), -1);
        });
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
                problem(ctx, 405, "Method " + ctx.req().getMethod() + " is not allowed on " + ctx.path(), -1);
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
     * Chooses the address to listen on (before {@link #start()}); {@value #LOOPBACK} when never called.
     *
     * @param address an IP address or host name, {@code 0.0.0.0} for every interface
     * @return this
     */
    public AppHttpServer bindTo(final String address) {
        this.host = Objects.requireNonNull(address, "address");
        return this;
    }

    /**
     * @param address a bind address
     * @return true when only this machine can reach it (a loopback address, or a name resolving to one)
     */
    public static boolean isLoopback(final String address) {
        try {
            return java.net.InetAddress.getByName(address).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /**
     * The settings of {@link RuntimeConfig} (before {@link #start()}): the bind address ({@code http.bind.address}),
     * the largest body ({@code http.max.body.bytes}) and the idle timeout ({@code http.idle.timeout.ms}).
     *
     * @param config the app's configuration
     * @return this
     */
    public AppHttpServer configure(final dev.engram.config.EngramConfig config) {
        return bindTo(config.getString(RuntimeConfig.HTTP_BIND_ADDRESS))
            .maxBodyBytes(config.getInt(RuntimeConfig.HTTP_MAX_BODY_BYTES))
            .idleTimeout(java.time.Duration.ofMillis(config.getInt(RuntimeConfig.HTTP_IDLE_TIMEOUT_MS)));
    }

    /**
     * Sets the largest request body read (before {@link #start()}); {@value RuntimeConfig#DEFAULT_MAX_BODY_BYTES}
     * bytes unless told otherwise. A larger body is a 413 whose detail names the limit and {@code
     * http.max.body.bytes}: at once when its {@code Content-Length} says so, once that many bytes have come when it
     * is chunked ({@link WholeBodyReader}).
     *
     * @param bytes the limit, positive
     * @return this
     */
    public AppHttpServer maxBodyBytes(final long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("max body bytes must be positive: " + bytes);
        }
        this.maxBodyBytes = bytes;
        // Javalin's own check (Content-Length only) then agrees; ours runs first and names the limit
        app.unsafeConfig().http.maxRequestSize = bytes;
        return this;
    }

    /**
     * Declares the query parameters each route reads (before {@link #start()}); a request naming another one is a
     * 400 whose detail names the unknown parameters and the ones the route reads ({@link QueryParameterCheck}), so
     * that a misspelt {@code limit=} for {@code k=} is not answered as if it were absent. HEAD is checked as GET. Routes not named here (health,
     * metrics, anything the app did not declare) read none.
     *
     * @param byOperation {@code METHOD path-template} as registered (e.g. {@code GET /v1/tenants/{tenant}/usage}) →
     *     the parameter names
     * @return this
     */
    public AppHttpServer queryParameters(final Map<String, ? extends Collection<String>> byOperation) {
        queryParameterCheck.declare(byOperation);
        return this;
    }

    /**
     * Sets how long a connection may stay silent (no byte received while a request or its body is awaited,
     * nothing sent while a response is written) before it is given up (before {@link #start()}); 30 s
     * unless told otherwise ({@code http.idle.timeout.ms}), Javalin's default. A request whose body stops coming (fewer
     * bytes than its {@code Content-Length} or a chunk's size declared, the connection left open) is answered 408
     * naming the wait and the setting, and its route never runs ({@link WholeBodyReader}): until then the server
     * cannot tell a slow client from a truncated body. A connection closed or half-closed inside the body gets its
     * 400 at once (closed: nobody to answer); either way nothing of the body reaches a route.
     *
     * @param timeout the idle timeout, positive
     * @return this
     */
    public AppHttpServer idleTimeout(final java.time.Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("idle timeout must be positive: " + timeout);
        }
        this.idleTimeoutMs = timeout.toMillis();
        return this;
    }

    /**
     * Starts listening on the chosen address.
     *
     * @return this
     */
    public AppHttpServer start() {
        answerHeadLikeGet();
        app.start(host, requestedPort);
        started = true;
        LOG.info("HTTP listening on {}:{}", host, app.port());
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

    /**
     * Gives every GET route a HEAD route running the same handler, so HEAD answers exactly as GET would
     * (status, {@code Content-Type}, {@code Content-Length}, problem+json on errors) with no body: Jetty
     * sends no content for HEAD (RFC 9110 §9.3.2). Without this, Javalin answers HEAD on a GET path with a
     * bare 200 {@code text/plain} whatever GET would say. A path without GET answers HEAD with 405 and
     * {@code Allow}, as any other method it lacks.
     */
    private void answerHeadLikeGet() {
        final io.javalin.router.InternalRouter router = app.unsafeConfig().pvt.internalRouter;
        router.allHttpHandlers().stream().map(io.javalin.router.ParsedEndpoint::getEndpoint)
            .filter(e -> e.getMethod() == io.javalin.http.HandlerType.GET
                && !router.hasHttpHandlerEntry(io.javalin.http.HandlerType.HEAD, e.getPath()))
            .toList()
            .forEach(e -> app.addHttpHandler(io.javalin.http.HandlerType.HEAD, e.getPath(), e.getHandler(),
                e.getRoles().toArray(new io.javalin.security.RouteRole[0])));
    }

    /** Sets {@code Allow} from Javalin's list of the methods the path has (e.g. {@code [GET, PUT]}). */
    private static void allow(final Context ctx, final String availableMethods) {
        if (availableMethods != null) {
            ctx.header("Allow", String.join(", ", availableMethods.replaceAll("[\\[\\]\\s]", "").split(",")));
        }
    }

    /**
     * A bad raw path or query ({@link RequestTarget}: malformed percent-encoding, a control character,
     * encoded bytes that are not UTF-8) is a 400 naming the fault: Jetty and Javalin would otherwise drop
     * the parameter ({@code query=%zz} gave the whole memory list) or decode it to U+FFFD and answer for
     * another id (404).
     */
    private static void rejectMalformedEncoding(final Context ctx) {
        String problem = RequestTarget.problem(ctx.req().getRequestURI(), RequestTarget.PATH);
        if (problem == null) {
            problem = RequestTarget.problem(ctx.queryString(), RequestTarget.QUERY);
        }
        if (problem != null) {
            throw ApiProblem.badRequest(problem);
        }
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
        if (retryAfterSeconds >= 0) {
            ctx.header("Retry-After", Long.toString(retryAfterSeconds));
        }
        // bytes, not a String: Jetty would encode a String as ISO-8859-1 and turn every non-Latin character into '?'
        ctx.status(status).contentType(PROBLEM_JSON).result(problemBody(json, status, detail));
    }

    /**
     * @param json the mapper
     * @param status HTTP status
     * @param detail the detail, or null for the title
     * @return the RFC 9457 body {@code {type,title,status,detail}} as UTF-8
     */
    static byte[] problemBody(final ObjectMapper json, final int status, final String detail) {
        final HttpStatus http = HttpStatus.forStatus(status);
        final Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "about:blank");
        body.put("title", http == HttpStatus.UNKNOWN ? "HTTP " + status : http.getMessage());
        body.put("status", status);
        body.put("detail", detail == null || detail.isBlank() ? body.get("title") : detail);
        try {
            return json.writeValueAsBytes(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return ("{\"type\":\"about:blank\",\"status\":" + status + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
    }
}
