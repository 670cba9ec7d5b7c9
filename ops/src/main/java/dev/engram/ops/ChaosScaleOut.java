package dev.engram.ops;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.engram.avro.MemoryUpdated;
import dev.engram.serde.AvroSerdes;
import dev.engram.stack.TopicSetup;
import dev.engram.topology.StreamsSettings;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.TopicPartition;

/**
 * The scale-out fault run behind {@code bin/engram chaos --instances 2 --brokers 3}: a cluster of {@code brokers}
 * KRaft nodes, each a JVM of its own ({@link ChaosCluster}; replication factor 3, {@code min.insync.replicas} 2), and
 * {@code instances} instances of every app (extractor, consolidator, retriever), each a JVM of its own with its own
 * state directory and HTTP port, under load: conversations published at a fixed rate ({@link ChaosFeeder}, every
 * send checked) and 4 queries a second spread over the retriever instances ({@link ChaosQueries}, a load balancer:
 * an instance that refuses the connection is skipped), each for a user whose event was committed on
 * {@code memory-updated} {@value #SETTLED_SECONDS} s or more before.
 *
 * <p>Each round SIGKILLs one app instance (extractor, consolidator, retriever in turn, instance 0 then 1 …) and
 * one broker (node 1, 2, 3 in turn) at the same moment, restarts both at once on their state and log directories,
 * and records: seconds until the app's HTTP server answers, then until its own input partitions' committed offsets
 * move (a stall above {@code stallSeconds}), and until every partition is fully replicated again. The next round
 * waits for both and a random 3–8 s of steady running.
 *
 * <p>At the end (input stopped, every group caught up): <b>lost</b> = published conversations without a
 * {@code memory-updated} event, <b>duplicated</b> = events beyond one CREATED per conversation (one user per
 * conversation, read_committed), <b>notServed</b> = memories on {@code memory-updated} that the retriever instance
 * asked (in turn) does not list — an instance forwards a user it does not own to the owner (interactive-query
 * metadata, {@code application.server}), so each instance must serve every user. Answers other than 200 and 503 are
 * wrong; the latency percentiles are over every answer. The load average is sampled every 5 s. Child logs go to
 * {@code <work>/scale-out/*.log}.
 */
public final class ChaosScaleOut {

    /**
     * Settings of one run.
     *
     * @param instances instances of every app, ≥ 2
     * @param brokers Kafka nodes, ≥ 3
     * @param rounds kill rounds (one app instance and one broker each)
     * @param stallSeconds an app instance must make progress within this many seconds of answering HTTP
     * @param conversationsPerSecond the input rate
     * @param workDir the run's directory (its {@code scale-out} subdirectory is emptied first)
     * @param childHeapMb -Xmx of each app JVM
     * @param brokerHeapMb -Xmx of each broker JVM
     * @param victims the apps whose instances are killed, in turn
     */
    public record Settings(int instances, int brokers, int rounds, int stallSeconds, int conversationsPerSecond,
                           Path workDir, int childHeapMb, int brokerHeapMb, List<Chaos.App> victims) {
    }

    /**
     * One kill round.
     *
     * @param round 0 …
     * @param app the app killed
     * @param instance its instance
     * @param broker the broker's node id killed
     * @param httpSeconds seconds from the restart to the app instance's HTTP answering (-1: never)
     * @param progressSeconds seconds from then to its own input partitions' progress (-1: none within 4× the stall
     *     threshold)
     * @param inSyncSeconds seconds from the restart to every partition fully replicated again (-1: not within 180 s)
     */
    public record Round(int round, String app, int instance, int broker, double httpSeconds, double progressSeconds,
                        double inSyncSeconds) {
    }

    /**
     * The load average (1 minute) seen during the run.
     *
     * @param start at the start
     * @param max the highest sample
     * @param end at the end
     */
    public record Load(double start, double max, double end) {
    }

    /**
     * What the run counted.
     *
     * @param instances instances of every app
     * @param brokers Kafka nodes
     * @param rounds kill rounds run
     * @param appKills SIGKILLs per app
     * @param brokerKills SIGKILLs of brokers
     * @param conversationsPerSecond input rate
     * @param items conversations handed to the feeder
     * @param failedSends sends that failed and were sent again
     * @param unsent conversations none of whose sends was acknowledged (not counted as lost)
     * @param stalls app restarts without progress within the threshold
     * @param notInSync broker restarts after which the cluster was not fully replicated within 180 s
     * @param lost published conversations without a memory-updated event
     * @param duplicated memory-updated events beyond one CREATED per conversation
     * @param notServed memories on memory-updated the retriever instance asked did not list
     * @param lagAtEnd summed lag of the groups when counting began (0: all caught up)
     * @param answers retriever answers by HTTP status
     * @param wrongAnswers answers other than 200 and 503
     * @param unreachable requests refused (instance down); each was sent to the next instance
     * @param timeouts requests without an answer within 10 s
     * @param servedBySurvivor answers from the next instance after the first one asked was unreachable
     * @param answeredBy answers per retriever instance ({@code retriever-0} …)
     * @param p50Ms median answer latency
     * @param p99Ms 99th percentile answer latency
     * @param maxMs slowest answer
     * @param roundDetails each round's recovery times
     * @param load the load average
     * @param elapsedSeconds wall time
     */
    public record Result(int instances, int brokers, int rounds, Map<String, Integer> appKills, int brokerKills,
                         int conversationsPerSecond, long items, long failedSends, long unsent, int stalls, int notInSync,
                         long lost, long duplicated, long notServed, long lagAtEnd, Map<Integer, Long> answers,
                         long wrongAnswers, long unreachable, long timeouts, long servedBySurvivor,
                         Map<String, Long> answeredBy, double p50Ms, double p99Ms, double maxMs, List<Round> roundDetails,
                         Load load, double elapsedSeconds) {
        /**
         * @return true when every conversation was published and served once, nothing stalled, the cluster healed
         *     after every broker kill, and every answer was 200 or 503
         */
        public boolean clean() {
            return unsent == 0 && stalls == 0 && notInSync == 0 && lost == 0 && duplicated == 0 && notServed == 0
                && wrongAnswers == 0;
        }
    }

    /** Partitions per topic: one per instance of each app (two), so that every instance owns a share. */
    private static final int PARTITIONS = 2;
    private static final Duration IN_SYNC_TIMEOUT = Duration.ofSeconds(180);
    /** Bound of the wait for an app instance's HTTP at the run's first start, seconds (restarts in a round: 180). */
    static final int FIRST_START_SECONDS = 600;
    /** Starts again of an instance that exits before its HTTP server answers, at the run's beginning. */
    private static final int START_ATTEMPTS = 2;
    /**
     * Queries ask for users whose event was committed this long before: a broker kill pauses every consumer for a
     * leader election, so a retriever that has caught up may be this far behind for a moment.
     */
    static final int SETTLED_SECONDS = 30;

    private final Settings settings;
    private final PrintStream out;
    private final Random random = new Random(31);

    /**
     * @param settings the run's settings
     * @param out where progress lines go
     */
    public ChaosScaleOut(final Settings settings, final PrintStream out) {
        this.settings = settings;
        this.out = out;
        AvroSerdes.trustGeneratedRecords();
    }

    /**
     * Runs the scale-out soak.
     *
     * @return the counts
     * @throws IOException if the work directory cannot be prepared
     */
    public Result run() throws IOException {
        final Path work = settings.workDir().resolve("scale-out").toAbsolutePath();
        dev.engram.stack.ProjectPaths.deleteRecursively(work);
        Files.createDirectories(work);
        final long started = System.nanoTime();
        final ChaosLoad load = new ChaosLoad();
        final ChaosCluster cluster = new ChaosCluster(work, settings.brokers(), settings.brokerHeapMb());
        final ChaosChildren children = new ChaosChildren(work, cluster.bootstrapServers(), settings.childHeapMb(),
            cluster.ports());
        final List<Chaos.App> apps = List.of(Chaos.App.EXTRACTOR, Chaos.App.CONSOLIDATOR, Chaos.App.RETRIEVER);
        final Map<Chaos.App, Process[]> running = new LinkedHashMap<>();
        final Map<Chaos.App, Integer> starts = new LinkedHashMap<>();
        ChaosFeeder feeder = null;
        ChaosQueries queries = null;
        try {
            out.printf("chaos scale-out: %d brokers up after %.1f s (%s)%n", cluster.size(), cluster.start(children),
                cluster.bootstrapServers());
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
                TopicSetup.createAll(admin, PARTITIONS);
            }
            for (final Chaos.App app : apps) {
                final Process[] instances = new Process[settings.instances()];
                for (int k = 0; k < instances.length; k++) {
                    instances[k] = children.start(app.command(), k, app.command() + "-" + k + "-0");
                }
                running.put(app, instances);
                starts.put(app, 1);
            }
            for (final Chaos.App app : apps) {
                for (int k = 0; k < settings.instances(); k++) {
                    // the first start of every JVM at once is the slowest (over 180 s for an extractor at load 85+): a
                    // live instance is given FIRST_START_SECONDS
                    double up = children.awaitHttp(running.get(app)[k], children.port(app.command(), k), FIRST_START_SECONDS);
                    // an instance that dies while starting is started again, as its pod would be (seen: a SIGSEGV in
                    // the ONNX runtime creating the embedding session while ten JVMs start at load 100+)
                    for (int attempt = 1; up < 0 && !running.get(app)[k].isAlive() && attempt <= START_ATTEMPTS; attempt++) {
                        out.printf("chaos scale-out: %s-%d exited (%d) while starting; starting it again%n", app.command(), k,
                            running.get(app)[k].exitValue());
                        final int n = starts.merge(app, 1, Integer::sum) - 1;
                        running.get(app)[k] = children.start(app.command(), k, app.command() + "-" + k + "-" + n);
                        up = children.awaitHttp(running.get(app)[k], children.port(app.command(), k));
                    }
                    out.printf("chaos scale-out: %s-%d HTTP up after %.1f s%n", app.command(), k, up);
                    if (up < 0) {
                        throw new IllegalStateException(app.command() + "-" + k + " did not start (log: " + work + ")");
                    }
                }
            }
            final List<Integer> retrieverPorts = new ArrayList<>();
            for (int k = 0; k < settings.instances(); k++) {
                retrieverPorts.add(children.port(Chaos.App.RETRIEVER.command(), k));
            }
            feeder = new ChaosFeeder(cluster.bootstrapServers(), Chaos.App.EXTRACTOR, settings.conversationsPerSecond(), true);
            feeder.start();
            queries = new ChaosQueries(cluster.bootstrapServers(), out, SETTLED_SECONDS);
            queries.start(retrieverPorts);

            final List<Round> rounds = new ArrayList<>();
            final Map<String, Integer> appKills = new LinkedHashMap<>();
            int stalls = 0;
            int notInSync = 0;
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
                final GroupOffsets offsets = new GroupOffsets(admin);
                for (int r = 0; r < settings.rounds(); r++) {
                    Chaos.sleep(3 + random.nextDouble() * 5);
                    final Chaos.App app = settings.victims().get(r % settings.victims().size());
                    final int instance = (r / settings.victims().size()) % settings.instances();
                    final int broker = r % cluster.size();
                    final Process victim = running.get(app)[instance];
                    victim.destroyForcibly(); // SIGKILL: no close, no commit, an open transaction left behind
                    cluster.kill(broker);
                    victim.waitFor(30, TimeUnit.SECONDS);
                    appKills.merge(app.command(), 1, Integer::sum);
                    final long restartedAt = System.nanoTime();
                    cluster.restart(broker);
                    final CompletableFuture<Double> inSync = CompletableFuture.supplyAsync(() -> {
                        // in sync again: the restarted node registered and every partition's replicas caught up
                        if (!cluster.awaitNodes(cluster.size(), IN_SYNC_TIMEOUT)) {
                            return -1.0;
                        }
                        final double waited = cluster.awaitInSync(IN_SYNC_TIMEOUT);
                        return waited < 0 ? -1.0 : (System.nanoTime() - restartedAt) / 1e9;
                    }, runnable -> {
                        final Thread thread = new Thread(runnable, "chaos-in-sync");
                        thread.setDaemon(true);
                        thread.start();
                    });
                    final int n = starts.merge(app, 1, Integer::sum) - 1;
                    final Process restarted = children.start(app.command(), instance,
                        app.command() + "-" + instance + "-" + n);
                    running.get(app)[instance] = restarted;
                    if (app == Chaos.App.RETRIEVER) {
                        queries.instanceStarted();
                    }
                    final double http = children.awaitHttp(restarted, children.port(app.command(), instance));
                    final double progress = http < 0 ? -1 : Chaos.secondsToProgress(offsets, app, restarted,
                        settings.stallSeconds(), ownPartitions(offsets, app, children, instance));
                    if (progress < 0 || progress > settings.stallSeconds()) {
                        stalls++;
                    }
                    final double synced = inSync.join();
                    if (synced < 0) {
                        notInSync++;
                    }
                    final Round round = new Round(r, app.command(), instance, cluster.nodeId(broker),
                        Chaos.round1(http), Chaos.round1(progress), Chaos.round1(synced));
                    rounds.add(round);
                    out.printf("chaos scale-out: round %d: killed %s-%d and broker %d; HTTP after %.1f s, own progress "
                            + "%s, replicas in sync after %s (load %.1f)%n", r, app.command(), instance, round.broker(),
                        http, progress < 0 ? "none (stall)" : String.format("after %.1f s", progress),
                        synced < 0 ? "never" : String.format("%.1f s", synced), ChaosLoad.now());
                }
                feeder.stop();
                final long lag = Chaos.awaitCaughtUp(offsets, apps, Duration.ofSeconds(240), out, "chaos scale-out");
                queries.stop();
                final List<MemoryUpdated> updates = Chaos.readCommitted(cluster.bootstrapServers());
                final ChaosCounts.Count count = ChaosCounts.updates(feeder, updates);
                final ChaosCounts.Served served = ChaosCounts.served(feeder, updates, retrieverPorts, out);
                final Map<String, Long> answeredBy = new LinkedHashMap<>();
                queries.answeredBy().forEach((port, answers) ->
                    answeredBy.put("retriever-" + retrieverPorts.indexOf(port), answers));
                load.stop();
                return new Result(settings.instances(), cluster.size(), rounds.size(), appKills, rounds.size(),
                    settings.conversationsPerSecond(), feeder.sent(), feeder.failedSends(), feeder.unsent(), stalls,
                    notInSync, count.lost(), count.duplicated(), served.notServed(), lag, queries.answers(),
                    queries.wrong(), queries.unreachable(), queries.timeouts(), queries.servedBySurvivor(), answeredBy,
                    Chaos.round1(queries.latencyMs(0.5)), Chaos.round1(queries.latencyMs(0.99)),
                    Chaos.round1(queries.latencyMs(1.0)),
                    rounds, load.result(), Chaos.round1((System.nanoTime() - started) / 1e9));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        } finally {
            load.stop();
            if (feeder != null) {
                feeder.stop();
            }
            if (queries != null) {
                queries.stop();
            }
            children.close();
        }
    }

    /**
     * The restarted instance's input partitions once it has joined its group (bounded by the stall threshold; empty
     * if it has not joined by then, and then any progress of the group counts).
     */
    private Set<TopicPartition> ownPartitions(final GroupOffsets offsets, final Chaos.App app, final ChaosChildren children,
                                              final int instance) {
        final String id = StreamsSettings.instanceId(children.stateDir(app.command(), instance), app.groupId());
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(settings.stallSeconds());
        while (System.nanoTime() < deadline) {
            final Set<TopicPartition> assigned = offsets.assigned(app.groupId(), id);
            final Set<TopicPartition> input = new java.util.HashSet<>();
            assigned.stream().filter(tp -> tp.topic().equals(app.inputTopic())).forEach(input::add);
            if (!input.isEmpty()) {
                return input;
            }
            Chaos.sleep(0.2);
        }
        return Set.of();
    }

}
