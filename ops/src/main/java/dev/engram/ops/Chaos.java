package dev.engram.ops;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.engram.avro.MemoryUpdated;
import dev.engram.serde.AvroSerdes;
import dev.engram.stack.EmbeddedBroker;
import dev.engram.stack.TopicScan;
import dev.engram.stack.TopicSetup;
import dev.engram.topics.Topic;
import dev.engram.config.EngramConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import dev.engram.topics.AppIds;

/**
 * The fault soak behind {@code bin/engram chaos}: an embedded broker, the app under test in a child JVM
 * (its own {@code main}, as {@code bin/engram <app>} runs it, on this class path) killed with SIGKILL in the middle of a
 * stream and restarted on the same state directory, {@code kills} times, while input keeps flowing.
 *
 * <p>Per app it counts:
 * <ul>
 *   <li><b>stalls</b>: restarts after which the app's committed input offsets did not move for more than
 *       {@code stallSeconds} while it had lag, counted from the moment the restarted process answers HTTP
 *       (its JVM is up and configured; what follows — joining the group, restoring state, fencing the
 *       killed producer's transaction — is what a stall is made of). The seconds to first progress are
 *       recorded for every restart;</li>
 *   <li><b>lost</b> and <b>duplicated</b> {@code memory-updated} events, read with a read_committed
 *       consumer once every group has caught up. Every input item belongs to a user of its own, so each of
 *       its memories is expected to be CREATED once and never touched again: an item without any event is
 *       lost, a second event for the same memory (or any other operation) is a duplicate. For the retriever, whose output is its read model,
 *       lost = memories on {@code memory-updated} the restarted retriever does not serve;</li>
 *   <li><b>answers</b> of the retriever under query load (4 queries/s, each for a user whose event has been
 *       committed on {@code memory-updated} for 10 s or more, API key auth) by
 *       status; anything but 200 and 503 is counted as wrong. Connections refused while the process is
 *       down are counted apart ({@code unreachable}): no answer, not a wrong one.</li>
 * </ul>
 * The consolidator and extractor runs keep the other apps steady (in their own child JVMs) so that
 * {@code memory-updated} is the one place that is counted. Every child logs to
 * {@code <work>/<app>-<n>.log}. Not part of {@code mvn verify}: the {@code soak} profile runs it.
 */
public final class Chaos {

    /** The apps the soak can kill. */
    public enum App {
        /** {@code memory-candidates} → {@code memory-updated}. */
        CONSOLIDATOR,
        /** {@code conversations-completed} → {@code memory-candidates}. */
        EXTRACTOR,
        /** {@code memory-updated} → the read model and the HTTP API. */
        RETRIEVER;

        String command() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        String groupId() {
            return switch (this) {
                case CONSOLIDATOR -> AppIds.CONSOLIDATOR;
                case EXTRACTOR -> AppIds.EXTRACTOR;
                case RETRIEVER -> AppIds.RETRIEVER;
            };
        }

        String inputTopic() {
            return switch (this) {
                case CONSOLIDATOR -> Topic.MEMORY_CANDIDATES.name();
                case EXTRACTOR -> Topic.CONVERSATIONS_COMPLETED.name();
                case RETRIEVER -> Topic.MEMORY_UPDATED.name();
            };
        }
    }

    /**
     * What one app's soak counted.
     *
     * @param app the app killed
     * @param kills SIGKILLs delivered
     * @param items input items (candidates or conversations) handed to the feeder (published unless unsent)
     * @param stalls restarts followed by more than the stall threshold without progress
     * @param secondsToProgress per instance, seconds from its HTTP server answering to the first committed
     *     progress (-1 when there was none)
     * @param lost items without their {@code memory-updated} event (or, retriever, memories not served)
     * @param duplicated {@code memory-updated} events beyond one CREATED per item
     * @param answers retriever answers by HTTP status (empty for the other apps)
     * @param wrongAnswers answers other than 200 and 503
     * @param unreachable requests refused while the retriever was down
     * @param elapsedSeconds wall time of the soak
     * @param failedSends the feeder's sends that failed and were sent again ({@link ChaosFeeder})
     * @param unsent items none of whose sends was acknowledged (not counted as lost)
     * @param secondsToHttp per instance, seconds from its start to its HTTP server answering (-1: never)
     * @param notServed retriever: memories on {@code memory-updated} the last instance did not list (part of
     *     {@code lost}, which adds the memories with no event at all); 0 for the other apps
     * @param timeouts retriever: requests to a running instance without an answer within 10 s (part of
     *     {@code unreachable})
     * @param p50Ms median retriever answer latency, ms (0 for the other apps)
     * @param p99Ms 99th percentile retriever answer latency, ms
     * @param maxMs slowest retriever answer, ms
     * @param load the 1-minute load average during the soak
     */
    public record Result(String app, int kills, long items, int stalls, List<Double> secondsToProgress, long lost,
                         long duplicated, Map<Integer, Long> answers, long wrongAnswers, long unreachable,
                         double elapsedSeconds, long failedSends, long unsent, List<Double> secondsToHttp,
                         long notServed, long timeouts, double p50Ms, double p99Ms, double maxMs,
                         ChaosScaleOut.Load load) {
        /**
         * @return true when nothing stalled, every item was published, nothing was lost or duplicated and every
         *     answer was 200 or 503
         */
        public boolean clean() {
            return stalls == 0 && lost == 0 && duplicated == 0 && wrongAnswers == 0 && unsent == 0;
        }
    }

    /**
     * Settings of one soak.
     *
     * @param kills how many times the app is killed
     * @param stallSeconds progress must come within this many seconds of a restart
     * @param ratePerSecond input items published per second while the soak runs
     * @param minUpSeconds least time an instance runs (after its first progress) before it is killed
     * @param maxUpSeconds most time an instance runs after its first progress before it is killed
     * @param workDir where the broker, the state directories and the child logs go (emptied first)
     * @param childHeapMb -Xmx of each child JVM
     */
    public record Settings(int kills, int stallSeconds, int ratePerSecond, double minUpSeconds, double maxUpSeconds,
                           Path workDir, int childHeapMb) {
    }

    static final String TENANT = "chaos";
    static final String API_KEY = "chaos-soak-api-key-0001";

    private final Settings settings;
    private final PrintStream out;
    private final Random random = new Random(15);

    /**
     * @param settings the soak settings
     * @param out where progress lines go
     */
    public Chaos(final Settings settings, final PrintStream out) {
        this.settings = settings;
        this.out = out;
        AvroSerdes.trustGeneratedRecords();
    }

    /**
     * Runs the soak of one app on a fresh broker.
     *
     * @param app the app to kill
     * @return the counts
     * @throws IOException if the work directory cannot be prepared
     */
    public Result run(final App app) throws IOException {
        final Path work = settings.workDir().resolve(app.command());
        dev.engram.stack.ProjectPaths.deleteRecursively(work);
        Files.createDirectories(work);
        final long started = System.nanoTime();
        final ChaosLoad load = new ChaosLoad();
        try (EmbeddedBroker broker = EmbeddedBroker.start(work.resolve("broker"));
             Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            TopicSetup.createAll(admin, 2);
            final ChaosChildren children = new ChaosChildren(work, broker.bootstrapServers(), settings.childHeapMb());
            // conversations cost an embedding each: a fifth of the rate, so that the extractor can keep up on 2 cores
            final ChaosFeeder feeder = new ChaosFeeder(broker.bootstrapServers(), app,
                app == App.EXTRACTOR ? Math.max(1, settings.ratePerSecond() / 5) : settings.ratePerSecond());
            final ChaosQueries queries = app == App.RETRIEVER ? new ChaosQueries(broker.bootstrapServers(), out) : null;
            try {
                // the apps this soak does not kill run steadily; the one under test is restarted
                if (app != App.CONSOLIDATOR) {
                    children.start("consolidator", "consolidator-steady");
                }
                if (app == App.EXTRACTOR) {
                    feeder.start();
                }
                if (app == App.CONSOLIDATOR || app == App.RETRIEVER) {
                    feeder.start();
                }
                final GroupOffsets offsets = new GroupOffsets(admin);
                final List<Double> toProgress = new ArrayList<>();
                final List<Double> toHttp = new ArrayList<>();
                int stalls = 0;
                Process victim = children.start(app.command(), app.command() + "-0");
                if (queries != null) {
                    queries.start(List.of(children.retrieverPort()));
                }
                for (int kill = 0; kill <= settings.kills(); kill++) {
                    final double up = children.awaitHttp(victim, children.lastPort());
                    toHttp.add(up);
                    final double seconds = secondsToProgress(offsets, app, victim, settings.stallSeconds(), Set.of());
                    toProgress.add(seconds);
                    if (seconds < 0 || seconds > settings.stallSeconds()) {
                        stalls++;
                    }
                    out.printf("chaos %s: instance %d: HTTP up after %.1f s, then first progress after %s (load %.1f)"
                        + "%n",
                        app.command(), kill, up, seconds < 0 ? "none (stall)" : String.format("%.1f s", seconds),
                        ChaosLoad.now());
                    if (kill == settings.kills()) {
                        break;
                    }
                    sleep(settings.minUpSeconds() + random.nextDouble() * (settings.maxUpSeconds() - settings.minUpSeconds()));
                    victim.destroyForcibly(); // SIGKILL: no close, no commit, an open transaction left behind
                    victim.waitFor(30, TimeUnit.SECONDS);
                    victim = children.start(app.command(), app.command() + "-" + (kill + 1));
                    if (queries != null) {
                        queries.instanceStarted();
                    }
                }
                feeder.stop();
                awaitCaughtUp(offsets, switch (app) {
                    case CONSOLIDATOR -> List.of(App.CONSOLIDATOR);
                    case EXTRACTOR -> List.of(App.EXTRACTOR, App.CONSOLIDATOR);
                    case RETRIEVER -> List.of(App.CONSOLIDATOR, App.RETRIEVER);
                }, Duration.ofSeconds(600), out, "chaos " + app.command());
                if (queries != null) {
                    queries.stop();
                }
                final List<MemoryUpdated> updates = readCommitted(broker.bootstrapServers());
                final ChaosCounts.Count count;
                long notServed = 0;
                if (app == App.RETRIEVER) {
                    final ChaosCounts.Served served = ChaosCounts.served(feeder, updates,
                        List.of(children.retrieverPort()), out);
                    count = new ChaosCounts.Count(served.missing() + served.notServed(), served.duplicated());
                    notServed = served.notServed();
                } else {
                    count = ChaosCounts.updates(feeder, updates);
                }
                load.stop();
                return new Result(app.command(), settings.kills(), feeder.sent(), stalls, toProgress, count.lost(),
                    count.duplicated(), queries == null ? Map.of() : queries.answers(),
                    queries == null ? 0 : queries.wrong(), queries == null ? 0 : queries.unreachable() + queries.timeouts(),
                    (System.nanoTime() - started) / 1e9, feeder.failedSends(), feeder.unsent(), toHttp, notServed,
                    queries == null ? 0 : queries.timeouts(), queries == null ? 0 : round1(queries.latencyMs(0.5)),
                    queries == null ? 0 : round1(queries.latencyMs(0.99)),
                    queries == null ? 0 : round1(queries.latencyMs(1.0)), load.result());
            } finally {
                load.stop();
                feeder.stop();
                if (queries != null) {
                    queries.stop();
                }
                children.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    /**
     * Seconds from now until the app's committed offsets on its input topic move (or it has no lag left),
     * watched for up to four times the stall threshold.
     *
     * @param offsets the cluster's group offsets
     * @param app the app whose group is watched
     * @param victim the restarted process: waiting ends if it dies
     * @param stallSeconds the stall threshold
     * @param partitions the input partitions to watch (the restarted instance's), empty for all of them
     * @return the seconds, or -1 when nothing moved in that time or the process died
     */
    static double secondsToProgress(final GroupOffsets offsets, final App app, final Process victim,
                                    final int stallSeconds, final Set<TopicPartition> partitions) {
        final long start = System.nanoTime();
        Map<TopicPartition, Long> before = null;
        final long deadline = start + TimeUnit.SECONDS.toNanos(4L * stallSeconds);
        while (System.nanoTime() < deadline && victim.isAlive()) {
            final Map<TopicPartition, Long> now;
            try {
                now = offsets.committed(app.groupId());
            } catch (IllegalStateException notYet) {
                sleep(0.2);
                continue;
            }
            if (before == null) {
                before = now;
            } else {
                final Map<TopicPartition, Long> then = before;
                final boolean moved = now.entrySet().stream()
                    .anyMatch(e -> e.getKey().topic().equals(app.inputTopic())
                        && (partitions.isEmpty() || partitions.contains(e.getKey()))
                        && e.getValue() > then.getOrDefault(e.getKey(), -1L));
                if (moved) {
                    return (System.nanoTime() - start) / 1e9;
                }
            }
            sleep(0.2);
        }
        return -1;
    }

    /**
     * Waits until each group has no lag on its input topic (bounded by {@code timeout} per group) and prints the lag
     * it ended with.
     *
     * @return the summed lag at the end (0: every group caught up)
     */
    static long awaitCaughtUp(final GroupOffsets offsets, final List<App> groups, final Duration timeout,
                              final PrintStream out, final String prefix) {
        long total = 0;
        for (final App group : groups) {
            final long deadline = System.nanoTime() + timeout.toNanos();
            long lag = -1;
            while (System.nanoTime() < deadline) {
                try {
                    lag = offsets.lag(group.groupId(), Set.of(group.inputTopic()));
                    if (lag == 0 && !offsets.committed(group.groupId()).isEmpty()) {
                        break;
                    }
                } catch (IllegalStateException notYet) {
                    lag = -1;
                }
                sleep(0.5);
            }
            out.printf("%s: %s lag at the end: %d%n", prefix, group.command(), lag);
            total += Math.abs(lag);
        }
        return total;
    }

    /**
     * @return the committed {@code memory-updated} events, read to the last stable offsets
     * @throws IllegalStateException naming how many were read when the end is not reached within 5 minutes: a
     *     partial read would be counted as lost memories
     */
    static List<MemoryUpdated> readCommitted(final String bootstrap) {
        final Deserializer<MemoryUpdated> decoder = Topic.MEMORY_UPDATED.valueDeserializer(EngramConfig.plain());
        final List<MemoryUpdated> updates = new ArrayList<>();
        final Duration timeout = Duration.ofMinutes(5);
        if (!TopicScan.toEnd(TopicScan.client(bootstrap), Topic.MEMORY_UPDATED.name(), null, timeout,
            r -> updates.add(decoder.deserialize(r.topic(), r.headers(), r.value())))) {
            throw new IllegalStateException("memory-updated not read to its end within " + timeout + " (" + updates.size()
                + " events read): no counts, rather than a partial read counted as lost");
        }
        return updates;
    }

    static double round1(final double value) {
        return Math.round(value * 10) / 10.0;
    }

    static void sleep(final double seconds) {
        try {
            Thread.sleep((long) (seconds * 1000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }
}
