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
            if (path.startsWith("/v1/")) {
                assertThat(op.getResponses().keySet()).as(name).contains("401", "403", "503");
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
            new Call("PUT", "/v1/tenants/{tenant}/settings", "/v1/tenants/t1/settings", admin,
                "{\"categories\": [{\"name\": \"pets\", \"description\": \"the user's pets\", \"keywords\": [\"dog\"]}]}"),
            new Call("PUT", "/v1/tenants/{tenant}/settings", "/v1/tenants/t1/settings", admin, "{\"retention\": 3}"),
            new Call("PUT", "/v1/tenants/{tenant}/settings", "/v1/tenants/t1/settings", TwoUserRetriever.BEN_KEY, "{}"),
            new Call("GET", "/v1/tenants/{tenant}/settings", "/v1/tenants/t1/settings", admin, null),
            new Call("GET", "/v1/tenants/{tenant}/settings", "/v1/tenants/t1/settings?asOf=yesterday", admin, null),
            new Call("GET", "/panel", "/panel?tenant=t1&user=u-ana", null, null),
            new Call("GET", ApiDocs.DOCS_PATH, ApiDocs.DOCS_PATH, null, null),
            new Call("GET", ApiDocs.OPENAPI_PATH, ApiDocs.OPENAPI_PATH, null, null),
            new Call("GET", "/health/live", "/health/live", null, null),
            new Call("GET", "/health/ready", "/health/ready", null, null),
            new Call("GET", "/metrics", "/metrics", null, null),
            new Call("POST", McpEndpoint.PATH, McpEndpoint.PATH, null, "{}"));
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
            }
        }
        final Set<String> all = new TreeSet<>();
        api.getPaths().forEach((path, item) -> item.readOperationsMap().keySet().forEach(m -> all.add(m.name() + " " + path)));
        assertThat(exercised).isEqualTo(all);
        assertThat(statuses).contains("200", "202", "400", "401", "403", "404");
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
