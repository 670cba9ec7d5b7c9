package dev.engram.retriever;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * The MCP tools' definitions and arguments for {@link McpEndpoint}: a tool's input schema (every tool takes
 * {@code tenantId} and {@code userId}, defaulting to the API key's), and how a call's arguments become the query
 * string or the JSON body of the {@code /v1} request the tool makes.
 */
final class McpTools {

    private McpTools() {
    }

    /**
     * @param name the tool's name
     * @param description what it does, for the model
     * @param properties its arguments besides {@code tenantId} and {@code userId}
     * @param required the arguments it needs
     * @param readOnly whether it only reads
     * @param output the result's {@code structuredContent} schema: the HTTP answer's, from {@code /openapi.json} (the
     *     SDK checks every result that is not an error against it)
     */
    static McpSchema.Tool tool(final String name, final String description, final Map<String, Object> properties,
                               final List<String> required, final boolean readOnly, final Map<String, Object> output) {
        final Map<String, Object> all = new LinkedHashMap<>();
        all.put("tenantId", string("tenant; default: the API key's tenant"));
        all.put("userId", string("user; default: the API key's user"));
        all.putAll(properties);
        final Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", all);
        schema.put("required", required);
        schema.put("additionalProperties", false);
        return McpSchema.Tool.builder().name(name).description(description).inputSchema(schema).outputSchema(output)
            .annotations(new McpSchema.ToolAnnotations(null, readOnly, !readOnly && McpEndpoint.DELETE.equals(name), true,
                false, null))
            .build();
    }

    /**
     * @param tool a tool made by {@link #tool}
     * @return the names of its arguments (its input schema's properties)
     */
    static java.util.Set<String> argumentNames(final McpSchema.Tool tool) {
        final Object properties = tool.inputSchema().get("properties");
        return properties instanceof Map<?, ?> map
            ? map.keySet().stream().map(String::valueOf).collect(java.util.stream.Collectors.toUnmodifiableSet())
            : java.util.Set.of();
    }

    /**
     * @param tool a tool made by {@link #tool}
     * @return each argument's JSON Schema {@code type}: a name ({@code "integer"}) or a list of names; an argument
     *     whose schema gives none is left out
     */
    static Map<String, Object> argumentTypes(final McpSchema.Tool tool) {
        final Map<String, Object> types = new LinkedHashMap<>();
        if (tool.inputSchema().get("properties") instanceof Map<?, ?> map) {
            map.forEach((name, schema) -> {
                if (schema instanceof Map<?, ?> property && property.get("type") != null) {
                    types.put(String.valueOf(name), property.get("type"));
                }
            });
        }
        return Map.copyOf(types);
    }

    static Map<String, Object> string(final String description) {
        return Map.of("type", "string", "description", description);
    }

    static Map<String, Object> integer(final String description) {
        return Map.of("type", "integer", "description", description);
    }

    static Map<String, Object> number(final String description) {
        return Map.of("type", "number", "description", description);
    }

    static String text(final McpSchema.CallToolRequest call, final String name) {
        final Object value = call.arguments() == null ? null : call.arguments().get(name);
        return value == null || value.toString().isBlank() ? null : value.toString();
    }

    static String argument(final McpSchema.CallToolRequest call, final String name) {
        final String value = text(call, name);
        return value == null ? "" : value;
    }

    static String query(final McpSchema.CallToolRequest call, final String... names) {
        final StringJoiner joiner = new StringJoiner("&", "?", "").setEmptyValue("");
        for (final String name : names) {
            final Object value = call.arguments() == null ? null : call.arguments().get(name);
            if (value != null) {
                final String raw = value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                    ? Long.toString(n.longValue()) : value.toString();
                joiner.add(name + "=" + segment(raw));
            }
        }
        return joiner.toString();
    }

    /** @return the body of a write: the named arguments given (a blank string counts as not given) */
    static Map<String, Object> fields(final McpSchema.CallToolRequest call, final String... names) {
        final Map<String, Object> body = new LinkedHashMap<>();
        for (final String field : names) {
            final Object value = call.arguments() == null ? null : call.arguments().get(field);
            if (value != null && !(value instanceof String text && text.isBlank())) {
                body.put(field, value);
            }
        }
        return body;
    }

    static String segment(final String raw) {
        return URLEncoder.encode(raw, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** What a search hit's content ends with in the tool's text when the hit is outdated ({@code "outdated": true}). */
    static final String NO_LONGER_CURRENT = " (no longer current)";

    /**
     * The text of a {@code search_memories} result: the API's JSON body, with the content of every outdated hit
     * ({@code "outdated": true}, {@link ApiViews.Hit}) ending in {@value #NO_LONGER_CURRENT}, so a model reading the
     * text alone does not take an old value for a current one (the structured content keeps the body as it is).
     *
     * @param body the body of {@code GET .../memories?query=}
     * @return the text
     */
    static String withOutdatedMarked(final com.fasterxml.jackson.databind.JsonNode body) {
        final com.fasterxml.jackson.databind.JsonNode copy = body.deepCopy();
        for (final com.fasterxml.jackson.databind.JsonNode hit : copy.path("memories")) {
            if (hit.path("outdated").asBoolean(false) && hit instanceof com.fasterxml.jackson.databind.node.ObjectNode o) {
                o.put("content", hit.path("content").asText() + NO_LONGER_CURRENT);
            }
        }
        return copy.toString();
    }
}
