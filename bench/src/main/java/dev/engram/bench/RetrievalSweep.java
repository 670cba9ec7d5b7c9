package dev.engram.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.engram.port.Embedder;
import dev.engram.core.UserKey;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Option;

/**
 * The sweep of {@link RetrievalBenchmark} (its options, a picocli mixin): synthetic users of 100 / 1,000 / 10,000
 * memories each, made of LoCoMo turn texts, asked the benchmark's distinct questions at a fixed rate
 * ({@code --sweep-rate}, CO-corrected) with {@code recordAccess=false}; JSON {@code bySize}: size → {@code p50Ms …
 * maxMs, errors, users, rate}.
 */
final class RetrievalSweep {

    /** Distinct LoCoMo turn texts the synthetic users are made of (each embedded once). */
    static final int SYNTHETIC_TEXTS = 1500;

    @Option(names = "--memories-per-user", paramLabel = "N[,N…]", split = ",", defaultValue = "100,1000,10000",
        description = "Sizes of the synthetic users of the sweep (default: ${DEFAULT-VALUE}); 0 skips the sweep.")
    List<Integer> sizes;

    @Option(names = "--users-per-size", paramLabel = "N", defaultValue = "2", description = "Synthetic users per size (default: ${DEFAULT-VALUE}).")
    int usersPerSize;

    @Option(names = "--sweep-rate", paramLabel = "REQ/S", defaultValue = "50", description = "Fixed rate of the sweep (default: ${DEFAULT-VALUE}).")
    int sweepRate;

    @Option(names = "--sweep-seconds", paramLabel = "S", defaultValue = "15", description = "Length of each size's phase (default: ${DEFAULT-VALUE}).")
    int sweepSeconds;

    /**
     * Runs the sweep: per size, publishes the synthetic users, waits until the pipeline settled, warms up
     * ({@link RetrievalBenchmark#WARMUP_SECONDS}) and times {@code --sweep-seconds} at {@code --sweep-rate}.
     *
     * @param stack the running stack
     * @param http the benchmark's client
     * @param samples the LoCoMo samples (texts of the synthetic users, the questions)
     * @param embedder embeds the synthetic users' texts once
     * @param out where progress is printed
     * @return {@code size → figures}, in the order given; empty when no size above 0 is given
     * @throws InterruptedException when interrupted while waiting
     */
    Map<String, Object> run(final EmbeddedStack stack, final HttpClient http, final List<LoCoMoQa.Sample> samples,
                            final Embedder embedder, final PrintStream out) throws InterruptedException {
        final Map<String, Object> bySize = new LinkedHashMap<>();
        final List<Integer> wanted = sizes.stream().filter(n -> n > 0).toList();
        if (wanted.isEmpty()) {
            return bySize;
        }
        final SyntheticUsers synthetic = SyntheticUsers.of(samples, SYNTHETIC_TEXTS, embedder);
        final List<String> queries = RetrievalRequests.distinctQueries(samples);
        for (final int size : wanted) {
            final List<UserKey> users = synthetic.publish(stack.bootstrapServers(), size, usersPerSize);
            stack.awaitSettled(Duration.ofMinutes(3));
            final List<HttpRequest> requests = RetrievalRequests.roundRobin(stack.apps().retrieverUrl(), users, queries);
            out.printf("%s sweep, %d memories per user: starts (%d s warm-up), load average %.2f%n", Instant.now(), size,
                RetrievalBenchmark.WARMUP_SECONDS, ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            LoadPhases.fixedRate(http, requests, sweepRate, RetrievalBenchmark.WARMUP_SECONDS, Latencies.histogram(), new AtomicLong());
            final Histogram h = Latencies.histogram();
            final AtomicLong errors = new AtomicLong();
            LoadPhases.fixedRate(http, requests, sweepRate, sweepSeconds, h, errors);
            final Map<String, Object> f = Latencies.figures(h, "");
            f.put("errors", errors.get());
            f.put("users", users.size());
            f.put("rate", sweepRate);
            bySize.put(String.valueOf(size), f);
            out.printf("sweep %d memories/user: p50 %s ms, p99 %s ms%n", size, f.get("p50Ms"), f.get("p99Ms"));
        }
        return bySize;
    }

    /**
     * Prints the sweep's table (nothing when no size ran).
     *
     * @param bySize the figures {@link #run} returned
     * @param rate the sweep's request rate (req/s)
     * @param out where it is printed
     */
    static void print(final Map<?, ?> bySize, final int rate, final PrintStream out) {
        if (!bySize.isEmpty()) {
            final List<List<String>> sweepRows = new ArrayList<>();
            sweepRows.add(List.of("memories/user", "users", "requests", "errors", "p50 ms", "p95 ms", "p99 ms", "max ms"));
            bySize.forEach((size, value) -> {
                final Map<?, ?> f = (Map<?, ?>) value;
                sweepRows.add(List.of(String.valueOf(size), String.valueOf(f.get("users")), String.valueOf(f.get("count")),
                    String.valueOf(f.get("errors")), String.valueOf(f.get("p50Ms")), String.valueOf(f.get("p95Ms")),
                    String.valueOf(f.get("p99Ms")), String.valueOf(f.get("maxMs"))));
            });
            out.println();
            out.println("sweep at " + rate + " req/s (CO-corrected), synthetic users from LoCoMo texts:");
            BenchReport.table(out, sweepRows);
        }
    }
}
