package dev.engram.bench;

import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.engram.stack.ConversationSources;
import dev.engram.stack.Ingest;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bench retrieval}: the retriever's query endpoint under concurrent HTTP load.
 *
 * <p>Setup: the embedded stack ingests the input (default: the LoCoMo dev split, ~600 memories per
 * user); the queries are its category 1–4 questions, each asked as the user it names
 * ({@code GET /v1/tenants/locomo/users/{user}/memories?query=…&k=5}), round-robin. Every hit is
 * reported on {@code memory-access} as in production, so the consolidator works in the background.
 *
 * <ol>
 *   <li><b>Fixed rate</b> (open loop, default {@value #DEFAULT_RATE} req/s for {@code --seconds}): request i
 *       is due at start + i/rate and handed to a pool of {@value #THREADS} client threads; its latency is
 *       measured from the due time, not from when it was actually sent, so a stall delays and counts
 *       every request queued behind it (coordinated-omission correction, as in wrk2 / HdrHistogram's
 *       {@code recordValueWithExpectedInterval} rationale). When the rate is above what the retriever can
 *       serve, the queue grows without bound; to keep the run bounded, a request still queued
 *       {@value #DRAIN_SECONDS} s after the window closes is not sent: its wait so far is recorded (a lower
 *       bound of its latency) and it counts as an error.</li>
 *   <li><b>Saturation</b> (closed loop, {@code --concurrency} clients back to back for
 *       {@code --seconds}): completed requests per second = {@code maxRequestsPerSecond}.</li>
 * </ol>
 * Each phase starts after {@value #WARMUP_SECONDS} s of untimed requests. Latencies in an HdrHistogram
 * (µs, 3 significant digits). Non-200 answers are counted as errors (their latency is recorded too).
 */
@Command(name = "retrieval", mixinStandardHelpOptions = true,
    description = "Retriever HTTP latency at a fixed rate (coordinated-omission corrected) and throughput at saturation.")
public final class RetrievalBenchmark implements Callable<Integer> {

    static final int DEFAULT_RATE = 200;
    static final int THREADS = 64;
    static final int WARMUP_SECONDS = 3;
    /** After the fixed-rate window, queued requests still unsent this long after it are not sent. */
    static final int DRAIN_SECONDS = 30;

    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE",
        description = "LoCoMo JSON (default: " + Inputs.LOCOMO_DEV + ").")
    Path input;

    @Option(names = "--rate", paramLabel = "REQ/S", defaultValue = "200", description = "Fixed request rate (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "30", description = "Length of each phase (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "8", description = "Clients at saturation (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Mixin
    JsonOption json = new JsonOption();

    private final PrintStream out;

    /** Prints to standard output. */
    public RetrievalBenchmark() {
        this(System.out);
    }

    /** @param out where the table is printed */
    public RetrievalBenchmark(final PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        final Path file = Inputs.resolve(input);
        final List<LoCoMoQa.Sample> samples = LoCoMoQa.read(file);
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .executor(Executors.newFixedThreadPool(4)).build();
        final Map<String, Object> figures;
        try (EmbeddedStack stack = EmbeddedStack.start("retrieval")) {
            try (Ingest ingest = new Ingest(stack.bootstrapServers(), Map.of())) {
                ingest.publish(file, null);
            }
            stack.awaitSettled(Duration.ofMinutes(3));
            stack.apps().awaitRetrieverReady(Duration.ofSeconds(60));
            final List<HttpRequest> requests = requests(stack.apps().retrieverUrl(), samples);
            out.printf("bench retrieval — %s ingested; %d distinct queries; %d s per phase%n", file, requests.size(), seconds);

            fixedRate(http, requests, rate, WARMUP_SECONDS, Latencies.histogram(), new AtomicLong());
            final Histogram fixed = Latencies.histogram();
            final AtomicLong fixedErrors = new AtomicLong();
            fixedRate(http, requests, rate, seconds, fixed, fixedErrors);

            saturation(http, requests, concurrency, WARMUP_SECONDS, Latencies.histogram(), new AtomicLong());
            final Histogram saturated = Latencies.histogram();
            final AtomicLong saturatedErrors = new AtomicLong();
            final double throughput = saturation(http, requests, concurrency, seconds, saturated, saturatedErrors);
            stack.apps().requireAlive();
            figures = figures(rate, fixed, fixedErrors.get(), concurrency, saturated, saturatedErrors.get(), throughput);
        }
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("phase", "requests", "errors", "p50 ms", "p95 ms", "p99 ms", "max ms", "req/s"));
        rows.add(row("fixed " + rate + " req/s (CO-corrected)", (Map<?, ?>) figures.get("fixedRate"), rate));
        rows.add(row("saturation, " + concurrency + " clients", (Map<?, ?>) figures.get("saturation"),
            ((Number) figures.get("maxRequestsPerSecond")).doubleValue()));
        out.println();
        BenchReport.table(out, rows);
        BenchReport.writeJson(json.file(), figures, out);
        return 0;
    }

    private static List<String> row(final String phase, final Map<?, ?> f, final double rps) {
        return List.of(phase, String.valueOf(f.get("count")), String.valueOf(f.get("errors")), String.valueOf(f.get("p50Ms")),
            String.valueOf(f.get("p95Ms")), String.valueOf(f.get("p99Ms")), String.valueOf(f.get("maxMs")), BenchReport.num(rps, 1));
    }

    /**
     * @return {@code p50Ms, p95Ms, p99Ms} (fixed rate), {@code maxRequestsPerSecond} (saturation), then
     *     both phases in detail
     */
    static Map<String, Object> figures(final int rate, final Histogram fixed, final long fixedErrors,
                                       final int concurrency, final Histogram saturated, final long saturatedErrors,
                                       final double throughput) {
        final Map<String, Object> fixedFigures = Latencies.figures(fixed, "");
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put("rate", rate);
        f.put("p50Ms", fixedFigures.get("p50Ms"));
        f.put("p95Ms", fixedFigures.get("p95Ms"));
        f.put("p99Ms", fixedFigures.get("p99Ms"));
        f.put("maxRequestsPerSecond", BenchReport.round(throughput, 1));
        fixedFigures.put("errors", fixedErrors);
        f.put("fixedRate", fixedFigures);
        final Map<String, Object> sat = Latencies.figures(saturated, "");
        sat.put("errors", saturatedErrors);
        sat.put("concurrency", concurrency);
        sat.put("requestsPerSecond", BenchReport.round(throughput, 1));
        f.put("saturation", sat);
        return f;
    }

    /** One query request per scored question, asked as the user it names (the first speaker when none). */
    static List<HttpRequest> requests(final String baseUrl, final List<LoCoMoQa.Sample> samples) {
        final List<HttpRequest> out = new ArrayList<>();
        for (final LoCoMoQa.Sample s : samples) {
            for (final LoCoMoQa.Question q : s.questions()) {
                final String user = URLEncoder.encode(s.userId(q.speakers().get(0)), StandardCharsets.UTF_8);
                out.add(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/tenants/" + ConversationSources.LOCOMO_TENANT
                    + "/users/" + user + "/memories?k=5&query=" + URLEncoder.encode(q.question(), StandardCharsets.UTF_8)))
                    .timeout(Duration.ofSeconds(30)).GET().build());
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("The input has no category 1-4 questions to ask");
        }
        return out;
    }

    /** Open loop at a fixed rate; latency from each request's due time. */
    static void fixedRate(final HttpClient http, final List<HttpRequest> requests, final int rate, final int seconds,
                          final Histogram h, final AtomicLong errors) throws InterruptedException {
        final ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        final long period = 1_000_000_000L / rate;
        final long total = (long) rate * seconds;
        final long start = System.nanoTime() + 50_000_000L;
        final long drainDeadline = start + TimeUnit.SECONDS.toNanos(seconds + DRAIN_SECONDS);
        try {
            for (long i = 0; i < total; i++) {
                final long due = start + i * period;
                final long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                final HttpRequest request = requests.get((int) (i % requests.size()));
                pool.execute(() -> {
                    if (System.nanoTime() > drainDeadline) {
                        // the server fell this far behind: record the wait so far, do not send (bounds the run)
                        synchronized (h) {
                            h.recordValue(Math.max(0, (System.nanoTime() - due) / 1000));
                        }
                        errors.incrementAndGet();
                        return;
                    }
                    final boolean ok = send(http, request);
                    synchronized (h) {
                        h.recordValue(Math.max(0, (System.nanoTime() - due) / 1000));
                    }
                    if (!ok) {
                        errors.incrementAndGet();
                    }
                });
            }
        } finally {
            pool.shutdown();
            pool.awaitTermination(5, TimeUnit.MINUTES);
        }
    }

    /** Closed loop with {@code concurrency} clients; returns completed requests per second. */
    static double saturation(final HttpClient http, final List<HttpRequest> requests, final int concurrency,
                             final int seconds, final Histogram h, final AtomicLong errors) throws InterruptedException {
        final ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        final AtomicInteger next = new AtomicInteger();
        final AtomicLong completed = new AtomicLong();
        final long start = System.nanoTime();
        final long end = start + TimeUnit.SECONDS.toNanos(seconds);
        for (int c = 0; c < concurrency; c++) {
            pool.execute(() -> {
                while (System.nanoTime() < end) {
                    final HttpRequest request = requests.get(Math.floorMod(next.getAndIncrement(), requests.size()));
                    final long sent = System.nanoTime();
                    final boolean ok = send(http, request);
                    synchronized (h) {
                        h.recordValue((System.nanoTime() - sent) / 1000);
                    }
                    completed.incrementAndGet();
                    if (!ok) {
                        errors.incrementAndGet();
                    }
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(seconds + 300L, TimeUnit.SECONDS);
        return completed.get() / ((System.nanoTime() - start) / 1e9);
    }

    private static boolean send(final HttpClient http, final HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
