package dev.engram.retriever;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.javalin.http.Context;

/**
 * The HTTP rules of MCP's streamable HTTP transport (specification 2025-11-25, "Transports") that {@link McpEndpoint}
 * applies before a message reaches the SDK:
 *
 * <ul>
 *   <li><b>Protocol versions</b> ({@link #VERSIONS}, oldest first). An {@code initialize} asking for one of them gets
 *       that version back, any other the latest (lifecycle, "Version negotiation"); a request whose
 *       {@code MCP-Protocol-Version} header names a version not in the list (or no version at all) is a 400.</li>
 *   <li><b>Origin</b> (DNS rebinding protection, "Security Warning": the demo runs without API keys, and a page a
 *       browser visits could rebind its host name to 127.0.0.1). A request without {@code Origin} (every non-browser
 *       client) passes; a browser's is allowed when its host is loopback ({@code localhost}, {@code 127.0.0.0/8},
 *       {@code [::1]}, any port) or it is one of {@code retriever.mcp.allowed.origins}; any other is a 403. The
 *       request's {@code Host} is not consulted: a rebinding page makes it agree with its origin.</li>
 *   <li><b>Accept</b> ("Sending Messages to the Server": the client MUST list both {@code application/json} and
 *       {@code text/event-stream}). A POST without the header is a 400, one whose header lacks either type a 406 (Not
 *       Acceptable), each with an Invalid Request (−32600) naming the header and what it must list. The SDK's own check
 *       answered both with a 400 and −32601, "Method not found", which sent a client looking for a wrong method name.
 *       A wildcard ({@code *}{@code /*}) or another case does not list them: the check is the SDK's, made first to
 *       answer it right.</li>
 *   <li><b>CORS</b> for an allowed browser origin: the answer names the origin in
 *       {@code Access-Control-Allow-Origin} (never {@code *}: requests carry credentials), and a preflight
 *       ({@code OPTIONS /mcp}) lists the method and the headers an MCP client sends.</li>
 * </ul>
 */
final class McpHttpRules {

    /** The protocol versions served, oldest first; the last is the one offered to a client asking for another. */
    static final List<String> VERSIONS = List.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25");
    /** The request header naming the negotiated protocol version. */
    static final String VERSION_HEADER = "MCP-Protocol-Version";
    /** Headers an MCP client may send, allowed by a preflight. */
    static final String ALLOWED_HEADERS = "Content-Type, Accept, Authorization, X-Api-Key, MCP-Protocol-Version, "
        + "Mcp-Session-Id, Last-Event-ID";
    /** Headers of an answer a browser client may read. */
    static final String EXPOSED_HEADERS = "Mcp-Session-Id, MCP-Protocol-Version";

    private final Set<String> allowedOrigins;

    /**
     * @param allowedOrigins origins ({@code scheme://host[:port]}) allowed besides the loopback ones; {@code *} allows
     *     every origin (only sensible with API keys on)
     */
    McpHttpRules(final List<String> allowedOrigins) {
        this.allowedOrigins = Set.copyOf(allowedOrigins.stream().map(McpHttpRules::normalized).toList());
    }

    /**
     * @param origin the {@code Origin} header, or null
     * @return whether a request with it may reach the endpoint: no origin, a loopback one, or a configured one
     */
    boolean allows(final String origin) {
        if (origin == null) {
            return true;
        }
        if (allowedOrigins.contains("*") || allowedOrigins.contains(normalized(origin))) {
            return true;
        }
        try {
            final URI uri = new URI(origin.strip());
            final String host = uri.getHost();
            return ("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))
                && host != null && loopback(host);
        } catch (URISyntaxException e) {
            return false;
        }
    }

    /**
     * @param version the {@code MCP-Protocol-Version} header, or null
     * @return whether it is absent (a client of 2025-03-26 or older need not send it) or names a version served
     */
    static boolean validVersion(final String version) {
        return version == null || VERSIONS.contains(version.strip());
    }

    /** Why a POST is refused for its {@code Accept} header: the HTTP status and the JSON-RPC error's message. */
    record Refusal(int status, String message) {
    }

    /**
     * @param accept the {@code Accept} header of a POST, or null
     * @return the refusal when it is absent (400) or does not list both {@code application/json} and
     *     {@code text/event-stream} with a quality above 0 (406); empty when it lists both
     */
    static java.util.Optional<Refusal> unacceptable(final String accept) {
        final String both = "an MCP client lists both application/json and text/event-stream in Accept (Streamable HTTP "
            + "transport, \"Sending Messages to the Server\"); this server answers application/json";
        if (accept == null || accept.isBlank()) {
            return java.util.Optional.of(new Refusal(400, "Bad Request: no Accept header: " + both));
        }
        // as the SDK's transport checks it after this (literally, case included), so nothing passes here that it refuses;
        // and each listed with a quality above 0 (RFC 9110 §12.4.2: q=0 is "not acceptable")
        if (accept.contains("application/json") && accept.contains("text/event-stream")
            && acceptedTypes(accept).containsAll(java.util.List.of("application/json", "text/event-stream"))) {
            return java.util.Optional.empty();
        }
        final String shown = accept.length() > 80 ? accept.substring(0, 80) + "…" : accept;
        return java.util.Optional.of(new Refusal(406, "Not Acceptable: Accept \"" + shown + "\": " + both));
    }

    /**
     * @param accept an {@code Accept} header
     * @return the media types it accepts, lower case without parameters: those of quality above 0, as Jetty's
     *     {@link org.eclipse.jetty.http.QuotedQualityCSV} parses the header (quoted strings, {@code q} weights; a value
     *     of {@code q=0} is left out)
     */
    static java.util.Set<String> acceptedTypes(final String accept) {
        final org.eclipse.jetty.http.QuotedQualityCSV values = new org.eclipse.jetty.http.QuotedQualityCSV();
        values.addValue(accept);
        final java.util.Set<String> types = new java.util.HashSet<>();
        for (final String value : values.getValues()) {
            final int parameters = value.indexOf(';');
            types.add((parameters < 0 ? value : value.substring(0, parameters)).strip().toLowerCase(java.util.Locale.ROOT));
        }
        return types;
    }

    /**
     * Adds the CORS headers of an allowed browser origin to the answer; nothing without an {@code Origin}.
     *
     * @param ctx the request, whose origin {@link #allows} allowed
     */
    static void cors(final Context ctx) {
        final String origin = ctx.header("Origin");
        if (origin != null) {
            ctx.header("Access-Control-Allow-Origin", origin);
            ctx.header("Access-Control-Expose-Headers", EXPOSED_HEADERS);
            ctx.header("Vary", "Origin");
        }
    }

    /**
     * Answers a preflight ({@code OPTIONS /mcp}) of an allowed origin: 204 with the method and headers allowed.
     *
     * @param ctx the request
     */
    static void preflight(final Context ctx) {
        cors(ctx);
        ctx.header("Allow", "POST, OPTIONS");
        ctx.header("Access-Control-Allow-Methods", "POST, OPTIONS");
        ctx.header("Access-Control-Allow-Headers", ALLOWED_HEADERS);
        ctx.header("Access-Control-Max-Age", "600");
        ctx.status(204);
    }

    private static boolean loopback(final String host) {
        final String h = host.toLowerCase(Locale.ROOT);
        return h.equals("localhost") || h.equals("[::1]") || h.equals("::1")
            || h.matches("127(\\.\\d{1,3}){3}");
    }

    private static String normalized(final String origin) {
        final String o = origin.strip().toLowerCase(Locale.ROOT);
        return o.endsWith("/") ? o.substring(0, o.length() - 1) : o;
    }
}
