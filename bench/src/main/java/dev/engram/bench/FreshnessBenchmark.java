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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.stack.Ingest;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import dev.engram.topics.Topic;

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
 *
 * <p>Hops: a read_committed consumer of {@code memory-candidates} and {@code memory-updated} (polling on its own
 * thread) notes when each probe's first record of either topic became readable, which splits every probe into
 * extractor (publish → its candidates committed), consolidator (→ its memory-updated committed) and retriever
 * (→ listed by the API: the read model's commit and the HTTP poll). JSON {@code hops{extractor, consolidator,
 * retriever}{p50Ms, p99Ms, …}}.
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
    SettingsOption settings = new SettingsOption();

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
        final Histogram extractor = Latencies.histogram();
        final Histogram consolidator = Latencies.histogram();
        final Histogram retriever = Latencies.histogram();
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        try (EmbeddedStack stack = EmbeddedStack.start("freshness", settings.over(Map.of()));
             Ingest ingest = new Ingest(stack.bootstrapServers(), Map.of(
                 org.apache.kafka.clients.producer.ProducerConfig.LINGER_MS_CONFIG, 0));
             HopObserver hops = new HopObserver(stack.bootstrapServers())) {
            stack.apps().awaitRetrieverReady(Duration.ofSeconds(120));
            for (int i = 0; i < warmup + probes; i++) {
                final String user = "fresh-" + i;
                final ConversationCompleted c = conversation(user, i);
                final long start = System.nanoTime();
                ingest.send(c);
                ingest.flush();
                awaitListed(http, stack.apps().retrieverUrl(), user);
                final long end = System.nanoTime();
                if (i >= warmup) {
                    h.recordValue((end - start) / 1000);
                    final String key = TENANT + "/" + user;
                    final Long candidates = hops.seen(Topic.MEMORY_CANDIDATES.name(), key, Duration.ofSeconds(5));
                    final Long updated = hops.seen(Topic.MEMORY_UPDATED.name(), key, Duration.ofSeconds(5));
                    if (candidates != null && updated != null) {
                        extractor.recordValue(Math.max(0, candidates - start) / 1000);
                        consolidator.recordValue(Math.max(0, updated - candidates) / 1000);
                        retriever.recordValue(Math.max(0, end - updated) / 1000);
                    }
                }
                stack.apps().requireAlive();
            }
        }
        final Map<String, Object> figures = figures(h);
        final Map<String, Object> hopFigures = new LinkedHashMap<>();
        hopFigures.put("extractor", Latencies.figures(extractor, ""));
        hopFigures.put("consolidator", Latencies.figures(consolidator, ""));
        hopFigures.put("retriever", Latencies.figures(retriever, ""));
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("figure", "value"));
        figures.forEach((k, v) -> rows.add(List.of(k, String.valueOf(v))));
        hopFigures.forEach((hop, v) -> rows.add(List.of(hop + " hop p50 / p99 ms",
            ((Map<?, ?>) v).get("p50Ms") + " / " + ((Map<?, ?>) v).get("p99Ms"))));
        figures.put("hops", hopFigures);
        settings.addTo(figures);
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

    /**
     * Notes, per topic and record key, when a record first became readable under read_committed (System.nanoTime
     * of the poll that returned it), from the end of both topics at start.
     */
    static final class HopObserver implements AutoCloseable {
        private final Map<String, Long> firstSeen = new ConcurrentHashMap<>();
        private final KafkaConsumer<String, byte[]> consumer;
        private final Thread thread;
        private volatile boolean running = true;

        HopObserver(final String bootstrapServers) {
            consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5),
                new StringDeserializer(), new ByteArrayDeserializer());
            final List<TopicPartition> partitions = new ArrayList<>();
            for (final String topic : List.of(Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_UPDATED.name())) {
                consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position); // resolve the end now, before the first probe
            thread = new Thread(this::run, "bench-freshness-hops");
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            try {
                while (running) {
                    for (final ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(5))) {
                        firstSeen.putIfAbsent(record.topic() + " " + record.key(), System.nanoTime());
                    }
                }
            } catch (org.apache.kafka.common.errors.WakeupException e) {
                // closing
            }
        }

        /** @return when the first record of {@code key} on {@code topic} became readable, or null if not within the wait */
        Long seen(final String topic, final String key, final Duration wait) {
            final long deadline = System.nanoTime() + wait.toNanos();
            Long at;
            while ((at = firstSeen.get(topic + " " + key)) == null && System.nanoTime() < deadline) {
                LockSupport.parkNanos(1_000_000);
            }
            return at;
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            consumer.wakeup();
            thread.join(2_000);
            consumer.close(Duration.ofSeconds(2));
        }
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
