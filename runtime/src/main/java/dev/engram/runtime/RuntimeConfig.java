package dev.engram.runtime;

import dev.engram.config.ConfigFields;
import dev.engram.config.ConfigFields.Importance;
import dev.engram.config.ConfigFields.Range;
import dev.engram.config.ConfigFields.Type;
import dev.engram.config.ConfigGroup;

/**
 * The settings what every app runs on owns ({@link ConfigGroup} {@code runtime}): the address every app's HTTP server
 * (API, health, metrics) listens on and the largest request body it reads. Registered as a service, composed onto
 * the core definition by {@code EngramConfig}; the keys are this class's constants.
 */
public final class RuntimeConfig implements ConfigGroup {

    /** Address every app's HTTP server listens on; loopback unless configured. */
    public static final String HTTP_BIND_ADDRESS = "http.bind.address";
    /** Largest request body every app's HTTP server reads, bytes; a larger one is a 413 naming this key. */
    public static final String HTTP_MAX_BODY_BYTES = "http.max.body.bytes";
    /** Javalin's own default, so that a deployment that never sets the key sees the limit it always had. */
    public static final int DEFAULT_MAX_BODY_BYTES = 1_000_000;
    /** How long an HTTP connection may stay silent before it is given up, ms. */
    public static final String HTTP_IDLE_TIMEOUT_MS = "http.idle.timeout.ms";
    /** Default of {@link #HTTP_IDLE_TIMEOUT_MS}: Javalin's (Jetty's) own, 30 s. */
    public static final int DEFAULT_IDLE_TIMEOUT_MS = 30_000;

    /** Called by the service loader ({@code META-INF/services/dev.engram.config.ConfigGroup}). */
    public RuntimeConfig() {
        // the keys are constants; the declaration is {@link #define}
    }

    @Override
    public String name() {
        return "runtime";
    }

    @Override
    public void define(final ConfigFields fields) {
        fields
            .define(HTTP_BIND_ADDRESS, Type.STRING, "127.0.0.1", Importance.HIGH,
                "Address the HTTP servers of every app (API, health, metrics) listen on: loopback by default, so nothing "
                    + "is reachable from another machine; 0.0.0.0 for every interface (containers, Kubernetes).")
            .define(HTTP_MAX_BODY_BYTES, Type.INT, DEFAULT_MAX_BODY_BYTES, Range.between(1024, 256 * 1024 * 1024),
                Importance.LOW,
                "Largest request body (bytes, as sent: chunked or with a Content-Length) the HTTP servers read; a larger "
                    + "one is answered 413 naming this limit, before any route runs. Every body is held in memory while "
                    + "it is handled. A conversation POSTed to the retriever is also bounded by input.max.record.bytes "
                    + "(its Avro record), which a body under this limit rarely reaches.")
            .define(HTTP_IDLE_TIMEOUT_MS, Type.INT, DEFAULT_IDLE_TIMEOUT_MS, Range.between(1_000, 3_600_000),
                Importance.LOW,
                "How long (ms) an HTTP connection may stay silent (no byte of an awaited request or body received, "
                    + "nothing of a response sent) before it is given up. A body that stops coming — fewer bytes than "
                    + "its Content-Length or its chunk size declared, the connection left open — is answered 408 "
                    + "naming this setting once it has passed: the server cannot tell a slow client from a truncated "
                    + "body until then (a connection the client closes, or half-closes, gets its 400 at once).");
    }
}
