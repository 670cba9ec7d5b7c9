package dev.engram.serde;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaParseException;

/**
 * An in-process double of a Confluent Schema Registry, for tests: no registry server can be run here (Confluent's
 * artifacts are not served; Apicurio Registry's app jar is an un-augmented Quarkus application). It follows the
 * Confluent "Schema Registry API Reference" for the calls a producer, a consumer and an operator make, with its
 * status codes, {@code error_code}s and content type:
 *
 * <table>
 *   <caption>served</caption>
 *   <tr><td>{@code POST /subjects/{s}/versions}</td><td>{@code {"id"}}; the same schema again answers the same id;
 *       the same schema under another subject reuses the id; 409 (409) incompatible; 422 (42201) invalid</td></tr>
 *   <tr><td>{@code POST /subjects/{s}}</td><td>look up a schema: {@code {"subject","id","version","schema"}}; 404 40401 / 40403</td></tr>
 *   <tr><td>{@code GET /schemas/ids/{id}}</td><td>{@code {"schema"}}; 404 40403</td></tr>
 *   <tr><td>{@code GET /subjects}, {@code GET /subjects/{s}/versions}</td><td>names, versions; 404 40401</td></tr>
 *   <tr><td>{@code GET /subjects/{s}/versions/{v|latest}}</td><td>{@code {"subject","id","version","schema"}}; 404 40401 / 40402</td></tr>
 *   <tr><td>{@code POST /compatibility/subjects/{s}/versions/latest}</td><td>{@code {"is_compatible"}}</td></tr>
 *   <tr><td>{@code GET|PUT /config}, {@code GET|PUT /config/{s}}</td><td>{@code {"compatibilityLevel"}} / {@code {"compatibility"}};
 *       a subject without its own level: 404 40408</td></tr>
 * </table>
 * Compatibility is checked as the registry does for Avro: BACKWARD = the new schema can read data written with the
 * latest one (FORWARD the reverse, FULL both, {@code _TRANSITIVE} against every version, NONE nothing), with Avro's
 * {@link SchemaCompatibility}. The global level starts at BACKWARD, the registry's default.
 */
public final class SchemaRegistryDouble implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SUBJECT_VERSIONS = Pattern.compile("^/subjects/([^/]+)/versions$");
    private static final Pattern SUBJECT_VERSION = Pattern.compile("^/subjects/([^/]+)/versions/([^/]+)$");
    private static final Pattern SUBJECT = Pattern.compile("^/subjects/([^/]+)$");
    private static final Pattern SCHEMA_BY_ID = Pattern.compile("^/schemas/ids/(\\d+)$");
    private static final Pattern COMPATIBILITY = Pattern.compile("^/compatibility/subjects/([^/]+)/versions/([^/]+)$");
    private static final Pattern CONFIG = Pattern.compile("^/config(?:/([^/]+))?$");

    private final HttpServer server;
    private final Map<Integer, String> schemas = new LinkedHashMap<>();
    private final Map<String, List<Integer>> subjects = new LinkedHashMap<>();
    private final Map<String, String> subjectLevels = new LinkedHashMap<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private String globalLevel = "BACKWARD";

    private SchemaRegistryDouble(final HttpServer server) {
        this.server = server;
    }

    /** @return a double listening on a free loopback port */
    public static SchemaRegistryDouble start() {
        try {
            final HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            final SchemaRegistryDouble registry = new SchemaRegistryDouble(server);
            server.createContext("/", registry::handle);
            server.setExecutor(Executors.newFixedThreadPool(4));
            server.start();
            return registry;
        } catch (IOException e) {
            throw new IllegalStateException("Cannot start the schema registry double", e);
        }
    }

    /** @return the base URL, e.g. {@code http://127.0.0.1:40123} */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** @return every request seen, as {@code METHOD path content-type} */
    public List<String> requests() {
        return List.copyOf(requests);
    }

    /** @return the registered subjects */
    public synchronized List<String> subjects() {
        return List.copyOf(subjects.keySet());
    }

    private void handle(final HttpExchange exchange) throws IOException {
        final String method = exchange.getRequestMethod();
        final String path = exchange.getRequestURI().getRawPath();
        requests.add(method + " " + path + " " + exchange.getRequestHeaders().getFirst("Content-Type"));
        final byte[] raw = exchange.getRequestBody().readAllBytes();
        Answer answer;
        try {
            final JsonNode body = raw.length == 0 ? JSON.createObjectNode() : JSON.readTree(raw);
            synchronized (this) {
                answer = route(method, path, body);
            }
        } catch (IOException e) {
            answer = error(400, 400, "Unrecognized JSON: " + e.getMessage());
        }
        final byte[] bytes = JSON.writeValueAsBytes(answer.body());
        exchange.getResponseHeaders().set("Content-Type", SchemaRegistryClient.CONTENT_TYPE);
        exchange.sendResponseHeaders(answer.status(), bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private record Answer(int status, Object body) {
    }

    private static Answer ok(final Object body) {
        return new Answer(200, body);
    }

    private static Answer error(final int status, final int code, final String message) {
        return new Answer(status, Map.of("error_code", code, "message", message));
    }

    private Answer route(final String method, final String path, final JsonNode body) {
        Matcher m;
        if ("GET".equals(method) && "/subjects".equals(path)) {
            return ok(subjects.keySet());
        }
        if ((m = SUBJECT_VERSIONS.matcher(path)).matches()) {
            final String subject = decode(m.group(1));
            if ("POST".equals(method)) {
                return register(subject, body);
            }
            if ("GET".equals(method)) {
                final List<Integer> ids = subjects.get(subject);
                if (ids == null) {
                    return subjectNotFound(subject);
                }
                final List<Integer> versions = new ArrayList<>();
                for (int v = 1; v <= ids.size(); v++) {
                    versions.add(v);
                }
                return ok(versions);
            }
        }
        if ("GET".equals(method) && (m = SUBJECT_VERSION.matcher(path)).matches()) {
            final String subject = decode(m.group(1));
            final List<Integer> ids = subjects.get(subject);
            if (ids == null) {
                return subjectNotFound(subject);
            }
            final int version = "latest".equals(m.group(2)) ? ids.size() : parseVersion(m.group(2));
            if (version < 1 || version > ids.size()) {
                return error(404, 40402, "Version " + m.group(2) + " not found.");
            }
            return ok(version(subject, version));
        }
        if ("POST".equals(method) && (m = SUBJECT.matcher(path)).matches()) {
            final String subject = decode(m.group(1));
            final List<Integer> ids = subjects.get(subject);
            if (ids == null) {
                return subjectNotFound(subject);
            }
            final String canonical;
            try {
                canonical = canonical(body);
            } catch (SchemaParseException | IllegalArgumentException e) {
                return error(422, 42201, "Invalid schema: " + e.getMessage());
            }
            for (int v = 1; v <= ids.size(); v++) {
                if (schemas.get(ids.get(v - 1)).equals(canonical)) {
                    return ok(version(subject, v));
                }
            }
            return error(404, 40403, "Schema not found");
        }
        if ("GET".equals(method) && (m = SCHEMA_BY_ID.matcher(path)).matches()) {
            final String schema = schemas.get(Integer.parseInt(m.group(1)));
            return schema == null ? error(404, 40403, "Schema " + m.group(1) + " not found") : ok(Map.of("schema", schema));
        }
        if ("POST".equals(method) && (m = COMPATIBILITY.matcher(path)).matches()) {
            final String subject = decode(m.group(1));
            final List<Integer> ids = subjects.get(subject);
            if (ids == null) {
                return subjectNotFound(subject);
            }
            try {
                final Schema candidate = new Schema.Parser().parse(body.path("schema").asText());
                return ok(Map.of("is_compatible", compatible(subject, candidate)));
            } catch (SchemaParseException e) {
                return error(422, 42201, "Invalid schema: " + e.getMessage());
            }
        }
        if ((m = CONFIG.matcher(path)).matches()) {
            final String subject = m.group(1) == null ? null : decode(m.group(1));
            if ("GET".equals(method)) {
                final String level = subject == null ? globalLevel : subjectLevels.get(subject);
                return level == null
                    ? error(404, 40408, "Subject '" + subject + "' does not have subject-level compatibility configured")
                    : ok(Map.of("compatibilityLevel", level));
            }
            if ("PUT".equals(method)) {
                final String level = body.path("compatibility").asText("");
                if (!List.of("NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL",
                    "FULL_TRANSITIVE").contains(level)) {
                    return error(422, 42203, "Invalid compatibility level: " + level);
                }
                if (subject == null) {
                    globalLevel = level;
                } else {
                    subjectLevels.put(subject, level);
                }
                return ok(Map.of("compatibility", level));
            }
        }
        return error(404, 404, "HTTP 404 Not Found: " + method + " " + path);
    }

    private Answer register(final String subject, final JsonNode body) {
        if (!body.path("schemaType").asText("AVRO").equals("AVRO")) {
            return error(422, 42201, "Only AVRO schemas are served by this double");
        }
        final String canonical;
        final Schema schema;
        try {
            canonical = canonical(body);
            schema = new Schema.Parser().parse(canonical);
        } catch (SchemaParseException | IllegalArgumentException e) {
            return error(422, 42201, "Invalid schema: " + e.getMessage());
        }
        final List<Integer> ids = subjects.computeIfAbsent(subject, s -> new ArrayList<>());
        for (final int id : ids) {
            if (schemas.get(id).equals(canonical)) {
                return ok(Map.of("id", id));
            }
        }
        if (!ids.isEmpty() && !compatible(subject, schema)) {
            return error(409, 409, "Schema being registered is incompatible with an earlier schema for subject \""
                + subject + "\"");
        }
        int id = schemas.entrySet().stream().filter(e -> e.getValue().equals(canonical)).map(Map.Entry::getKey)
            .findFirst().orElse(-1);
        if (id < 0) {
            id = schemas.size() + 1;
            schemas.put(id, canonical);
        }
        ids.add(id);
        return ok(Map.of("id", id));
    }

    private boolean compatible(final String subject, final Schema candidate) {
        final String level = subjectLevels.getOrDefault(subject, globalLevel);
        if ("NONE".equals(level)) {
            return true;
        }
        final List<Integer> ids = subjects.get(subject);
        final List<Integer> against = level.endsWith("_TRANSITIVE") ? ids : ids.subList(ids.size() - 1, ids.size());
        for (final int id : against) {
            final Schema existing = new Schema.Parser().parse(schemas.get(id));
            final boolean backward = readable(candidate, existing);
            final boolean forward = readable(existing, candidate);
            final boolean ok = switch (level.replace("_TRANSITIVE", "")) {
                case "BACKWARD" -> backward;
                case "FORWARD" -> forward;
                default -> backward && forward;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static boolean readable(final Schema reader, final Schema writer) {
        return SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getType()
            == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE;
    }

    private Map<String, Object> version(final String subject, final int version) {
        final int id = subjects.get(subject).get(version - 1);
        return Map.of("subject", subject, "id", id, "version", version, "schema", schemas.get(id));
    }

    private static Answer subjectNotFound(final String subject) {
        return error(404, 40401, "Subject '" + subject + "' not found.");
    }

    private static String canonical(final JsonNode body) {
        final JsonNode schema = body.get("schema");
        if (schema == null || !schema.isTextual()) {
            throw new IllegalArgumentException("the body needs a \"schema\" string");
        }
        return new Schema.Parser().parse(schema.asText()).toString();
    }

    private static int parseVersion(final String raw) {
        try {
            return Integer.parseInt(raw);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String decode(final String segment) {
        return URLDecoder.decode(segment, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
