package dev.engram.bench;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.stack.Ingest;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bench freshness}: time from publishing a conversation to its memory being retrievable.
 *
 * <p>On the embedded stack, one probe at a time: a conversation for a fresh user (tenant
 * {@value #TENANT}, user {@code fresh-<i>}, two user turns that the rule-based extractor turns into a
 * fact and an episode) is sent and flushed; the clock starts before the send and stops when the
 * retriever's {@code GET /v1/tenants/bench/users/fresh-<i>/memories?status=ACTIVE} lists a memory
 * (polled every {@value #POLL_MICROS} µs). The path measured: producer → broker → extractor (extract,
 * embed, EOS commit) → consolidator (EOS commit) → retriever read model (EOS commit) → IQ over HTTP.
 * The listing endpoint is used because it does not report access events. Idle pipeline; probes are
 * sequential so each one sees the latency, not a queue.
 */
@Command(name = "freshness", mixinStandardHelpOptions = true,
    description = "Publish → retrievable latency on the embedded stack: p50, p99.")
public final class FreshnessBenchmark implements Callable<Integer> {

    static final String TENANT = "bench";
    static final long POLL_MICROS = 2000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(60);

    @Option(names = "--probes", paramLabel = "N", defaultValue = "100", description = "Conversations to time (default: ${DEFAULT-VALUE}).")
    int probes;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "5", description = "Untimed probes first (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Mixin
    JsonOption json = new JsonOption();

    private final PrintStream out;

    /** Prints to standard output. */
    public FreshnessBenchmark() {
        this(System.out);
    }

    /** @param out where the table is printed */
    public FreshnessBenchmark(final PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        out.printf("bench freshness — %d probes after %d warm-up probes%n", probes, warmup);
        final Histogram h = Latencies.histogram();
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        try (EmbeddedStack stack = EmbeddedStack.start("freshness");
             Ingest ingest = new Ingest(stack.bootstrapServers(), Map.of(
                 org.apache.kafka.clients.producer.ProducerConfig.LINGER_MS_CONFIG, 0))) {
            stack.apps().awaitRetrieverReady(Duration.ofSeconds(120));
            for (int i = 0; i < warmup + probes; i++) {
                final String user = "fresh-" + i;
                final ConversationCompleted c = conversation(user, i);
                final long start = System.nanoTime();
                ingest.send(c);
                ingest.flush();
                awaitListed(http, stack.apps().retrieverUrl(), user);
                final long micros = (System.nanoTime() - start) / 1000;
                if (i >= warmup) {
                    h.recordValue(micros);
                }
                stack.apps().requireAlive();
            }
        }
        final Map<String, Object> figures = figures(h);
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("figure", "value"));
        figures.forEach((k, v) -> rows.add(List.of(k, String.valueOf(v))));
        out.println();
        BenchReport.table(out, rows);
        BenchReport.writeJson(json.file(), figures, out);
        return 0;
    }

    /** @return {@code probes, freshnessP50Ms, freshnessP95Ms, freshnessP99Ms, freshnessMaxMs} */
    static Map<String, Object> figures(final Histogram h) {
        final Map<String, Object> all = Latencies.figures(h, "");
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put("probes", all.get("count"));
        f.put("freshnessP50Ms", all.get("p50Ms"));
        f.put("freshnessP95Ms", all.get("p95Ms"));
        f.put("freshnessP99Ms", all.get("p99Ms"));
        f.put("freshnessMaxMs", all.get("maxMs"));
        return f;
    }

    /** A small conversation whose memories are certain to be extracted (a fact and an episode). */
    static ConversationCompleted conversation(final String user, final int i) {
        final Instant at = Instant.parse("2026-01-01T09:00:00Z").plusSeconds(60L * i);
        final List<Message> messages = List.of(
            new Message(0, "user", "I moved to Lyon last month and I work at Ferrovia Labs now.", at),
            new Message(1, "assistant", "Congratulations on the move!", at.plusSeconds(5)),
            new Message(2, "user", "We adopted a rescue dog called Biscuit number " + i + " on Saturday.", at.plusSeconds(10)));
        return ConversationCompleted.newBuilder().setTenantId(TENANT).setUserId(user)
            .setConversationId("fresh-" + i).setMessages(messages).setCompletedAt(at.plusSeconds(10)).build();
    }

    private static void awaitListed(final HttpClient http, final String baseUrl, final String user) throws Exception {
        final HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/v1/tenants/" + TENANT + "/users/" + user
            + "/memories?status=ACTIVE")).timeout(Duration.ofSeconds(5)).GET().build();
        final long deadline = System.nanoTime() + PROBE_TIMEOUT.toNanos();
        while (true) {
            final HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 200 && JSON.readTree(response.body()).path("count").asInt() > 0) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("No memory of " + user + " became retrievable within " + PROBE_TIMEOUT);
            }
            LockSupport.parkNanos(POLL_MICROS * 1000); // polling an HTTP API: nothing to block on
        }
    }
}
