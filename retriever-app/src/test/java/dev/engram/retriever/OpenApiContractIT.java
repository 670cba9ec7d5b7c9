package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.router.ParsedEndpoint;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code /openapi.json} as served by a running retriever, parsed with swagger-parser: it is valid OpenAPI 3.1, it
 * describes exactly the routes the server answers (read from Javalin's router), every error is a problem body, and
 * real answers of every route (success and failure) have a documented status and the documented body's fields.
 */
class OpenApiContractIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ApiDocs DOCS = new ApiDocs();
    private static final io.modelcontextprotocol.json.schema.JsonSchemaValidator VALIDATOR =
        new io.modelcontextprotocol.json.schema.jackson3.DefaultJsonSchemaValidator();
    private static TwoUserRetriever fixture;
    private static OpenAPI api;

    @BeforeAll
    static void start() {
        fixture = TwoUserRetriever.start();
        final HttpResponse<String> served = fixture.get(ApiDocs.OPENAPI_PATH, null);
        assertThat(served.statusCode()).isEqualTo(200);
        final ParseOptions options = new ParseOptions();
        options.setResolve(true);
        final SwaggerParseResult result = new OpenAPIV3Parser().readContents(served.body(), null, options);
        assertThat(result.getMessages()).as("parser messages").isEmpty();
        api = result.getOpenAPI();
    }

    @AfterAll
    static void stop() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void shouldBeOpenApi31() {
        assertThat(api.getOpenapi()).startsWith("3.1");
        assertThat(api.getInfo().getTitle()).isNotBlank();
        assertThat(api.getComponents().getSecuritySchemes()).containsKeys("bearer", "apiKey");
    }

    @Test
    void shouldDescribeExactlyTheRoutesTheServerAnswers() {
        final Set<String> served = new TreeSet<>();
        for (final ParsedEndpoint endpoint : fixture.retriever().server().javalin().unsafeConfig().pvt.internalRouter
            .allHttpHandlers()) {
            // HEAD is each GET route's own handler (AppHttpServer), described by the GET operation
            if (endpoint.getEndpoint().getMethod().isHttpMethod()
                && endpoint.getEndpoint().getMethod() != io.javalin.http.HandlerType.HEAD) {
                served.add(endpoint.getEndpoint().getMethod().name() + " " + endpoint.getEndpoint().getPath());
            }
        }
        final Set<String> described = new TreeSet<>();
        api.getPaths().forEach((path, item) -> item.readOperationsMap().keySet()
            .forEach(method -> described.add(method.name() + " " + path)));

        assertThat(served).hasSizeGreaterThan(10);
        assertThat(described).isEqualTo(served);
    }

    @Test
    void shouldDescribeEveryParameterAndAProblemBodyForEveryError() {
        api.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, op) -> {
            final String name = method + " " + path;
            assertThat(op.getOperationId()).as(name).isNotBlank();
            assertThat(op.getResponses().keySet()).as(name).anyMatch(status -> status.startsWith("2"));
            final List<String> pathParams = new ArrayList<>();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{([^}]+)}").matcher(path);
            while (m.find()) {
                pathParams.add(m.group(1));
            }
            final List<String> declared = op.getParameters() == null ? List.of()
                : op.getParameters().stream().filter(p -> "path".equals(p.getIn())).map(p -> p.getName()).toList();
            assertThat(declared).as(name + " path parameters").containsExactlyInAnyOrderElementsOf(pathParams);
            if (op.getParameters() != null) {
                op.getParameters().forEach(p -> assertThat(p.getSchema()).as(name + " " + p.getName()).isNotNull());
            }
            assertThat(op.getResponses().keySet()).as(name + ": a malformed target and another method").contains("400", "405");
            if (path.startsWith("/v1/")) {
                assertThat(op.getResponses().keySet()).as(name).contains("401", "403", "500", "503");
                op.getResponses().forEach((status, response) -> {
                    if (status.startsWith("4") || status.startsWith("5")) {
                        assertThat(response.getContent()).as(name + " " + status).containsKey("application/problem+json");
                        assertThat(response.getContent().get("application/problem+json").getSchema().get$ref())
                            .as(name + " " + status).endsWith("/Problem");
                    }
                });
            }
        }));
    }

    /** One real request and the operation of the document it exercises. */
    private record Call(String method, String template, String path, String key, String body) {
    }

    @Test
    void shouldAnswerEveryRouteWithADocumentedStatusAndBody() throws Exception {
        final String u = "/v1/tenants/{tenant}/users/{user}";
        final String ana = "/v1/tenants/t1/users/u-ana";
        final String admin = TwoUserRetriever.ADMIN_KEY;
        final List<Call> calls = List.of(
            new Call("GET", u + "/profile", ana + "/profile", admin, null),
            new Call("GET", u + "/profile", "/v1/tenants/t1/users/u-nobody/profile", admin, null),
            new Call("GET", u + "/profile", ana + "/profile", TwoUserRetriever.BEN_KEY, null),
            new Call("GET", u + "/profile", ana + "/profile", null, null),
            new Call("GET", u + "/erasure", ana + "/erasure", admin, null),
            new Call("GET", u + "/erasure", ana + "/erasure", TwoUserRetriever.BEN_KEY, null),
            new Call("GET", u + "/memories", ana + "/memories?query=language&k=3", admin, null),
            new Call("GET", u + "/memories", ana + "/memories?query=language&k=0", admin, null),
            new Call("GET", u + "/memories", ana + "/memories", admin, null),
            new Call("GET", u + "/memories", ana + "/memories?type=NOPE", admin, null),
            new Call("GET", u + "/memories/{id}/history", ana + "/memories/m-ana-kotlin/history", admin, null),
            new Call("GET", u + "/memories/{id}/history", ana + "/memories/m-none/history", admin, null),
            new Call("GET", u + "/context", ana + "/context?message=Which%20language&budgetTokens=100", admin, null),
            new Call("GET", u + "/context", ana + "/context", admin, null),
            new Call("GET", u + "/export", ana + "/export", TwoUserRetriever.ANA_KEY, null),
            new Call("PUT", u + "/memories/{id}", ana + "/memories/m-ana-city", admin, "{\"content\": \"Lives in Porto\", \"value\": \"Porto\"}"),
            new Call("PUT", u + "/memories/{id}", ana + "/memories/m-ana-city", admin, "{\"content\": \"Lives in Porto\"}"),
            new Call("PUT", u + "/memories/{id}", ana + "/memories/m-ana-city", admin, "{}"),
            new Call("PUT", u + "/memories/{id}", ana + "/memories/m-none", admin, "{\"value\": \"Porto\"}"),
            new Call("DELETE", u + "/memories/{id}", ana + "/memories/m-none", admin, null),
            new Call("DELETE", u, "/v1/tenants/t1/users/u-gone", admin, null),
            new Call("PUT", u + "/settings", "/v1/tenants/t1/users/u-ben/settings", admin, "{\"memoryEnabled\": true}"),
            new Call("PUT", u + "/settings", "/v1/tenants/t1/users/u-ben/settings", admin, "{\"memoryEnabled\": \"no\"}"),
            new Call("POST", u + "/conversations", "/v1/tenants/t1/users/u-ben/conversations", admin,
                "{\"conversationId\": \"c-doc\", \"messages\": [{\"role\": \"user\", \"content\": \"I play go too.\"}]}"),
            new Call("POST", u + "/conversations", "/v1/tenants/t1/users/u-ben/conversations", admin,
                "{\"conversationId\": \"c-doc\", \"messages\": []}"),
            new Call("GET", u + "/memories", ana + "/memories?query=language&k=101", admin, null),
            new Call("PUT", "/v1/tenants/{tenant}/settings", "/v1/tenants/t1/settings", admin,
                "{\"categories\": [{\"name\": \"pets\", \"description\": \"the user's pets\", \"keywords\": [\"dog\"]}]}"),
            new Call("PUT", "/v1/tenants/{tenant}/settings", "/v1/tenants/t1/settings", admin, "{\"retention\": 3}"),
            new Call("PUT", "/v1/tenants/{tenant}/settings", "/v1/tenants/t1/settings", TwoUserRetriever.BEN_KEY, "{}"),
            new Call("GET", "/v1/tenants/{tenant}/settings", "/v1/tenants/t1/settings", admin, null),
            new Call("GET", "/v1/tenants/{tenant}/settings", "/v1/tenants/t1/settings?asOf=yesterday", admin, null),
            new Call("GET", "/v1/tenants/{tenant}/usage", "/v1/tenants/t1/usage?days=7", admin, null),
            new Call("GET", "/v1/tenants/{tenant}/usage", "/v1/tenants/t1/usage?days=0", admin, null),
            new Call("GET", "/panel", "/panel?tenant=t1&user=u-ana", null, null),
            new Call("GET", ApiDocs.DOCS_PATH, ApiDocs.DOCS_PATH, null, null),
            new Call("GET", ApiDocs.OPENAPI_PATH, ApiDocs.OPENAPI_PATH, null, null),
            new Call("GET", "/health/live", "/health/live", null, null),
            new Call("GET", "/health/ready", "/health/ready", null, null),
            new Call("GET", "/metrics", "/metrics", null, null),
            new Call("POST", McpEndpoint.PATH, McpEndpoint.PATH, null, "{}"),
            new Call("OPTIONS", McpEndpoint.PATH, McpEndpoint.PATH, null, null));
        final Set<String> exercised = new TreeSet<>();
        final Set<String> statuses = new TreeSet<>();
        for (final Call call : calls) {
            final HttpResponse<String> response = fixture.send(call.method(), call.path(), call.key(), call.body());
            final String name = call.method() + " " + call.path() + " -> " + response.statusCode() + " " + response.body();
            final Operation op = operation(call.method(), call.template());
            assertThat(op).as(name).isNotNull();
            final ApiResponse documented = op.getResponses().get(Integer.toString(response.statusCode()));
            assertThat(documented).as(name + " is documented").isNotNull();
            exercised.add(call.method() + " " + call.template());
            statuses.add(Integer.toString(response.statusCode()));
            final String type = response.headers().firstValue("Content-Type").orElse("");
            if (documented.getContent() == null || documented.getContent().isEmpty()) {
                continue;
            }
            final Map.Entry<String, MediaType> media = documented.getContent().entrySet().iterator().next();
            assertThat(type).as(name).startsWith(media.getKey());
            if (media.getKey().endsWith("json")) {
                assertHasRequiredFields(name, JSON.readTree(response.body()), media.getValue().getSchema());
                final String ref = media.getValue().getSchema().get$ref();
                if (ref != null) {
                    // the whole body against its schema (JSON Schema 2020-12), with the validator the MCP SDK checks
                    // every tool result with: the tools' outputSchemas are these schemas
                    final io.modelcontextprotocol.json.schema.JsonSchemaValidator.ValidationResponse valid = VALIDATOR
                        .validate(DOCS.schema(ref.substring(ref.lastIndexOf('/') + 1)),
                            JSON.readValue(response.body(), Object.class));
                    assertThat(valid.valid()).as(name + ": " + valid.errorMessage()).isTrue();
                }
            }
        }
        final Set<String> all = new TreeSet<>();
        api.getPaths().forEach((path, item) -> item.readOperationsMap().keySet().forEach(m -> all.add(m.name() + " " + path)));
        assertThat(exercised).isEqualTo(all);
        assertThat(statuses).contains("200", "202", "400", "401", "403", "404");
    }

    @Test
    void shouldDeclareExactlyTheQueryParametersTheServerReads() {
        final Set<String> declared = new TreeSet<>();
        for (final QueryParam param : QueryParam.values()) {
            param.operations().forEach(op -> declared.add(op + " ?" + param.wireName()));
        }
        final Set<String> documented = new TreeSet<>();
        api.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, op) -> {
            if (op.getParameters() != null) {
                op.getParameters().stream().filter(p -> "query".equals(p.getIn()))
                    .forEach(p -> documented.add(method + " " + path + " ?" + p.getName()));
            }
        }));

        assertThat(documented).isEqualTo(declared);
    }

    @Test
    void shouldReadEveryDocumentedQueryParameterOnItsRoute() {
        // a value each /v1 parameter refuses: the 400 naming it shows the route reads it (the panel's are the page's)
        final Map<QueryParam, String> invalid = Map.ofEntries(Map.entry(QueryParam.QUERY, "%20"),
            Map.entry(QueryParam.K, "many"), Map.entry(QueryParam.TYPE, "NOPE"), Map.entry(QueryParam.STATUS, "NOPE"),
            Map.entry(QueryParam.AS_OF, "yesterday"), Map.entry(QueryParam.RECORD_ACCESS, "maybe"),
            Map.entry(QueryParam.MIN_SCORE, "high"), Map.entry(QueryParam.MESSAGE, "%20"),
            Map.entry(QueryParam.BUDGET_TOKENS, "lots"), Map.entry(QueryParam.TENANT_AS_OF, "yesterday"),
            Map.entry(QueryParam.USAGE_DAYS, "many"), Map.entry(QueryParam.AGENT_ID, "%20"));
        for (final QueryParam param : QueryParam.values()) {
            for (final String operation : param.operations()) {
                if (!operation.startsWith("GET /v1/")) {
                    continue;
                }
                assertThat(invalid).as("an invalid value of " + param).containsKey(param);
                final String path = operation.substring("GET ".length()).replace("{tenant}", "t1").replace("{user}", "u-ana");
                // the context route needs its message to reach the other parameters
                final String base = operation.endsWith("/context") && param != QueryParam.MESSAGE ? "message=hello&" : "";
                final HttpResponse<String> answer = fixture.get(path + "?" + base + param.wireName() + "="
                    + invalid.get(param), TwoUserRetriever.ADMIN_KEY);
                assertThat(answer.statusCode()).as(operation + " ?" + param.wireName() + " -> " + answer.body()).isEqualTo(400);
                assertThat(answer.body()).as(operation).contains(param.wireName());
            }
        }
    }

    @Test
    void shouldRefuseAnUnknownQueryParameterOnEveryRouteNamingTheOnesItReads() {
        final Map<String, Set<String>> reads = QueryParam.byOperation();
        api.getPaths().forEach((template, item) -> item.readOperationsMap().forEach((method, op) -> {
            final String operation = method + " " + template;
            final String path = template.replace("{tenant}", "t1").replace("{user}", "u-ana").replace("{id}", "m-ana-kotlin");
            final String body = method == io.swagger.v3.oas.models.PathItem.HttpMethod.PUT
                || method == io.swagger.v3.oas.models.PathItem.HttpMethod.POST ? "{}" : null;
            final HttpResponse<String> answer = fixture.send(method.name(), path + "?limit=3", TwoUserRetriever.ADMIN_KEY, body);
            final String name = operation + " ?limit=3 -> " + answer.body();
            assertThat(answer.statusCode()).as(name).isEqualTo(400);
            assertThat(answer.headers().firstValue("Content-Type").orElse("")).as(name).startsWith("application/problem+json");
            final Set<String> own = reads.getOrDefault(operation, Set.of());
            assertThat(answer.body()).as(name).contains("Unknown query parameter 'limit' on " + operation)
                .contains(own.isEmpty() ? "reads no query parameters" : "reads: " + String.join(", ", new TreeSet<>(own)));
        }));
    }

    @Test
    void shouldAnswerEveryDocumentedQueryParameterTogetherWhenEachIsValid() {
        final String ana = "/v1/tenants/t1/users/u-ana";
        final List<String> paths = List.of(
            ana + "/memories?query=language&k=3&asOf=2030-01-01T00:00:00Z&recordAccess=false&minScore=0&agentId=travel",
            ana + "/memories?type=SEMANTIC&status=ACTIVE&k=5&recordAccess=false&agentId=travel",
            ana + "/context?message=Which%20language&budgetTokens=100&recordAccess=false&agentId=travel",
            "/v1/tenants/t1/settings?asOf=2030-01-01T00:00:00Z", "/v1/tenants/t1/usage?days=7",
            "/panel?tenant=t1&user=u-ana");
        for (final String path : paths) {
            final HttpResponse<String> answer = fixture.get(path, TwoUserRetriever.ADMIN_KEY);
            assertThat(answer.statusCode()).as(path + " -> " + answer.body()).isEqualTo(200);
        }
        // every parameter of the document appears above
        final Set<String> used = new TreeSet<>();
        paths.forEach(p -> java.util.Arrays.stream(p.substring(p.indexOf('?') + 1).split("&"))
            .forEach(kv -> used.add(kv.substring(0, kv.indexOf('=')))));
        final Set<String> declared = new TreeSet<>();
        for (final QueryParam param : QueryParam.values()) {
            declared.add(param.wireName());
        }
        assertThat(used).isEqualTo(declared);
    }

    @Test
    void shouldDocumentTheLimitsTheServerEnforces() {
        final Operation memories = operation("GET", "/v1/tenants/{tenant}/users/{user}/memories");
        final Operation context = operation("GET", "/v1/tenants/{tenant}/users/{user}/context");

        assertThat(parameter(memories, "k").getSchema().getMaximum().intValue())
            .isEqualTo(dev.engram.config.EngramConfig.defaults().getInt(dev.engram.domain.DomainConfig.MAX_K));
        assertThat(parameter(memories, "minScore").getSchema().getMinimum().doubleValue()).isZero();
        assertThat(parameter(memories, "minScore").getSchema().getMaximum().doubleValue()).isEqualTo(1.0);
        assertThat(parameter(context, "budgetTokens").getSchema().getMaximum().intValue())
            .isEqualTo(RetrieverApi.MAX_BUDGET_TOKENS);
        assertThat(api.getServers()).allSatisfy(server -> assertThat(server.getUrl()).doesNotContain("localhost"));
    }

    @Test
    void shouldAnswerAnotherMethodWith405AllowingExactlyTheDocumentedMethods() {
        api.getPaths().forEach((template, item) -> {
            final String path = template.replace("{tenant}", "t1").replace("{user}", "u-ana").replace("{id}", "m-ana-kotlin");
            final HttpResponse<String> answer = fixture.send("PATCH", path, TwoUserRetriever.ADMIN_KEY, null);
            assertThat(answer.statusCode()).as("PATCH " + path + " -> " + answer.body()).isEqualTo(405);
            final Set<String> allowed = new TreeSet<>(List.of(answer.headers().firstValue("Allow").orElse("").split(",\\s*")));
            allowed.remove("HEAD"); // every GET route answers HEAD alike (AppHttpServer), described by its GET
            final Set<String> documented = new TreeSet<>();
            item.readOperationsMap().keySet().forEach(method -> documented.add(method.name()));
            assertThat(allowed).as(template).isEqualTo(documented);
        });
    }

    @Test
    void shouldReadParametersOnlyThroughTheirDeclaration() throws Exception {
        // a route reading ctx.queryParam("x") directly would add a parameter the document and the test above miss
        try (java.util.stream.Stream<java.nio.file.Path> sources = java.nio.file.Files.walk(
            java.nio.file.Path.of("src/main/java/dev/engram/retriever"))) {
            final List<String> direct = sources.filter(f -> f.toString().endsWith(".java"))
                .filter(f -> !f.getFileName().toString().equals("QueryParam.java"))
                .filter(f -> {
                    try {
                        return java.nio.file.Files.readString(f).matches("(?s).*\\bqueryParam(Map|s)?\\(.*");
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }).map(f -> f.getFileName().toString()).toList();
            assertThat(direct).as("classes reading query parameters besides QueryParam").isEmpty();
        }
    }

    private static io.swagger.v3.oas.models.parameters.Parameter parameter(final Operation op, final String name) {
        return op.getParameters().stream().filter(p -> name.equals(p.getName())).findFirst().orElseThrow();
    }

    private static Operation operation(final String method, final String template) {
        final PathItem item = api.getPaths().get(template);
        return item == null ? null : item.readOperationsMap().get(PathItem.HttpMethod.valueOf(method.toUpperCase(Locale.ROOT)));
    }

    @SuppressWarnings("rawtypes")
    private static void assertHasRequiredFields(final String name, final JsonNode body, final Schema schema) {
        final Schema resolved = resolve(schema);
        if (resolved.getOneOf() != null) {
            final List<?> alternatives = resolved.getOneOf();
            assertThat(alternatives.stream().anyMatch(alternative -> missing(body, resolve((Schema) alternative)).isEmpty()))
                .as(name + " matches one of its alternatives").isTrue();
            return;
        }
        assertThat(missing(body, resolved)).as(name + " required fields").isEmpty();
    }

    @SuppressWarnings("rawtypes")
    private static List<String> missing(final JsonNode body, final Schema schema) {
        final List<String> absent = new ArrayList<>();
        if (schema.getRequired() != null) {
            for (final Object field : schema.getRequired()) {
                if (!body.has(field.toString())) {
                    absent.add(field.toString());
                }
            }
        }
        return absent;
    }

    @SuppressWarnings("rawtypes")
    private static Schema resolve(final Schema schema) {
        if (schema.get$ref() == null) {
            return schema;
        }
        return api.getComponents().getSchemas().get(schema.get$ref().substring(schema.get$ref().lastIndexOf('/') + 1));
    }
}
