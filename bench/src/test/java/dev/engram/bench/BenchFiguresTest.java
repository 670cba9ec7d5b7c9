package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.engram.rules.RuleBasedExtractor;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JSON shapes of ingest, freshness, retrieval and cases (no timing asserted). */
class BenchFiguresTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(final Map<String, ?> figures) throws IOException {
        return JSON.readTree(BenchReport.toJson(figures));
    }

    @Test
    void shouldCarryTheAgreedIngestKeysWhenFiguresAreBuilt() throws Exception {
        final JsonNode f = json(IngestBenchmark.figures(374, 3900, 3600, 60.0, 3900, 600.0));
        assertThat(f.path("conversationsPerSecond").asDouble()).isCloseTo(374 / 60.0, org.assertj.core.data.Offset.offset(0.01));
        assertThat(f.path("embeddingsPerSecondCeiling").asDouble()).isEqualTo(600.0);
        assertThat(f.path("ratioToCeiling").asDouble()).isCloseTo(65.0 / 600.0, org.assertj.core.data.Offset.offset(0.001));
        assertThat(f.path("memoriesPerSecond").isNumber()).isTrue();
    }

    @Test
    void shouldRunTheSetAgainThroughFreshStacksWhenTheWarmupExceedsIt() {
        assertThat(IngestWarmup.passes(100, 374)).containsExactly(100);
        assertThat(IngestWarmup.passes(374, 374)).containsExactly(374);
        assertThat(IngestWarmup.passes(800, 374)).containsExactly(374, 374, 52);
        assertThat(IngestWarmup.passes(0, 374)).isEmpty();
        assertThat(IngestWarmup.passes(-5, 374)).isEmpty();
        assertThat(IngestWarmup.passes(10, 0)).isEmpty();
    }

    @Test
    void shouldRefuseAWarmupThatIsNeitherSteadyNorACountBeforeMeasuringAnything() {
        final java.io.StringWriter err = new java.io.StringWriter();
        final picocli.CommandLine cli = new picocli.CommandLine(new IngestBenchmark(
            new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true, java.nio.charset.StandardCharsets.UTF_8)));
        cli.setErr(new java.io.PrintWriter(err));
        assertThat(cli.execute("--warmup", "-3", "missing.json")).isEqualTo(2);
        assertThat(err.toString()).contains("--warmup must be 'steady' or a number of conversations", "'-3'");
        assertThat(cli.execute("--warmup", "twice", "missing.json")).isEqualTo(2);
    }

    @Test
    void shouldCarryFreshnessPercentilesWhenFiguresAreBuilt() throws Exception {
        final Histogram h = Latencies.histogram();
        for (int i = 1; i <= 100; i++) {
            h.recordValue(i * 1000L);
        }
        final JsonNode f = json(FreshnessBenchmark.figures(h));
        assertThat(f.path("probes").asInt()).isEqualTo(100);
        assertThat(f.path("freshnessP50Ms").asDouble()).isCloseTo(50.0, org.assertj.core.data.Offset.offset(0.1));
        assertThat(f.path("freshnessP99Ms").asDouble()).isCloseTo(99.0, org.assertj.core.data.Offset.offset(0.1));
    }

    @Test
    void shouldProbeWithAConversationThatAlwaysYieldsMemoriesWhenMeasuringFreshness() {
        assertThat(new RuleBasedExtractor().extract(FreshnessBenchmark.conversation("fresh-1", 1), null)).isNotEmpty();
    }

    @Test
    void shouldRecordEveryRequestFromItsDueTimeAndReportTheAgreedKeysWhenLoadIsApplied() throws Exception {
        final HttpServer server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
        server.createContext("/", exchange -> {
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.start();
        try {
            final HttpClient http = HttpClient.newHttpClient();
            final List<HttpRequest> requests = List.of(HttpRequest.newBuilder(
                URI.create("http://localhost:" + server.getAddress().getPort() + "/q")).GET().build());
            final Histogram fixed = Latencies.histogram();
            final AtomicLong errors = new AtomicLong();
            LoadPhases.fixedRate(http, requests, 50, 1, fixed, errors);
            final Histogram saturated = Latencies.histogram();
            final double rps = LoadPhases.saturation(http, requests, 2, 1, saturated, new AtomicLong());

            assertThat(fixed.getTotalCount()).isEqualTo(50);
            assertThat(errors.get()).isZero();
            final JsonNode f = json(RetrievalBenchmark.figures(50, fixed, 0, 2, saturated, 0, rps));
            assertThat(f.fieldNames()).toIterable().contains("p50Ms", "p95Ms", "p99Ms", "maxRequestsPerSecond");
            assertThat(f.path("maxRequestsPerSecond").asDouble()).isPositive();
            assertThat(f.path("saturation").path("count").asLong()).isEqualTo(saturated.getTotalCount());
        } finally {
            server.stop(0);
        }
    }

    @Test
    void shouldGroupTestsByCaseAndListCasesWithoutAnOfflineCheckWhenSummarized(@TempDir final Path dir) throws Exception {
        for (final String name : List.of("case-01.md", "case-02.md", "case-06.md", "notes.md")) {
            Files.writeString(dir.resolve(name), "# x");
        }
        final List<String> cases = CasesBenchmark.caseNumbers(dir);
        assertThat(cases).containsExactly("01", "02", "06");

        final JsonNode f = json(CasesBenchmark.figures(cases, List.of(
            new CasesBenchmark.Outcome("dev.engram.cases.EndToEndCasesTest", "shouldX_case01", true, null),
            new CasesBenchmark.Outcome("dev.engram.topology.ConsolidationCasesTest", "shouldY_case01", true, null),
            new CasesBenchmark.Outcome("dev.engram.cases.EndToEndCasesTest", "shouldZ_case02", false, "AssertionError: boom"),
            new CasesBenchmark.Outcome("dev.engram.cases.EndToEndCasesTest", "shouldW_case10", true, null))));

        assertThat(f.path("cases").fieldNames()).toIterable().containsExactly("01", "02", "06", "10");
        assertThat(f.path("cases").path("01").path("status").asText()).isEqualTo("passed");
        assertThat(f.path("cases").path("01").path("tests").asInt()).isEqualTo(2);
        assertThat(f.path("cases").path("02").path("status").asText()).isEqualTo("failed");
        assertThat(f.path("cases").path("02").path("checks").get(0).path("failure").asText()).contains("boom");
        assertThat(f.path("cases").path("06").path("status").asText()).isEqualTo("no offline check");
        assertThat(f.path("totals").path("passed").asInt()).isEqualTo(2);
        assertThat(f.path("totals").path("failed").asInt()).isEqualTo(1);
        assertThat(f.path("totals").path("noOfflineCheck").asInt()).isEqualTo(1);
    }
}
