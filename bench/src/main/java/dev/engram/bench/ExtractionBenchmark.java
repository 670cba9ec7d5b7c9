package dev.engram.bench;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.engram.avro.ConversationCompleted;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.EmbeddingCpu;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.extractor.ExtractorApp;
import dev.engram.llm.LlmConfig;
import dev.engram.llm.StubChatServer;
import dev.engram.stack.ConversationSources;
import dev.engram.stack.EmbeddedBroker;
import dev.engram.stack.Ingest;
import dev.engram.stack.PipelineMonitor;
import dev.engram.stack.ProjectPaths;
import dev.engram.stack.TopicSetup;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bench extraction}: conversations per second through one extractor instance when the LLM
 * answers in {@code --llm-latency-ms}.
 *
 * <p>Set-up: an embedded broker, Engram's topics ({@code --partitions} each), LoCoMo-derived
 * conversations (by default {@code ../shared/data/locomo/locomo_dev_conv0-6.json}: one conversation per
 * session and speaker) published up front, and a local OpenAI-compatible server ({@link StubChatServer})
 * that answers every request after the injected latency with one episodic memory per user turn. Then
 * the real {@link ExtractorApp} starts with {@code llm.base.url} pointing at it ({@code exactly_once_v2},
 * the default embedder's (bge-small-en) embeddings of every candidate, {@code llm.max.concurrency = --concurrency}).
 *
 * <p>Measured: from the moment the Streams client is RUNNING (with {@code --warmup N}: the moment its committed
 * offsets cover N conversations, so the JIT has compiled the extraction path as in a long-running extractor; the
 * conversations committed by then are {@code warmupConversations}, not timed) until the extractor's committed offsets
 * on {@code conversations-completed} cover every published conversation (polled every 50 ms once the app has consumed
 * them all, so the benchmark's own requests stay out of the measured broker share), so only committed, exactly-once
 * work counts. Committed offsets cover the conversations in flight too (kept in the pending store), at the start as at
 * the end, so in a steady run the two ends balance; the candidates are counted (and digested) only once every
 * conversation is finished (until 2026-12-06 they were counted at once, and a run could read them while the last
 * conversations were still in flight). {@code conversationsPerSecond} = timed conversations / that time; with a
 * warm-up, {@code candidates} is the timed conversations' share of the run's candidates.
 * The model load is done before the clock starts. Bounded: gives up after 5 minutes. In the same window the
 * JVM's CPU time ({@code cpuMillisPerConversation}) and that of the embedder pool's threads
 * ({@code embedderCpuMillisPerConversation}, {@code embedderShareOfCpu}): cores ÷ the embedder's CPU per
 * conversation is {@code embeddingBoundConversationsPerSecond}, the rate the embedding alone allows. What was
 * embedded: {@code textsEmbeddedPerConversation} (distinct texts), {@code inferencesPerConversation} (ONNX Runtime
 * runs: fewer than texts, the extractor embedding a conversation's texts in groups), {@code embedderCpuMillisPerText};
 * and the JVM's CPU per conversation by stage ({@code cpuMsPerConversationByStage}, {@link CpuStages}).
 */
@Command(name = "extraction", mixinStandardHelpOptions = true,
    description = "LLM extraction throughput (conversations/s) against a local OpenAI-compatible server with injected latency.")
public final class ExtractionBenchmark implements Callable<Integer> {

    /** The LoCoMo file used when {@code --input} is not given, relative to the repository root. */
    static final String LOCOMO = "../shared/data/locomo/locomo_dev_conv0-6.json";
    private static final Duration LIMIT = Duration.ofMinutes(5);

    @Option(names = "--llm-latency-ms", paramLabel = "MS", defaultValue = "500",
        description = "Latency of every LLM answer (default: ${DEFAULT-VALUE}).")
    long latencyMs;

    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "32",
        description = "llm.max.concurrency of the extractor (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "4",
        description = "Partitions of the topics (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--conversations", paramLabel = "N", defaultValue = "0",
        description = "Use at most N conversations (default: all of the input).")
    int limit;

    @Option(names = "--input", paramLabel = "FILE", description = "LoCoMo JSON or JSON Lines (default: the LoCoMo dev file).")
    Path input;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "0",
        description = "Conversations extracted before the clock starts (the first N of the input, besides the "
            + "--conversations timed after them), so the timed window runs compiled code; 0 = a cold JVM "
            + "(default: ${DEFAULT-VALUE}).")
    int warmup;

    @Mixin
    JsonOption json = new JsonOption();

    private final PrintStream out;

    /** Prints to standard output. */
    public ExtractionBenchmark() {
        this(System.out);
    }

    /** @param out where the figures are printed */
    public ExtractionBenchmark(final PrintStream out) {
        this.out = out;
    }

    /**
     * Waits until every partition of Engram's topics has a leader: producing into a partition whose
     * leader is still being elected gets NOT_LEADER_OR_FOLLOWER, and the idempotent producer's retry of
     * that first batch then fails with OUT_OF_ORDER_SEQUENCE_NUMBER behind the later ones.
     */
    private static void awaitLeaders(final Admin admin) throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            final boolean ready = admin.describeTopics(Topic.allNames()).allTopicNames().get(30, TimeUnit.SECONDS).values()
                .stream().allMatch(d -> d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
            if (ready) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("topics have no leaders after 60 s");
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    /**
     * Waits until the extractor has committed at least {@code warm} conversations (none: returns at once).
     *
     * @return the conversations committed when it returned: the clock starts there
     * @throws IllegalStateException if the extractor fails or does not get there within the benchmark's limit
     */
    private static long awaitConsumed(final PipelineMonitor monitor, final ExtractorApp app, final int warm,
                                      final int published) throws InterruptedException {
        if (warm == 0) {
            return 0;
        }
        final long consumed = awaitCommitted(monitor, app, warm, System.nanoTime() + LIMIT.toNanos(), null);
        if (consumed >= published) {
            throw new IllegalStateException("the warm-up took every conversation: give --conversations more than "
                + "the warm-up leaves");
        }
        return consumed;
    }

    /**
     * Waits, every 50 ms, until the extractor's committed offsets on {@code conversations-completed} cover {@code wanted}
     * conversations. The broker is asked only once the app has consumed as many (finished or pending, read in this
     * JVM), so that the benchmark's own requests stay out of the measured broker share.
     *
     * @param progress where to print progress every 5 s, or null
     * @return the committed conversations at that moment
     * @throws IllegalStateException if the extractor fails or does not get there by {@code deadline} (nano time)
     */
    private static long awaitCommitted(final PipelineMonitor monitor, final ExtractorApp app, final long wanted,
                                       final long deadline, final PrintStream progress) throws InterruptedException {
        long consumed = 0;
        long lastPrint = System.nanoTime();
        while (finished(app) + app.pendingConversations() < wanted || (consumed = monitor.extractorConsumed()) < wanted) {
            if (System.nanoTime() > deadline || app.runner().failure() != null) {
                throw new IllegalStateException("extractor stopped at " + consumed + "/" + wanted
                    + " conversations committed", app.runner().failure());
            }
            if (progress != null && System.nanoTime() - lastPrint > TimeUnit.SECONDS.toNanos(5)) {
                progress.printf("  %d/%d conversations finished%n", finished(app), wanted);
                lastPrint = System.nanoTime();
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        return consumed;
    }

    /** @return the conversations the app has finished: candidates forwarded, nothing to remember, or dead-lettered */
    private static long finished(final ExtractorApp app) {
        return app.conversationOutcomes().values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Waits, after the clock, until the app has finished every conversation: committed offsets cover the ones still in
     * flight (kept in the pending store), whose candidates are written later, and the candidates are counted and digested
     * only once all of them are.
     */
    private static void awaitFinished(final ExtractorApp app, final long wanted, final long deadline)
        throws InterruptedException {
        while (finished(app) < wanted) {
            if (System.nanoTime() > deadline || app.runner().failure() != null) {
                throw new IllegalStateException("extractor finished " + finished(app) + "/" + wanted
                    + " conversations", app.runner().failure());
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
            .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    @Override
    public Integer call() throws Exception {
        final Path file = input != null ? input : ProjectPaths.existing(LOCOMO).orElseThrow(() ->
            new IllegalStateException("LoCoMo data not found at " + LOCOMO + "; give --input FILE"));
        List<ConversationCompleted> conversations = ConversationSources.readAll(file).getKey();
        final int warm = Math.max(0, Math.min(warmup, conversations.size() - 1));
        if (limit > 0 && conversations.size() > warm + limit) {
            conversations = conversations.subList(0, warm + limit);
        }
        final int published = conversations.size();
        out.printf("bench extraction — %d conversations from %s (%d of them to warm up), LLM latency %d ms, "
            + "concurrency %d, %d partitions%n", published, file.getFileName(), warm, latencyMs, concurrency, partitions);
        ScriptRoutedEmbedder.fromConfig(EngramConfig.plain()).embed("warm up the embedding model before the clock starts");
        final Path runDir = Files.createTempDirectory("engram-bench-extraction");
        final Map<String, Object> figures = new LinkedHashMap<>();
        try (StubChatServer llm = StubChatServer.start(Math.max(8, concurrency * 2)).latency(latencyMs);
             EmbeddedBroker broker = EmbeddedBroker.start(runDir)) {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
                TopicSetup.createAll(admin, partitions);
                awaitLeaders(admin);
            }
            // One request in flight, no idempotence: on a freshly created partition a NOT_LEADER retry of the
            // first batch cannot land behind a later one (OUT_OF_ORDER_SEQUENCE_NUMBER), and order is kept.
            try (Ingest ingest = new Ingest(broker.bootstrapServers(), Map.of(
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1))) {
                conversations.forEach(ingest::send);
                ingest.flush();
                if (ingest.acknowledged() != published) {
                    throw new IllegalStateException("published " + ingest.acknowledged() + " of " + published
                        + " conversations: " + ingest.errors());
                }
            }
            final EngramConfig config = EngramConfig.plain().with(Map.of(
                CoreConfig.BOOTSTRAP_SERVERS, broker.bootstrapServers(),
                PipelineConfig.STATE_DIR, runDir.resolve("state").toString(),
                PipelineConfig.EXTRACTOR_HTTP_PORT, 0,
                LlmConfig.LLM_BASE_URL, llm.baseUrl(),
                LlmConfig.LLM_MODEL, "bench-stub",
                LlmConfig.LLM_MAX_CONCURRENCY, concurrency));
            final long textsBefore = EmbeddingCpu.texts();
            try (PipelineMonitor monitor = new PipelineMonitor(broker.bootstrapServers());
                 ExtractorApp app = ExtractorApp.start(config)) {
                if (!app.runner().awaitRunning(Duration.ofSeconds(120))) {
                    throw new IllegalStateException("extractor did not reach RUNNING: " + app.runner().state());
                }
                final long warmedAt = awaitConsumed(monitor, app, warm, published);
                final int n = (int) (published - warmedAt);
                final long start = System.nanoTime();
                final long cpuStart = processCpuNanos();
                final long embedderStart = LoadPhases.embedderCpuNanos();
                final CpuStages.Snapshot stagesStart = CpuStages.take();
                final long textsStart = EmbeddingCpu.texts();
                final long inferencesStart = EmbeddingCpu.inferences();
                awaitCommitted(monitor, app, published, start + LIMIT.toNanos(), out);
                final double seconds = (System.nanoTime() - start) / 1e9;
                final double cpuSeconds = (processCpuNanos() - cpuStart) / 1e9;
                final double embedderSeconds = (LoadPhases.embedderCpuNanos() - embedderStart) / 1e9;
                final CpuStages.Snapshot stagesEnd = CpuStages.take();
                final long texts = EmbeddingCpu.texts() - textsStart;
                final long inferences = EmbeddingCpu.inferences() - inferencesStart;
                awaitFinished(app, published, System.nanoTime() + LIMIT.toNanos());
                // Count what was written (read_committed) until three polls in a row add nothing (one empty poll is
                // not the end: a poll may return only other topics' records)
                long seen = -1;
                for (int i = 0, still = 0; i < 60 && still < 3; i++) {
                    seen = monitor.count(Topic.MEMORY_CANDIDATES.name());
                    monitor.poll(Duration.ofSeconds(1));
                    still = seen == monitor.count(Topic.MEMORY_CANDIDATES.name()) ? still + 1 : 0;
                }
                figures.put("conversations", n);
                figures.put("warmupConversations", warmedAt);
                figures.put("llmLatencyMs", latencyMs);
                figures.put("concurrency", concurrency);
                figures.put("partitions", partitions);
                figures.put("seconds", Math.round(seconds * 100) / 100.0);
                figures.put("conversationsPerSecond", Math.round(n / seconds * 10) / 10.0);
                figures.put("llmCalls", llm.requestCount());
                // with a warm-up, the timed window's share of the candidates (the run's candidates per conversation)
                final long candidates = Math.round(monitor.count(Topic.MEMORY_CANDIDATES.name()) * (double) n / published);
                figures.put("candidates", candidates);
                figures.put("deadLetters", monitor.deadLetters());
                figures.put("cores", Runtime.getRuntime().availableProcessors());
                // The whole JVM (broker, stub LLM, extractor, embedding): CPU per conversation, and the rate
                // that CPU cost allows on idle cores — the ceiling when the LLM's latency is fully hidden.
                figures.put("cpuMillisPerConversation", Math.round(cpuSeconds * 1000 / n));
                figures.put("cpuBoundConversationsPerSecond",
                    Math.round(Runtime.getRuntime().availableProcessors() * n / cpuSeconds * 10) / 10.0);
                // Of that, the embedder pool's threads (the candidates' vectors): the rate left if everything else
                // were free, i.e. what the default embedding model alone allows on these cores.
                figures.put("embedderCpuMillisPerConversation", Math.round(embedderSeconds * 1000 / n));
                figures.put("embedderShareOfCpu", Math.round(embedderSeconds / cpuSeconds * 1000) / 1000.0);
                figures.put("embedderCpuMillisPerCandidate", Math.round(embedderSeconds * 1e4
                    / Math.max(1, candidates)) / 10.0);
                figures.put("embeddingBoundConversationsPerSecond",
                    Math.round(Runtime.getRuntime().availableProcessors() * n / embedderSeconds * 10) / 10.0);
                // what was embedded: distinct texts per conversation, and the inferences they took (grouped: fewer)
                figures.put("textsEmbeddedPerConversation", Math.round(texts * 10.0 / n) / 10.0);
                figures.put("inferencesPerConversation", Math.round(inferences * 10.0 / n) / 10.0);
                figures.put("embedderCpuMillisPerText", Math.round(embedderSeconds * 1e4 / Math.max(1, texts)) / 10.0);
                // where the CPU per conversation went (CpuStages; the stub LLM's and the HTTP client's threads are "other")
                figures.put("cpuMsPerConversationByStage", CpuStages.msPer(stagesStart, stagesEnd, n));
                figures.put("loadAverage", java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                    .getSystemLoadAverage());
                figures.putAll(CandidateDigest.of(config, broker.bootstrapServers(), EmbeddingCpu.texts() - textsBefore));
            }
        }
        out.printf("%-24s %s%n", "figure", "value");
        figures.forEach((k, v) -> out.printf("%-24s %s%n", k, v));
        if (json.file() != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.file().toFile(), figures);
            out.println("wrote " + json.file());
        }
        return 0;
    }
}
