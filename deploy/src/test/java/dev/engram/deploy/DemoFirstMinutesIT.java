package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The demo's first minutes as the README and docs/api.md walk through them: reads that count as use (a context and a
 * search request without {@code recordAccess=false}, an MCP {@code get_context}) and a correction, on the shipped
 * sample, archive none of the sample user's memories. With the sample's own dates ({@code --original-dates}) the
 * correction, stamped now, moved the consolidator's event-time clock a year and a half ahead and the lifecycle pass
 * it ran archived Mira's unused memories.
 */
class DemoFirstMinutesIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MIRA = "/v1/tenants/acme/users/mira";

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void shouldArchiveNoneOfTheSampleUsersMemoriesWhenTheExamplesReadAndWrite() throws Exception {
        final ByteArrayOutputStream console = new ByteArrayOutputStream();
        final ExecutorService main = Executors.newSingleThreadExecutor();
        final DemoCommand demo;
        try (PrintStream out = new PrintStream(console, true, StandardCharsets.UTF_8)) {
            demo = new DemoCommand(out);
            final Future<Integer> run = main.submit(() -> new CommandLine(demo).execute("--port", "0",
                "--run-dir", dir.resolve("run").toString()));
            try {
                waitFor(() -> console.toString(StandardCharsets.UTF_8).contains("Press Ctrl-C") || run.isDone(), 5,
                    "the demo to serve");
                final Matcher served = Pattern.compile("Serving the retrieval API at (\\S+) ")
                    .matcher(console.toString(StandardCharsets.UTF_8));
                assertThat(served.find()).as(console.toString(StandardCharsets.UTF_8)).isTrue();
                final String url = served.group(1);
                final Map<String, String> before = statuses(url);
                assertThat(before).isNotEmpty();

                assertThat(send(url, "GET", MIRA + "/context?message=Which%20editor%20should%20I%20set%20up%3F", null)
                    .statusCode()).isEqualTo(200);
                assertThat(send(url, "GET", MIRA + "/memories?query=where%20does%20she%20live&k=3", null).statusCode())
                    .isEqualTo(200);
                assertThat(send(url, "POST", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                    + "{\"name\":\"get_context\",\"arguments\":{\"tenantId\":\"acme\",\"userId\":\"mira\",\"message\":"
                    + "\"Which editor should I set up?\"}}}").statusCode()).isEqualTo(200);
                final String ide = memoryId(url, "IntelliJ");
                assertThat(send(url, "PUT", MIRA + "/memories/" + ide,
                    "{\"content\": \"Uses IntelliJ IDEA as IDE\", \"value\": \"IntelliJ IDEA\"}").statusCode()).isEqualTo(202);
                waitFor(() -> "CORRECTED".equals(memory(url, ide).path("source").asText()), 2, "the correction");

                final Map<String, String> after = statuses(url);
                after.forEach((id, status) -> assertThat(status).as(id + " was " + before.get(id) + "; now: " + after)
                    .isEqualTo(before.getOrDefault(id, status)));
            } finally {
                demo.stop();
                run.get(60, TimeUnit.SECONDS);
            }
        } finally {
            main.shutdownNow();
        }
    }

    /** @return memory id → status (with the archive reason) of every memory of Mira */
    private Map<String, String> statuses(final String url) {
        final Map<String, String> statuses = new TreeMap<>();
        for (final JsonNode m : list(url).path("memories")) {
            statuses.put(m.path("memoryId").asText(), m.path("status").asText() + " " + m.path("archiveReason").asText(""));
        }
        return statuses;
    }

    private String memoryId(final String url, final String text) {
        for (final JsonNode m : list(url).path("memories")) {
            if (m.path("content").asText().contains(text)) {
                return m.path("memoryId").asText();
            }
        }
        throw new AssertionError("no memory of Mira mentions " + text);
    }

    private JsonNode memory(final String url, final String id) {
        for (final JsonNode m : list(url).path("memories")) {
            if (m.path("memoryId").asText().equals(id)) {
                return m;
            }
        }
        return JSON.createObjectNode();
    }

    private JsonNode list(final String url) {
        try {
            return JSON.readTree(send(url, "GET", MIRA + "/memories", null).body());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private HttpResponse<String> send(final String url, final String method, final String path, final String body) {
        try {
            final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Accept", "application/json, text/event-stream");
            if (body != null) {
                request.header("Content-Type", "application/json");
            }
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void waitFor(final BooleanSupplier condition, final int minutes, final String what) {
        dev.engram.testing.Waits.until(what, java.time.Duration.ofMinutes(minutes), condition::getAsBoolean);
    }
}
