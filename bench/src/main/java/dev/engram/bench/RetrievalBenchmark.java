package dev.engram.bench;

import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import dev.engram.port.Embedder;
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
 * reported on {@code memory-access} as in production, so the consolidator and the retriever fold them in the background;
 * {@code memoryUpdatedPer1000Queries} = {@code memory-updated} records written from the first timed request until the
 * hits of the last one are folded, per 1,000 answered requests (every phase, warm-ups included; the ceiling phase
 * embeds only): what reads cost in rewritten memories (0 since access moved to its own stores);
 * {@code memoryUpdatedDuringQueriesByOperation} says which. Before the phases, one request per user moves the
 * event-time clock of every consolidator task (stream time is per partition) from the conversations' dates to today,
 * and the phases start once the daily passes that catch up on those years have run (a one-off of querying
 * conversations years old, not a cost of reads).
 *
 * <ol>
 *   <li><b>Fixed rate</b> (open loop, default {@value #DEFAULT_RATE} req/s for {@code --seconds}): request i
 *       is due at start + i/rate and handed to a pool of {@value LoadPhases#THREADS} client threads; its latency is
 *       measured from the due time, not from when it was actually sent, so a stall delays and counts
 *       every request queued behind it (coordinated-omission correction, as in wrk2 / HdrHistogram's
 *       {@code recordValueWithExpectedInterval} rationale). When the rate is above what the retriever can
 *       serve, the queue grows without bound; to keep the run bounded, a request still queued
 *       {@value LoadPhases#DRAIN_SECONDS} s after the window closes is not sent: its wait so far is recorded (a lower
 *       bound of its latency) and it counts as an error.</li>
 *   <li><b>Saturation</b> (closed loop, {@code --concurrency} clients back to back for
 *       {@code --seconds}): completed requests per second = {@code maxRequestsPerSecond}.</li>
 * </ol>
 * Each phase starts after {@value #WARMUP_SECONDS} s of untimed requests, the first after
 * {@value #FIRST_WARMUP_SECONDS} s at its rate and then {@value #WARMUP_SLICE_SECONDS} s more at a time until the JIT
 * compiled for less than 5 % of a slice, while the warm-up's wall time stays within {@code --max-warmup-seconds} (120 by
 * default; above saturation a slice also waits for its queue): the JIT's warm-up of the request path;
 * {@code fixedRateWarmUp.seconds} says how long it took, in wall-clock seconds. Latencies in an HdrHistogram
 * (µs, 3 significant digits). Non-200 answers are counted as errors (their latency is recorded too).
 *
 * <p><b>Query-embedding ceiling</b> ({@code queryEmbeddingCeiling}), measured in the same run right before
 * the saturation phase: the retriever's own embedder alone, {@code --concurrency} threads embedding the
 * benchmark's distinct queries back to back for {@code --seconds} as a request does (with the model's query
 * instruction, {@link Embedder#embedQuery}); queries/s. Every request embeds its
 * query (the retriever's LRU of query vectors is smaller than the set of distinct queries cycled through,
 * {@code queryCacheHitRate} says how often it hit; LoCoMo repeats some questions word for word, so it is not 0;
 * {@code --query-cache-size 0} turns the LRU off and every request embeds), so the embedder bounds the retriever:
 * {@code ratioToQueryCeiling} = maxRequestsPerSecond / queryEmbeddingCeiling is the share of that bound
 * the whole request path (HTTP, search, ranking, JSON, access reports) keeps. The ceiling starts once the
 * fixed-rate phase's access reports are applied. On a shared machine the two phases get different shares of
 * the cores (CFS shares by runnable thread), so the same run also prints the JVM's CPU time per operation:
 * {@code cpuMsPerQueryEmbedding} (ceiling), {@code cpuMsPerRequest} (saturation, everything the JVM did: HTTP
 * client and server, ranking, the broker, the consolidator applying the access reports) and
 * {@code cpuRatioToQueryCeiling} = their quotient, the same share measured in CPU time.
 *
 * <p><b>What sets the tail</b>, measured in the same run ({@link PhaseProbe}): each phase's map also has its GC pauses
 * ({@code gcPauses}, {@code gcPauseMsTotal}, {@code gcPauseMsMax}; the fixed-rate one's also top-level as
 * {@code gcPauseMsMax}), the requests a pause overlapped and the p99 of the others ({@code p99MsOutsideGcPauses}), the
 * p99 and pause time per second ({@code p99MsBySecond}, {@code gcPauseMsBySecond}), the JIT's compilation time
 * ({@code jitCompileMs}) and the CPU per request by stage ({@code cpuMsPerRequestByStage}: request threads, query
 * embeddings, the access loop's stream threads, broker, GC, JIT, the benchmark's own client threads apart).
 * {@code fixedRateWarmUp} is the first phase's untimed warm-up, measured alike (the JIT's share of a cold start), and
 * {@code fixedRateWithoutAccess} the timed fixed-rate phase again with {@code recordAccess=false} right after it (no
 * access reports, so no access loop behind the requests; {@code p99MsWithoutAccess} top-level): the access loop's
 * share of the tail is the difference of the two p99s.
 *
 * <p><b>Sweep</b> ({@code --memories-per-user 100,1000,10000}, {@code bySize}): for each size,
 * {@code --users-per-size} synthetic users ({@link SyntheticUsers}: memories built from LoCoMo turns,
 * published straight to {@code memory-updated}) are materialized, then asked the LoCoMo questions round-robin
 * at {@code --sweep-rate} req/s (open loop, CO-corrected as above) for {@code --sweep-seconds}, with
 * {@code recordAccess=false} (the consolidator does not know these users); p50/p95/p99 per size.
 */
@Command(name = "retrieval", mixinStandardHelpOptions = true,
    description = "Retriever HTTP latency at a fixed rate (coordinated-omission corrected) and throughput at saturation.")
public final class RetrievalBenchmark implements Callable<Integer> {

    static final int DEFAULT_RATE = 200;
    static final int WARMUP_SECONDS = 3;
    /**
     * Warm-up of the first phase: the JVM has compiled little of the request path by then (C2 was still busy for
     * minutes in session 5's JFR), so 3 s measured its JIT, not its steady state.
     */
    static final int FIRST_WARMUP_SECONDS = 20;
    /** After the first warm-up, it goes on in slices of this many seconds while the JIT is still busy. */
    static final int WARMUP_SLICE_SECONDS = 5;
    /**
     * The warm-up ends after the first slice in which the JIT compiled for less than this share of the slice's wall
     * time: in a run at load 27 on 5492799 it compiled for 22.6 s of the 30-s timed phase after 20 s of warm-up
     * (0.8–1.1 ms of compiler CPU per request, competing with the requests for the two cores).
     */
    static final double JIT_QUIET_SHARE = 0.05;

    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE",
        description = "LoCoMo JSON (default: " + Inputs.LOCOMO_DEV + ").")
    Path input;

    @Option(names = "--rate", paramLabel = "REQ/S", defaultValue = "200", description = "Fixed request rate (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "30", description = "Length of each phase (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--max-warmup-seconds", paramLabel = "S", defaultValue = "120",
        description = "Longest warm-up of the first phase: " + FIRST_WARMUP_SECONDS + " s, then " + WARMUP_SLICE_SECONDS
            + " s more at a time until the JIT compiled for less than 5 %% of one (default: ${DEFAULT-VALUE}).")
    int maxWarmupSeconds;

    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "8", description = "Clients at saturation (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--query-cache-size", paramLabel = "N", defaultValue = "-1",
        description = "Entries of the retriever's query-vector LRU (retrieval.query.cache.size); 0 embeds every "
            + "request's query, so a repeated question in the benchmark's stream is not served from the cache "
            + "(default: the config's).")
    int queryCacheSize;

    @Mixin
    RetrievalSweep sweep = new RetrievalSweep();

    @Mixin
    SettingsOption settings = new SettingsOption();

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
    @SuppressWarnings("unchecked") // the phases' maps of figures(…) are Map<String, Object>
    public Integer call() throws Exception {
        final Path file = Inputs.resolve(input);
        final List<LoCoMoQa.Sample> samples = LoCoMoQa.read(file);
        // HTTP/1.1 as the retriever serves it (the default HTTP/2 asks every new connection for an h2c upgrade)
        final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).executor(Executors.newFixedThreadPool(4, LoadPhases.named("bench-http-"))).build();
        final Map<String, Object> figures;
        final Map<String, Object> stackSettings = settings.over(queryCacheSize < 0 ? Map.of()
            : Map.of(dev.engram.domain.DomainConfig.QUERY_CACHE_SIZE, queryCacheSize));
        try (EmbeddedStack stack = EmbeddedStack.start("retrieval", stackSettings)) {
            try (Ingest ingest = new Ingest(stack.bootstrapServers(), Map.of())) {
                ingest.publish(file, null);
            }
            stack.awaitSettled(Duration.ofMinutes(3));
            stack.apps().awaitRetrieverReady(Duration.ofSeconds(60));
            final List<HttpRequest> requests = RetrievalRequests.requests(stack.apps().retrieverUrl(), samples);
            out.printf("bench retrieval — %s ingested; %d distinct queries; %d s per phase%n", file, requests.size(), seconds);

            // The first reported hit of a user moves the event-time clock of the consolidator's task holding that user
            // (stream time is per task, i.e. per partition) from the conversations' dates (LoCoMo: 2023) to today, and
            // that task's daily pass catches up on those years at once (staleness, merges, hard deletes, observations):
            // a one-off of replaying old conversations, run for every user before the timed phases instead of inside
            // them (one request of one user left the other tasks' passes to the first phase: 603 memory-updated records
            // during the queries of the quiet run on 719909d).
            final List<HttpRequest> firstOfEachUser = RetrievalRequests.onePerUser(requests);
            LoadPhases.fixedRate(http, firstOfEachUser, firstOfEachUser.size(), 1, Latencies.histogram(), new AtomicLong());
            stack.awaitSettled(Duration.ofMinutes(5));
            // every answered query reports its hits on memory-access; what memory-updated gets meanwhile is what reads
            // cost the consolidator and the retriever (goal: nothing, a read never rewrites a memory)
            final long updatedBefore = stack.monitor().count(dev.engram.topics.Topic.MEMORY_UPDATED.name());
            final Map<String, Long> operationsBefore = operations(stack);
            final List<Histogram> phases = new ArrayList<>();
            final List<AtomicLong> phaseErrors = new ArrayList<>();
            phase("fixed rate, " + rate + " req/s", FIRST_WARMUP_SECONDS);
            final Histogram warmUp = counted(phases, Latencies.histogram());
            final AtomicLong warmUpErrors = counted(phaseErrors, new AtomicLong());
            final PhaseProbe warmUpProbe = PhaseProbe.start();
            // bounded by the wall clock: above saturation each slice also waits for its queue to drain
            final long warmUpStart = System.nanoTime();
            LoadPhases.fixedRate(http, requests, rate, FIRST_WARMUP_SECONDS, warmUp, warmUpErrors, warmUpProbe);
            // on until the JIT is done with the request path: its compiler threads take cores from the requests
            long sliceJitMs = -1; // no slice yet
            while ((System.nanoTime() - warmUpStart) / 1e9 + WARMUP_SLICE_SECONDS <= maxWarmupSeconds
                && (sliceJitMs < 0 || sliceJitMs > JIT_QUIET_SHARE * WARMUP_SLICE_SECONDS * 1000)) {
                final long jitBefore = PhaseProbe.jitMs();
                LoadPhases.fixedRate(http, requests, rate, WARMUP_SLICE_SECONDS, warmUp, warmUpErrors, warmUpProbe);
                sliceJitMs = PhaseProbe.jitMs() - jitBefore;
            }
            final int warmUpSeconds = (int) Math.round((System.nanoTime() - warmUpStart) / 1e9);
            warmUpProbe.close();
            out.printf("warm-up: %d s (the JIT compiled for %d ms in the last %d s)%n", warmUpSeconds, sliceJitMs,
                WARMUP_SLICE_SECONDS);
            final Histogram fixed = counted(phases, Latencies.histogram());
            final AtomicLong fixedErrors = counted(phaseErrors, new AtomicLong());
            final PhaseProbe fixedProbe = PhaseProbe.start();
            LoadPhases.fixedRate(http, requests, rate, seconds, fixed, fixedErrors, fixedProbe);
            fixedProbe.close();

            final Embedder embedder = stack.apps().retrieverEmbedder();
            final List<String> queries = RetrievalRequests.distinctQueries(samples);
            // the fixed-rate phase's access reports are applied before the next phases, so they have the cores
            stack.awaitSettled(Duration.ofMinutes(3));
            // the same requests without their access reports (recordAccess=false): the access loop's share of the tail
            phase("fixed rate without access reports, " + rate + " req/s");
            final List<HttpRequest> unreported = RetrievalRequests.withoutAccess(requests);
            LoadPhases.fixedRate(http, unreported, rate, WARMUP_SECONDS, Latencies.histogram(), new AtomicLong());
            final Histogram quiet = Latencies.histogram();
            final AtomicLong quietErrors = new AtomicLong();
            final PhaseProbe quietProbe = PhaseProbe.start();
            LoadPhases.fixedRate(http, unreported, rate, seconds, quiet, quietErrors, quietProbe);
            quietProbe.close();
            phase("query-embedding ceiling, " + concurrency + " threads");
            LoadPhases.queryCeiling(embedder, queries, concurrency, WARMUP_SECONDS);
            final LoadPhases.CpuClock ceilingCpu = new LoadPhases.CpuClock();
            final double ceiling = LoadPhases.queryCeiling(embedder, queries, concurrency, seconds);
            final double cpuMsPerEmbedding = ceilingCpu.msPer(ceiling);
            final dev.engram.scoring.QueryVectors cache = stack.apps().retrieverScorer().queryVectors();
            final long hitsBefore = cache.hits();
            final long missesBefore = cache.misses();
            phase("saturation, " + concurrency + " clients");
            LoadPhases.saturation(http, requests, concurrency, WARMUP_SECONDS, counted(phases, Latencies.histogram()),
                counted(phaseErrors, new AtomicLong()));
            final Histogram saturated = counted(phases, Latencies.histogram());
            final AtomicLong saturatedErrors = counted(phaseErrors, new AtomicLong());
            final LoadPhases.CpuClock saturationCpu = new LoadPhases.CpuClock();
            final PhaseProbe saturationProbe = PhaseProbe.start();
            final double throughput = LoadPhases.saturation(http, requests, concurrency, seconds, saturated, saturatedErrors);
            final double cpuMsPerRequest = saturationCpu.msPer(throughput);
            saturationProbe.close();
            final long lookups = cache.hits() - hitsBefore + cache.misses() - missesBefore;
            final double hitRate = lookups == 0 ? 0 : (double) (cache.hits() - hitsBefore) / lookups;
            stack.apps().requireAlive();
            stack.awaitSettled(Duration.ofMinutes(3)); // the hits of the last requests folded
            final long updatedByReads = stack.monitor().count(dev.engram.topics.Topic.MEMORY_UPDATED.name()) - updatedBefore;
            final long answered = phases.stream().mapToLong(Histogram::getTotalCount).sum()
                - phaseErrors.stream().mapToLong(AtomicLong::get).sum();
            figures = figures(rate, fixed, fixedErrors.get(), concurrency, saturated, saturatedErrors.get(), throughput);
            final Map<String, Object> fixedProbeFigures = fixedProbe.figures(fixed.getTotalCount());
            figures.put("gcPauseMsMax", fixedProbeFigures.get("gcPauseMsMax"));
            figures.put("p99MsWithoutAccess", Latencies.figures(quiet, "").get("p99Ms"));
            ((Map<String, Object>) figures.get("fixedRate")).putAll(fixedProbeFigures);
            final Map<String, Object> quietFigures = Latencies.figures(quiet, "");
            quietFigures.put("errors", quietErrors.get());
            quietFigures.putAll(quietProbe.figures(quiet.getTotalCount()));
            figures.put("fixedRateWithoutAccess", quietFigures);
            final Map<String, Object> warmUpFigures = Latencies.figures(warmUp, "");
            warmUpFigures.put("seconds", warmUpSeconds);
            warmUpFigures.put("jitCompileMsLastSlice", sliceJitMs);
            warmUpFigures.putAll(warmUpProbe.figures(warmUp.getTotalCount()));
            figures.put("fixedRateWarmUp", warmUpFigures);
            ((Map<String, Object>) figures.get("saturation")).putAll(saturationProbe.figures(saturated.getTotalCount()));
            figures.put("answeredQueries", answered);
            figures.put("memoryUpdatedDuringQueries", updatedByReads);
            figures.put("memoryUpdatedPer1000Queries", BenchReport.round(answered == 0 ? 0 : 1000.0 * updatedByReads / answered, 3));
            final Map<String, Long> operationsAfter = operations(stack);
            final Map<String, Object> byOperation = new LinkedHashMap<>();
            operationsAfter.forEach((operation, n) -> {
                if (n > operationsBefore.getOrDefault(operation, 0L)) {
                    byOperation.put(operation, n - operationsBefore.getOrDefault(operation, 0L));
                }
            });
            figures.put("memoryUpdatedDuringQueriesByOperation", byOperation);
            figures.put("queryEmbeddingCeiling", BenchReport.round(ceiling, 1));
            figures.put("ratioToQueryCeiling", BenchReport.round(throughput / ceiling, 3));
            figures.put("queryCacheHitRate", BenchReport.round(hitRate, 3));
            figures.put("queryCacheSize", stack.config().getInt(dev.engram.domain.DomainConfig.QUERY_CACHE_SIZE));
            figures.put("cpuMsPerQueryEmbedding", BenchReport.round(cpuMsPerEmbedding, 2));
            figures.put("cpuMsPerRequest", BenchReport.round(cpuMsPerRequest, 2));
            figures.put("cpuRatioToQueryCeiling", BenchReport.round(cpuMsPerEmbedding / cpuMsPerRequest, 3));
            figures.put("bySize", sweep.run(stack, http, samples, embedder, out));
            figures.put("loadAverage", BenchReport.round(
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), 2));
            figures.put("jvm", PhaseProbe.jvm());
            settings.addTo(figures);
        }
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("phase", "requests", "errors", "p50 ms", "p95 ms", "p99 ms", "max ms", "req/s"));
        rows.add(row("fixed " + rate + " req/s (CO-corrected)", (Map<?, ?>) figures.get("fixedRate"), rate));
        rows.add(row("fixed " + rate + " req/s, no access reports", (Map<?, ?>) figures.get("fixedRateWithoutAccess"), rate));
        rows.add(row("first " + ((Map<?, ?>) figures.get("fixedRateWarmUp")).get("seconds") + " s (warm-up)",
            (Map<?, ?>) figures.get("fixedRateWarmUp"), rate));
        rows.add(row("saturation, " + concurrency + " clients", (Map<?, ?>) figures.get("saturation"),
            ((Number) figures.get("maxRequestsPerSecond")).doubleValue()));
        out.println();
        BenchReport.table(out, rows);
        for (final String phase : List.of("fixedRate", "fixedRateWithoutAccess", "fixedRateWarmUp", "saturation")) {
            final Map<?, ?> f = (Map<?, ?>) figures.get(phase);
            out.printf("%s: %s GC pauses, %s ms in all, longest %s ms%s; survivors up to %s MB, %s MB promoted; JIT %s ms; "
                    + "CPU ms per request by stage %s; KB allocated per request by stage %s, by thread %s; load %s%n",
                phase, f.get("gcPauses"), f.get("gcPauseMsTotal"), f.get("gcPauseMsMax"),
                f.containsKey("requestsOverlappingGcPauses") ? "; " + f.get("requestsOverlappingGcPauses")
                    + " requests overlapped one (p99 of the others " + f.get("p99MsOutsideGcPauses") + " ms; of those due "
                    + PhaseProbe.BACKLOG_MS + " ms or more after any pause " + f.get("p99MsAwayFromGcPauses") + " ms)" : "",
                f.get("gcSurvivorMbMax"), f.get("gcPromotedMbTotal"), f.get("jitCompileMs"), f.get("cpuMsPerRequestByStage"),
                f.get("allocatedKbPerRequestByStage"), f.get("allocatedKbPerRequestByThread"), f.get("loadAverage"));
        }
        out.printf("query-embedding ceiling %.1f queries/s (%d threads, the retriever's embedder alone); "
                + "ratioToQueryCeiling %.3f; query cache hit rate %.3f%n", figures.get("queryEmbeddingCeiling"),
            concurrency, figures.get("ratioToQueryCeiling"), figures.get("queryCacheHitRate"));
        out.printf("process CPU: %.2f ms per query embedding (ceiling), %.2f ms per request (saturation); "
                + "cpuRatioToQueryCeiling %.3f%n", figures.get("cpuMsPerQueryEmbedding"), figures.get("cpuMsPerRequest"),
            figures.get("cpuRatioToQueryCeiling"));
        out.printf("JVM: %s%n", figures.get("jvm"));
        RetrievalSweep.print((Map<?, ?>) figures.get("bySize"), sweep.sweepRate, out);
        BenchReport.writeJson(json.file(), figures, out);
        return 0;
    }

    /** @return {@code memory-updated} records read so far by operation (observations apart) */
    private static Map<String, Long> operations(final EmbeddedStack stack) {
        final Map<String, Long> out = new LinkedHashMap<>();
        for (final dev.engram.avro.UpdateOperation operation : dev.engram.avro.UpdateOperation.values()) {
            out.put(operation.name(), stack.monitor().updates(operation));
        }
        out.put("observations", stack.monitor().observationsWritten());
        return out;
    }

    /** @return {@code value}, added to {@code all} (the phases whose answered requests are counted) */
    private static <T> T counted(final List<T> all, final T value) {
        all.add(value);
        return value;
    }

    /** Prints when a phase (with its warm-up) starts, with the load average, so a profile can be cut to it. */
    private void phase(final String name) {
        phase(name, WARMUP_SECONDS);
    }

    private void phase(final String name, final int warmupSeconds) {
        out.printf("%s %s: starts (%d s warm-up), load average %.2f%n", java.time.Instant.now(), name, warmupSeconds,
            java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
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

}
