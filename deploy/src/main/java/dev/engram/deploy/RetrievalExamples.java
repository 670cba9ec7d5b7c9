package dev.engram.deploy;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.stack.ConversationSources;
import dev.engram.stack.ConversationSources.ExampleQuery;

/**
 * Asks the retriever's HTTP API ({@code GET /v1/tenants/{tenant}/users/{user}/memories?query=…&k=…})
 * the demo's example questions and formats the answers: each hit's total score and content.
 */
public final class RetrievalExamples {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;

    /** @param baseUrl the retriever, e.g. {@code http://localhost:8080} */
    public RetrievalExamples(final String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /**
     * One scored hit.
     *
     * @param score the total retrieval score
     * @param content the memory's content
     */
    public record Hit(double score, String content) {
    }

    /**
     * @param example tenant, user and query
     * @param k hits wanted
     * @return the request URL
     */
    public String url(final ExampleQuery example, final int k) {
        return baseUrl + "/v1/tenants/" + encode(example.tenantId()) + "/users/" + encode(example.userId())
            + "/memories?recordAccess=false&query=" + encode(example.query()) + "&k=" + k;
    }

    /**
     * Runs one query.
     *
     * @param example tenant, user and query
     * @param k hits wanted
     * @return the hits in the retriever's order
     * @throws IOException if the request fails or the answer is not 200
     */
    public List<Hit> query(final ExampleQuery example, final int k) throws IOException {
        final HttpResponse<String> response;
        try {
            response = http.send(HttpRequest.newBuilder(URI.create(url(example, k))).timeout(Duration.ofSeconds(30))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted", e);
        }
        if (response.statusCode() != 200) {
            throw new IOException("HTTP " + response.statusCode() + ": " + response.body());
        }
        return hits(JSON.readTree(response.body()));
    }

    /** Reads hits from an array body, or from the first array field of an object body. */
    static List<Hit> hits(final JsonNode body) {
        JsonNode array = body;
        if (!body.isArray()) {
            array = null;
            for (final String field : List.of("memories", "hits", "results", "items")) {
                if (body.path(field).isArray()) {
                    array = body.path(field);
                    break;
                }
            }
        }
        final List<Hit> hits = new ArrayList<>();
        if (array == null) {
            return hits;
        }
        for (final JsonNode hit : array) {
            final JsonNode memory = hit.has("memory") ? hit.path("memory") : hit;
            final JsonNode score = hit.has("score") ? hit.path("score") : hit.path("total");
            hits.add(new Hit(score.isObject() ? score.path("total").asDouble() : score.asDouble(),
                memory.path("content").asText("")));
        }
        return hits;
    }

    /**
     * @param example the question
     * @param hits its answer
     * @return lines for the console
     */
    public static String format(final ExampleQuery example, final List<Hit> hits) {
        final StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "  %s/%s: \"%s\"%n",
            example.tenantId(), example.userId(), example.query()));
        if (hits.isEmpty()) {
            out.append("      (no memories)\n");
        }
        for (int i = 0; i < hits.size(); i++) {
            out.append(String.format(Locale.ROOT, "    %d. %.3f  %s%n", i + 1, hits.get(i).score(),
                abbreviate(hits.get(i).content(), 110)));
        }
        return out.toString();
    }

    private static String abbreviate(final String text, final int max) {
        final String oneLine = text.replaceAll("\\s+", " ").strip();
        return oneLine.length() <= max ? oneLine : oneLine.substring(0, max - 1) + "…";
    }

    private static String encode(final String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /**
     * Prints the demo's example retrievals: up to three questions of the input file, each with its top 3 hits.
     *
     * @param out where to print
     * @param file the demo's input (its example questions)
     * @param apps the running apps (the retriever is awaited ready, up to 60 s)
     * @throws IOException if the input cannot be read
     */
    static void print(final java.io.PrintStream out, final java.nio.file.Path file, final dev.engram.stack.DemoApps apps)
        throws IOException {
        final RetrievalExamples retriever = new RetrievalExamples(apps.retrieverUrl());
        apps.awaitRetrieverReady(Duration.ofSeconds(60));
        out.println();
        out.println("Example retrievals (GET /v1/tenants/{tenant}/users/{user}/memories?query=…&k=3):");
        for (final ExampleQuery example : ConversationSources.exampleQueries(file, 3)) {
            try {
                out.print(RetrievalExamples.format(example, retriever.query(example, 3)));
            } catch (IOException e) {
                out.printf("  %s/%s: \"%s\" failed: %s%n", example.tenantId(), example.userId(), example.query(), e.getMessage());
            }
        }
    }
}
