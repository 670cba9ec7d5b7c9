package dev.engram.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Objects;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.retriever.RetrieverConfig;
import dev.engram.stack.DemoApps;
import dev.engram.stack.EmbeddedBroker;
import dev.engram.stack.PipelineMonitor;
import dev.engram.stack.ProjectPaths;
import dev.engram.stack.TopicSetup;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The demo's embedded stack for the benchmarks: {@link EmbeddedBroker} in a fresh run directory,
 * the topics ({@link TopicSetup}), extractor + consolidator + retriever ({@link DemoApps}) on free
 * ports with API keys off (as in the demo: localhost only), and a {@link PipelineMonitor}. {@link #awaitSettled(Duration)} is the demo's "everything
 * processed" rule: no consumer-group lag in pipeline order, no conversation pending in the extractor and the counting consumer caught up, twice
 * in a row 200 ms apart with nothing counted in between. Closed in reverse order of start.
 */
public final class EmbeddedStack implements AutoCloseable {

    private static final long SETTLE_CHECK_MS = 200;
    private static final Duration SETTLE_CHECK = Duration.ofMillis(SETTLE_CHECK_MS);

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private final EmbeddedBroker broker;
    private final EngramConfig config;
    private final DemoApps apps;
    private final PipelineMonitor monitor;

    private EmbeddedStack(final Path runDir, final Map<String, ?> settings) {
        try {
            broker = push(EmbeddedBroker.start(runDir));
            final Map<String, Object> base = new java.util.HashMap<>(Map.of(
                CoreConfig.BOOTSTRAP_SERVERS, broker.bootstrapServers(),
                PipelineConfig.STATE_DIR, runDir.resolve("streams").toString(),
                PipelineConfig.EXTRACTOR_HTTP_PORT, 0,
                PipelineConfig.CONSOLIDATOR_HTTP_PORT, 0,
                PipelineConfig.RETRIEVER_HTTP_PORT, 0,
                // a local benchmark on localhost, as the demo: no API keys
                RetrieverConfig.AUTH_ENABLED, false,
                // the figures of BENCHMARKS.md are of the pipeline without crypto-shredding (a setting turns it on)
                PipelineConfig.CRYPTO_ENABLED, false));
            base.putAll(settings);
            config = EngramConfig.load(null, Map.of(), base);
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
                TopicSetup.createAll(admin, config.getInt(PipelineConfig.NUM_PARTITIONS));
            }
            apps = push(DemoApps.start(config));
            monitor = push(new PipelineMonitor(broker.bootstrapServers(),
                Topic.MEMORY_UPDATED.valueDeserializer(config)));
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Starts the stack in {@code run/bench-<name>} under the repository (emptied first), or under the
     * temp directory when the repository is not found.
     *
     * @param name the benchmark's name
     * @return the running stack
     */
    public static EmbeddedStack start(final String name) {
        return start(name, Map.of());
    }

    /**
     * As {@link #start(String)}, with more settings for the apps (e.g. {@code llm.base.url}).
     *
     * @param name the benchmark's name
     * @param settings config keys and values; they win over the stack's own (API keys on, {@code serde.format}, …)
     * @return the running stack
     */
    public static EmbeddedStack start(final String name, final Map<String, Object> settings) {
        final Path dir = ProjectPaths.repositoryRoot().map(r -> r.resolve("run").resolve("bench-" + name))
            .orElseGet(() -> Path.of(System.getProperty("java.io.tmpdir"), "engram-bench-" + name));
        return start(dir, settings);
    }

    /**
     * @param runDir the run directory; emptied first
     * @return the running stack
     */
    public static EmbeddedStack start(final Path runDir) {
        return start(runDir, Map.of());
    }

    /**
     * @param runDir the run directory; emptied first
     * @param settings config keys and values; they win over the stack's own (API keys on, {@code serde.format}, …)
     * @return the running stack
     */
    public static EmbeddedStack start(final Path runDir, final Map<String, ?> settings) {
        try {
            ProjectPaths.deleteRecursively(runDir);
            Files.createDirectories(runDir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot prepare " + runDir, e);
        }
        return new EmbeddedStack(runDir, settings);
    }

    /** @return the broker's bootstrap servers */
    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** @return the apps' config */
    public EngramConfig config() {
        return config;
    }

    /** @return the running apps */
    public DemoApps apps() {
        return apps;
    }

    /** @return the counting consumer (single-threaded: use it from the benchmark's thread only) */
    public PipelineMonitor monitor() {
        return monitor;
    }

    /**
     * Blocks until everything published so far is processed by the three apps, and nothing more is written for
     * longer than the consolidator's wall-clock regrouping of pending observations
     * ({@code lifecycle.observe.interval.ms}, plus a second): what a deployment holds a few seconds after its input
     * stops, not the instant its lag reaches zero.
     *
     * <p>The monitor reads the counted topics continuously; the apps' lag, the counting consumer's end offsets and the
     * extractor's pending store are asked of the broker only every {@value #SETTLE_CHECK_MS} ms in which the counts did
     * not move. While candidates and updates keep arriving the pipeline is not settled whatever the lag says, and those
     * questions (about ten requests per look: a coordinator lookup, committed offsets and end offsets per app) were a
     * third of the broker's requests in {@code bench ingest}, the benchmark's load counted as the broker's.
     *
     * @param stallLimit fail when nothing moves for this long while work is pending
     * @throws IllegalStateException if an app died or the pipeline stalled
     */
    public void awaitSettled(final Duration stallLimit) {
        final long quietNanos = Duration.ofMillis(config.getLong(DomainConfig.OBSERVE_INTERVAL_MS) + 1_000).toNanos();
        long lastCounts = counts();
        long lastSignature = -1;
        long lastChange = System.nanoTime();
        long settledSince = -1;
        while (settledSince < 0 || System.nanoTime() - settledSince < quietNanos) {
            monitor.poll(SETTLE_CHECK);
            apps.requireAlive();
            final long counts = counts();
            if (counts != lastCounts) {
                // output is moving: not settled, and progress; nothing to ask the cluster
                lastCounts = counts;
                lastSignature = -1;
                lastChange = System.nanoTime();
                settledSince = -1;
                continue;
            }
            final long lag = monitor.lag();
            final boolean settled = lag == 0 && apps.extractorIdle() && monitor.caughtUp();
            final long signature = Objects.hash(lag, counts);
            if (signature != lastSignature) {
                lastSignature = signature;
                lastChange = System.nanoTime();
                settledSince = settled ? lastChange : -1;
            } else if (!settled) {
                settledSince = -1;
                if (System.nanoTime() - lastChange > stallLimit.toNanos()) {
                    throw new IllegalStateException("The pipeline made no progress for " + stallLimit + " (lag " + lag + ")");
                }
            } else if (settledSince < 0) {
                settledSince = System.nanoTime();
            }
        }
    }

    /** @return a digest of what the monitor counted so far: candidates, updates, dead letters */
    private long counts() {
        return Objects.hash(monitor.count(Topic.MEMORY_CANDIDATES.name()), monitor.count(Topic.MEMORY_UPDATED.name()),
            monitor.deadLetters());
    }

    /**
     * Stops the three apps (their consumer groups left, their state directories kept) and keeps the broker and the
     * monitor: what {@code bin/engram rebuild} needs before it resets an app.
     *
     * @throws IllegalStateException if an app fails to close
     */
    public void stopApps() {
        if (resources.remove(apps)) {
            try {
                apps.close();
            } catch (Exception e) {
                throw new IllegalStateException("Could not stop the apps", e);
            }
        }
    }

    private <T extends AutoCloseable> T push(final T resource) {
        resources.push(resource);
        return resource;
    }

    /** Closes monitor, apps and broker, in reverse order of start. */
    @Override
    public void close() {
        while (!resources.isEmpty()) {
            final AutoCloseable next = resources.pop();
            try {
                next.close();
            } catch (Exception e) {
                System.err.println("Error while closing " + next.getClass().getSimpleName() + ": " + e);
            }
        }
    }

}
