package dev.engram.retriever;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

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

    private final String openApi = resource("/openapi/openapi.json");
    private final String page = resource("/panel/docs.html");

    /**
     * Adds the two routes.
     *
     * @param app the server
     */
    public void register(final Javalin app) {
        app.get(OPENAPI_PATH, ctx -> ctx.contentType("application/json").result(openApi));
        app.get(DOCS_PATH, ctx -> ctx.html(page));
    }

    /** @return the OpenAPI document as served */
    public String openApi() {
        return openApi;
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
