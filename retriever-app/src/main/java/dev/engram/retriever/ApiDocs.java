package dev.engram.retriever;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import java.util.Map;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;

/**
 * The retriever's API contract: {@code GET /openapi.json} (OpenAPI 3.1, every route, parameter, status and
 * problem body; {@code OpenApiContractIT} checks it against the routes the server answers) and
 * {@code GET /panel/docs}, a page of the memory panel that renders it (plain HTML and JavaScript, no external
 * scripts, so it works offline).
 */
public final class ApiDocs {

    /** Path of the OpenAPI document. */
    public static final String OPENAPI_PATH = "/openapi.json";
    /** Path of the docs page. */
    public static final String DOCS_PATH = "/panel/docs";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String openApi = resource("/openapi/openapi.json");
    private final String page = resource("/panel/docs.html");

    /**
     * Adds the two routes.
     *
     * @param app the server
     */
    public void register(final Javalin app) {
        app.get(OPENAPI_PATH, ctx -> ctx.contentType("application/json").result(openApi));
        app.get(DOCS_PATH, ctx -> RetrieverApi.notFramed(ctx).html(page));
    }

    /** @return the OpenAPI document as served */
    public String openApi() {
        return openApi;
    }

    /**
     * One schema of the document's {@code components}, self-contained: every {@code $ref} to another component is
     * replaced by that component's schema (OpenAPI 3.1 schemas are JSON Schema 2020-12), e.g. the MCP tools'
     * {@code outputSchema}, so a tool's result and the HTTP answer it carries are described once.
     *
     * @param name a schema of {@code #/components/schemas}
     * @return the schema with its references inlined
     * @throws IllegalArgumentException if the document has no such schema
     */
    Map<String, Object> schema(final String name) {
        try {
            final JsonNode schemas = JSON.readTree(openApi).path("components").path("schemas");
            if (!schemas.has(name)) {
                throw new IllegalArgumentException("no schema " + name + " in " + OPENAPI_PATH);
            }
            return JSON.convertValue(inline(schemas.get(name), schemas), new TypeReference<Map<String, Object>>() { });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param schema a schema's name under {@code components.schemas}
     * @param name one of its properties
     * @return that property's schema, references inlined: what an MCP tool's argument of the same meaning declares,
     *     so that both edges take the same forms
     * @throws IllegalArgumentException when the schema or the property is not there
     */
    Map<String, Object> property(final String schema, final String name) {
        final Object properties = schema(schema).get("properties");
        if (!(properties instanceof Map<?, ?> map) || !(map.get(name) instanceof Map<?, ?> property)) {
            throw new IllegalArgumentException("no property " + name + " in schema " + schema + " of " + OPENAPI_PATH);
        }
        @SuppressWarnings("unchecked") final Map<String, Object> typed = (Map<String, Object>) property;
        return typed;
    }

    private static JsonNode inline(final JsonNode node, final JsonNode schemas) {
        if (node.isObject() && node.has("$ref")) {
            final String ref = node.get("$ref").asText();
            return inline(schemas.get(ref.substring(ref.lastIndexOf('/') + 1)), schemas);
        }
        if (node.isObject()) {
            final ObjectNode copy = JSON.createObjectNode();
            node.fields().forEachRemaining(e -> copy.set(e.getKey(), inline(e.getValue(), schemas)));
            return copy;
        }
        if (node.isArray()) {
            final ArrayNode copy = JSON.createArrayNode();
            node.forEach(item -> copy.add(inline(item, schemas)));
            return copy;
        }
        return node;
    }

    private static String resource(final String path) {
        try (InputStream in = ApiDocs.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
