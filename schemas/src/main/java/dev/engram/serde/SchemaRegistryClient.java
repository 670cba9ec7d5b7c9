package dev.engram.serde;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;

/**
 * A small client of the Confluent Schema Registry REST API (v1, content type
 * {@code application/vnd.schemaregistry.v1+json}), for Avro schemas only. It speaks the API any
 * Confluent-compatible registry serves: Confluent Schema Registry, Apicurio Registry's {@code /apis/ccompat/v7},
 * Karapace, Redpanda.
 *
 * <table>
 *   <caption>calls used (Confluent "Schema Registry API Reference")</caption>
 *   <tr><td>{@link #register}</td><td>{@code POST /subjects/{subject}/versions {"schema": …}} → {@code {"id": N}}</td></tr>
 *   <tr><td>{@link #schemaById}</td><td>{@code GET /schemas/ids/{id}} → {@code {"schema": …}}</td></tr>
 *   <tr><td>{@link #latest}</td><td>{@code GET /subjects/{subject}/versions/latest} → {@code {"id", "version", "schema"}}</td></tr>
 *   <tr><td>{@link #isCompatible}</td><td>{@code POST /compatibility/subjects/{subject}/versions/latest} → {@code {"is_compatible": …}}</td></tr>
 *   <tr><td>{@link #subjectCompatibility}, {@link #setSubjectCompatibility}</td><td>{@code GET|PUT /config/{subject}}</td></tr>
 * </table>
 *
 * <p>Registrations and schemas by id are cached (a schema id never changes its schema). Thread-safe.
 * Every failure is a {@link SchemaRegistryException} with the HTTP status and the registry's {@code error_code}.
 */
public final class SchemaRegistryClient {

    /** Content type of the Confluent REST API. */
    public static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String baseUrl;
    private final String authorization;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final Map<String, Integer> registered = new ConcurrentHashMap<>();
    private final Map<Integer, Schema> byId = new ConcurrentHashMap<>();

    /**
     * @param baseUrl the registry's base URL, e.g. {@code http://registry:8081} (a trailing slash is ignored)
     * @param basicAuthUserInfo {@code user:password} for HTTP Basic authentication, or null/blank for none
     */
    public SchemaRegistryClient(final String baseUrl, final String basicAuthUserInfo) {
        this.baseUrl = baseUrl.strip().replaceAll("/+$", "");
        this.authorization = basicAuthUserInfo == null || basicAuthUserInfo.isBlank() ? null
            : "Basic " + Base64.getEncoder().encodeToString(basicAuthUserInfo.getBytes(StandardCharsets.UTF_8));
    }

    /** @return the base URL calls go to */
    public String baseUrl() {
        return baseUrl;
    }

    /**
     * Registers a schema under a subject (or finds it registered already: the registry answers the same id).
     *
     * @param subject e.g. {@code memory-updated-value}
     * @param schema an Avro schema
     * @return the registry-wide schema id
     * @throws SchemaRegistryException 409 when the subject's compatibility rule refuses the schema, 422 when invalid
     */
    public int register(final String subject, final Schema schema) {
        final String text = schema.toString();
        return registered.computeIfAbsent(subject + '\0' + text, key -> {
            final int id = call("POST", "/subjects/" + encode(subject) + "/versions", Map.of("schema", text)).path("id").asInt(-1);
            if (id < 0) {
                throw new SchemaRegistryException("The registry answered no id registering under " + subject, 200, -1, null);
            }
            byId.putIfAbsent(id, schema);
            return id;
        });
    }

    /**
     * @param id a schema id from a record's header
     * @return the schema with that id
     * @throws SchemaRegistryException 404 (error code 40403) when the registry has no such schema
     */
    public Schema schemaById(final int id) {
        return byId.computeIfAbsent(id, key -> new Schema.Parser()
            .parse(call("GET", "/schemas/ids/" + key, null).path("schema").asText()));
    }

    /**
     * @param subject a subject
     * @return the latest version's id and schema
     * @throws SchemaRegistryException 404 (40401) when the subject is unknown
     */
    public Registered latest(final String subject) {
        final JsonNode node = call("GET", "/subjects/" + encode(subject) + "/versions/latest", null);
        return new Registered(node.path("id").asInt(), node.path("version").asInt(),
            new Schema.Parser().parse(node.path("schema").asText()));
    }

    /**
     * @param subject a subject with at least one version
     * @param schema a candidate schema
     * @return whether the subject's compatibility rule accepts it against the latest version
     */
    public boolean isCompatible(final String subject, final Schema schema) {
        return call("POST", "/compatibility/subjects/" + encode(subject) + "/versions/latest",
            Map.of("schema", schema.toString())).path("is_compatible").asBoolean(false);
    }

    /**
     * @param subject a subject
     * @return its own compatibility level ({@code BACKWARD}, {@code FULL}, …), empty when it has none (the global one applies)
     */
    public Optional<String> subjectCompatibility(final String subject) {
        try {
            final JsonNode node = call("GET", "/config/" + encode(subject), null);
            final String level = node.path("compatibilityLevel").asText(node.path("compatibility").asText(""));
            return level.isEmpty() ? Optional.empty() : Optional.of(level);
        } catch (SchemaRegistryException e) {
            if (e.status() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * @param subject a subject
     * @param level {@code BACKWARD}, {@code FORWARD}, {@code FULL}, {@code NONE} or a {@code _TRANSITIVE} variant
     */
    public void setSubjectCompatibility(final String subject, final String level) {
        call("PUT", "/config/" + encode(subject), Map.of("compatibility", level));
    }

    /**
     * One version of a subject.
     *
     * @param id the registry-wide schema id
     * @param version the version within the subject, from 1
     * @param schema the schema
     */
    public record Registered(int id, int version, Schema schema) {
    }

    private JsonNode call(final String method, final String path, final Object body) {
        final URI uri = URI.create(baseUrl + path);
        try {
            final HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(TIMEOUT)
                .header("Accept", CONTENT_TYPE + ", application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
            if (body != null) {
                request.header("Content-Type", CONTENT_TYPE);
            }
            if (authorization != null) {
                request.header("Authorization", authorization);
            }
            final HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            final JsonNode node = parse(response.body(), response.statusCode() / 100 == 2);
            if (response.statusCode() / 100 != 2) {
                throw new SchemaRegistryException(method + " " + uri + " answered " + response.statusCode() + ": "
                    + node.path("message").asText(new String(response.body(), StandardCharsets.UTF_8)),
                    response.statusCode(), node.path("error_code").asInt(-1), null);
            }
            return node;
        } catch (IOException e) {
            throw new SchemaRegistryException(method + " " + uri + " failed: " + ConnectionFailures.describe(e), -1, -1, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryException(method + " " + uri + " interrupted", -1, -1, e);
        }
    }

    /** An error body need not be JSON (a proxy's HTML page); a success body must be. */
    private static JsonNode parse(final byte[] body, final boolean success) throws IOException {
        if (body.length == 0) {
            return JSON.createObjectNode();
        }
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            if (success) {
                throw e;
            }
            return JSON.createObjectNode();
        }
    }

    private static String encode(final String subject) {
        return URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
