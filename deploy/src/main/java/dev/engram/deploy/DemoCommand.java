package dev.engram.deploy;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.core.ExitDrains;
import dev.engram.crypto.PersonalSerdes;
import dev.engram.qdrant.QdrantConfig;
import dev.engram.retriever.RetrieverConfig;
import dev.engram.stack.ConversationSources.ExampleQuery;
import dev.engram.stack.ConversationSources;
import dev.engram.stack.DemoApps;
import dev.engram.stack.DemoSummary;
import dev.engram.stack.EmbeddedBroker;
import dev.engram.stack.Ingest;
import dev.engram.stack.PipelineMonitor;
import dev.engram.stack.ProjectPaths;
import dev.engram.stack.TopicSetup;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bin/engram demo}: the whole pipeline on a laptop, in one JVM.
 *
 * <ol>
 *   <li>starts the {@link EmbeddedBroker} in a fresh run directory and creates the topics
 *       ({@link TopicSetup});</li>
 *   <li>starts the extractor, consolidator and retriever ({@link DemoApps});</li>
 *   <li>ingests the input ({@link Ingest}; default: the sample shipped in {@value ProjectPaths#SAMPLE})
 *       while printing a progress line every ~2 s;</li>
 *   <li>waits until everything is processed: the three apps' consumer groups have no lag on their
 *       inputs (checked in pipeline order) and the counting consumer has read every committed output
 *       ({@link PipelineMonitor}, {@link DemoProgress});</li>
 *   <li>prints the {@link DemoSummary} (counted on the topics) and example retrievals over HTTP;</li>
 *   <li>with {@code --once} exits 0; otherwise keeps serving until Ctrl-C, then closes everything in
 *       reverse order.</li>
 * </ol>
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Start the embedded stack (broker and the three apps), ingest conversations, print a summary and example retrievals.")
public final class DemoCommand implements Callable<Integer> {

    /** Preferred retriever port when none is given; a free port is used if it is taken. */
    static final int DEFAULT_PORT = DemoPort.DEFAULT_PORT;

    @Option(names = "--input", paramLabel = "FILE",
        description = "LoCoMo JSON or JSON Lines of ConversationCompleted (default: the shipped sample, deploy/sample/conversations.jsonl).")
    Path input;

    @Option(names = "--original-dates", description = "Ingest the shipped sample with its own dates (early 2025) instead of "
        + "moved forward by whole days so that the last conversation falls within the 24 hours before the run; then the first read or write moves the "
        + "consolidator's event-time clock to today and the lifecycle archives what months of disuse would.")
    boolean originalDates;

    @Option(names = "--once", description = "Exit after the summary instead of serving the retrieval API.")
    boolean once;

    @Option(names = "--summary", paramLabel = "FILE", description = "Also write the summary as JSON to FILE.")
    Path summaryFile;

    @Spec
    CommandSpec spec;

    @Option(names = "--port", paramLabel = "N", description = "Retriever HTTP port (default: retriever.http.port, e.g. ENGRAM_RETRIEVER_HTTP_PORT, else 8080, or a free port if 8080 is taken; 0 = a free port).")
    Integer port;

    @Option(names = "--vector-index", paramLabel = "embedded|qdrant",
        description = "Vector index of the consolidator and the retriever (default: embedded, no server; qdrant: a running Qdrant).")
    String vectorIndex;

    @Option(names = "--qdrant-host", paramLabel = "HOST", description = "Qdrant gRPC host (default: localhost).")
    String qdrantHost;

    @Option(names = "--qdrant-port", paramLabel = "PORT", description = "Qdrant gRPC port (default: 6334).")
    Integer qdrantPort;

    @Option(names = "--run-dir", paramLabel = "DIR",
        description = "Run directory (broker logs, Streams state); emptied at start, so it must be new, empty or one a demo "
            + "made (a directory holding anything else is refused). Default: run/demo in the repository.")
    Path runDir;

    /** {@code --once} exit code when input records were refused: ingest's on that file (dead letters do not count). */
    static final int EXIT_REFUSED = 2;

    /** @return {@value #EXIT_REFUSED}, said on {@code out}, when the input had refused records; else 0 */
    static int onceExit(final ConversationSources.Report report, final PrintStream out) {
        if (report.rejected() > 0) {
            out.printf("%d record(s) refused: exit %d, as bin/engram ingest gives for this file.%n", report.rejected(), EXIT_REFUSED);
        }
        return report.rejected() > 0 ? EXIT_REFUSED : 0;
    }

    /** Exit code when the demo was stopped (Ctrl-C, as a shell reports SIGINT: 128 + 2). */
    static final int EXIT_STOPPED = 130;

    private final PrintStream out;
    /** Set by {@link #stop}; the main thread then leaves its loops instead of failing on closed parts. */
    private volatile boolean stopping;
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** The demo's started parts, closed by {@link #stop} or at the end of {@link #call}. */
    private final ReverseCloser resources = new ReverseCloser(System.err);

    /** A demo writing to standard output. */
    public DemoCommand() {
        this(System.out);
    }

    /** @param out where progress, summary and examples are printed */
    public DemoCommand(final PrintStream out) {
        this.out = out;
    }

    /**
     * @return the settings given by {@code --vector-index}, {@code --qdrant-host} and {@code --qdrant-port}
     *     (only those given; they win over the environment)
     */
    Map<String, Object> vectorIndexOverrides() {
        final Map<String, Object> settings = new java.util.HashMap<>();
        if (vectorIndex != null) {
            settings.put(QdrantConfig.VECTOR_INDEX, vectorIndex);
        }
        if (qdrantHost != null) {
            settings.put(QdrantConfig.QDRANT_HOST, qdrantHost);
        }
        if (qdrantPort != null) {
            settings.put(QdrantConfig.QDRANT_PORT, qdrantPort);
        }
        return settings;
    }

    /** Refuses option values that cannot work before anything is read, started or emptied (exit 2). */
    private void checkOptions() {
        if (port != null && (port < 0 || port > 65_535)) {
            throw dev.engram.ops.OptionValues.invalid(spec, "--port", port, "0..65535 (0 = any free port)");
        }
        if (qdrantPort != null && (qdrantPort < 1 || qdrantPort > 65_535)) {
            throw dev.engram.ops.OptionValues.invalid(spec, "--qdrant-port", qdrantPort, "1..65535");
        }
        final java.util.List<String> indexes = java.util.List.of(QdrantConfig.VECTOR_INDEX_EMBEDDED,
            QdrantConfig.VECTOR_INDEX_QDRANT);
        if (vectorIndex != null && !indexes.contains(vectorIndex)) {
            throw dev.engram.ops.OptionValues.invalid(spec, "--vector-index", vectorIndex, String.join(", ", indexes));
        }
    }

    @Override
    public Integer call() throws Exception {
        final long startedAt = System.nanoTime();
        checkOptions();
        final Path file = resolveInput();
        if (file == null) {
            return 1;
        }
        // the whole configuration is checked before anything starts or the run directory is emptied
        final EngramConfig checked = EngramConfig.load(null, System.getenv(), demoOverrides(
            "localhost:9092", Path.of("streams"), 0));
        dev.engram.config.ConfigCoherence.enforce(checked, "demo");
        dev.engram.retriever.RetrieverApp.refuseUnauthenticatedRemote(checked);
        if (QdrantReachability.unreachable(checked, System.err)) {
            return 1;
        }
        final Duration sampleOffset = input == null && !originalDates ? SampleDates.offset(file, java.time.Instant.now())
            : Duration.ZERO;
        // a port asked for and taken is refused before the run directory is touched; what the choice has to say
        // (8080 taken, a free port instead) is said only once the run directory is ours: a second demo of the same
        // directory is refused on its lock without first saying it takes a free port
        final java.io.ByteArrayOutputStream said = new java.io.ByteArrayOutputStream();
        final int retrieverPort = DemoPort.choose(port,
            new java.io.PrintStream(said, true, java.nio.charset.StandardCharsets.UTF_8));
        if (retrieverPort < 0) {
            return 1;
        }
        final ReverseCloser resources = this.resources;
        final Path dir = lockedRunDir(resources);
        if (dir == null) {
            return 1;
        }
        out.print(said.toString(java.nio.charset.StandardCharsets.UTF_8));
        final Thread hook = new Thread(() -> {
            stop();
            ExitDrains.awaitAll(ExitDrains.EXIT_DRAIN); // Ctrl-C: a query or candidate may still be in an inference
        }, "engram-demo-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            out.printf("Engram demo — input %s, run directory %s (emptied at each start: memories of an earlier demo run are gone)%n", file, dir);
            SampleDates.describe(sampleOffset, out);
            out.println("Starting the Kafka broker (KRaft, in-process)…");
            final EmbeddedBroker broker = resources.push(EmbeddedBroker.start(dir));
            // the process's data key rings (PersonalSerdes) follow engram-data-keys on this broker: closed after the
            // apps and before the broker, or their followers warn of timeouts after "Stopping:" (README trial)
            resources.push((AutoCloseable) PersonalSerdes::closeAll);
            // The local demo serves one machine's loopback without API keys (retriever.auth.enabled=false,
            // printed below); every real deployment keeps the default (keys required).
            final Map<String, Object> overrides = demoOverrides(broker.bootstrapServers(), dir.resolve("streams"), retrieverPort);
            overrides.putAll(LocalKek.of(checked, dir));
            final EngramConfig config = EngramConfig.load(null, System.getenv(), overrides);
            QdrantReachability.describe(config, out);
            out.println(!config.getBoolean(PipelineConfig.CRYPTO_ENABLED)
                ? "Crypto-shredding off (crypto.enabled=false): erased users' records stay readable on the topics until retention."
                : overrides.containsKey(PipelineConfig.CRYPTO_KEK_FILE)
                ? "Crypto-shredding on: a local key-encryption key in " + dir.resolve(LocalKek.FILE) + " (a deployment supplies its own)."
                : "Crypto-shredding on, with the key-encryption key from the environment.");
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
                TopicSetup.createAll(admin, config.getInt(PipelineConfig.NUM_PARTITIONS), config.maxMessageBytes());
            }
            out.printf("Broker at %s; topics created (%d partitions each). Starting extractor, consolidator, retriever…%n",
                broker.bootstrapServers(), config.getInt(PipelineConfig.NUM_PARTITIONS));
            final DemoApps apps = resources.push(DemoApps.start(config));
            final PipelineMonitor monitor = resources.push(new PipelineMonitor(broker.bootstrapServers(),
                Topic.MEMORY_UPDATED.valueDeserializer(config)));
            out.printf("Apps started in %.1f s. Metrics (Prometheus text): %s%nIngesting…%n", seconds(startedAt),
                String.join(" · ", apps.metricsUrls().entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList()));

            final long ingestStartedAt = System.nanoTime();
            final Ingest ingest = resources.push(Ingest.of(broker.bootstrapServers(), config,
                config.getInt(CoreConfig.MAX_RECORD_BYTES), CoreConfig.MAX_RECORD_BYTES));
            final DemoIngestThread ingestThread = new DemoIngestThread(ingest, file, SampleDates.shift(sampleOffset));
            ingestThread.start();
            DemoProgress.awaitProcessed(out, monitor, ingestThread, apps, ingestStartedAt, () -> stopping);
            final ConversationSources.Report report = ingestThread.report();
            final DemoSummary summary = monitor.summary(seconds(ingestStartedAt)).with(DemoSummary.Outcomes.of(
                monitor.count(dev.engram.topics.Topic.CONVERSATIONS_COMPLETED.name()), apps.conversationOutcomes()));

            out.printf("%nRead %s as %s: %d records published, %d rejected.%n", file.getFileName(), report.format(),
                report.records(), report.rejected());
            report.problems().forEach(p -> out.println("  " + p));
            out.println();
            out.println("Summary (counted on the topics with read_committed consumers):");
            out.println(summary.toText());
            if (summaryFile != null) {
                summary.write(summaryFile.toAbsolutePath());
                out.println("Summary written to " + summaryFile.toAbsolutePath());
            }
            RetrievalExamples.print(out, file, apps);
            out.printf("Total %.1f s.%n", seconds(startedAt));
            if (once) {
                return onceExit(report, out);
            }
            out.printf("%nServing the retrieval API at %s — try:%n", apps.retrieverUrl());
            for (final ExampleQuery example : ConversationSources.exampleQueries(file, 2)) {
                out.printf("  curl '%s'%n", new RetrievalExamples(apps.retrieverUrl()).url(example, 5));
            }
            out.printf("  curl %s/health/ready%n", apps.retrieverUrl());
            for (final ExampleQuery example : ConversationSources.exampleQueries(file, 1)) {
                out.printf("Memory panel: %s/panel?tenant=%s&user=%s%n", apps.retrieverUrl(),
                    java.net.URLEncoder.encode(example.tenantId(), java.nio.charset.StandardCharsets.UTF_8),
                    java.net.URLEncoder.encode(example.userId(), java.nio.charset.StandardCharsets.UTF_8));
            }
            out.println("(local demo: API keys are off, retriever.auth.enabled=false; deployments require keys)");
            out.println("Press Ctrl-C to stop.");
            stopped.await();
            return EXIT_STOPPED;
        } catch (RuntimeException e) {
            if (stopping) {
                return EXIT_STOPPED; // a part closed under the main thread by stop(): not an error
            }
            throw e;
        } finally {
            resources.closeAll();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException alreadyShuttingDown) {
                // the hook is running (Ctrl-C); closeAll waits for it
            }
        }
    }

    /**
     * What Ctrl-C does (the shutdown hook): marks the demo as stopping, so the main thread stops polling and
     * does not report the closed parts as failures, then closes everything in reverse order of start (the
     * apps before the broker) and releases the main thread's wait. Returns when everything is closed; safe
     * from any thread, idempotent.
     */
    void stop() {
        final boolean first = !stopping;
        stopping = true;
        if (first && !resources.isEmpty()) {
            out.println("Stopping: retriever, consolidator, extractor, broker…");
        }
        resources.closeAll();
        stopped.countDown();
    }

    /**
     * @return the input file (the shipped sample without {@code --input}), or null when there is no sample
     * @throws IllegalArgumentException naming the file when {@code --input} does not exist or cannot be read
     *     (exit code 1, like every unreadable file; exit code 2 is for a malformed command line)
     */
    private Path resolveInput() {
        if (input != null) {
            return dev.engram.stack.InputFile.readable(input, "the input file");
        }
        final Path file = ProjectPaths.sample().orElse(null);
        if (file == null) {
            System.err.println("No --input given and the shipped sample (" + ProjectPaths.SAMPLE
                + ") was not found: run from the repository, or set -D" + ProjectPaths.HOME_PROPERTY);
        }
        return file;
    }

    /** The demo's settings over the environment's: auth off on loopback, the broker, state and ports. */
    private Map<String, Object> demoOverrides(final String bootstrapServers, final Path stateDir, final int retrieverPort) {
        final Map<String, Object> overrides = new java.util.HashMap<>(vectorIndexOverrides());
        overrides.putAll(Map.of(
            RetrieverConfig.AUTH_ENABLED, false,
            CoreConfig.BOOTSTRAP_SERVERS, bootstrapServers,
            PipelineConfig.STATE_DIR, stateDir.toString(),
            PipelineConfig.EXTRACTOR_HTTP_PORT, 0,
            PipelineConfig.CONSOLIDATOR_HTTP_PORT, 0,
            PipelineConfig.RETRIEVER_HTTP_PORT, retrieverPort));
        return overrides;
    }

    private Path lockedRunDir(final ReverseCloser resources) throws IOException {
        final Path dir = runDir != null ? runDir.toAbsolutePath()
            : ProjectPaths.repositoryRoot().map(r -> r.resolve("run").resolve("demo"))
                .orElseGet(() -> Path.of(System.getProperty("java.io.tmpdir"), "engram-demo"));
        if (!RunDirectory.mayEmpty(dir)) {
            throw dev.engram.ops.OptionValues.invalid(spec, "--run-dir", dir,
                "a new or empty directory, or one a demo made (it is emptied at start; this one holds other files)");
        }
        final AutoCloseable lock = RunDirectory.takeEmptied(dir);
        if (lock == null) {
            System.err.println("Another Engram demo is running with the run directory " + dir
                + "; stop it first, or give this one its own with --run-dir DIR");
            return null;
        }
        resources.push(lock);
        return dir;
    }

    /** @return the retriever's port, as {@link DemoPort#choose} decides it for {@code --port} */
    int retrieverPort() {
        return DemoPort.choose(port, out);
    }

    private static double seconds(final long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
