package dev.engram.ops;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
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
     * @param items input items (candidates or conversations) published
     * @param stalls restarts followed by more than the stall threshold without progress
     * @param secondsToProgress per instance, seconds from its HTTP server answering to the first committed
     *     progress (-1 when there was none)
     * @param lost items without their {@code memory-updated} event (or, retriever, memories not served)
     * @param duplicated {@code memory-updated} events beyond one CREATED per item
     * @param answers retriever answers by HTTP status (empty for the other apps)
     * @param wrongAnswers answers other than 200 and 503
     * @param unreachable requests refused while the retriever was down
     * @param elapsedSeconds wall time of the soak
     */
    public record Result(String app, int kills, long items, int stalls, List<Double> secondsToProgress, long lost,
                         long duplicated, Map<Integer, Long> answers, long wrongAnswers, long unreachable,
                         double elapsedSeconds) {
        /** @return true when nothing stalled, nothing was lost or duplicated and every answer was 200 or 503 */
        public boolean clean() {
            return stalls == 0 && lost == 0 && duplicated == 0 && wrongAnswers == 0;
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
                int stalls = 0;
                Process victim = children.start(app.command(), app.command() + "-0");
                if (queries != null) {
                    queries.start(children.retrieverPort());
                }
                for (int kill = 0; kill <= settings.kills(); kill++) {
                    final double up = children.awaitHttp(victim, children.lastPort());
                    final double seconds = secondsToProgress(offsets, app, victim);
                    toProgress.add(seconds);
                    if (seconds < 0 || seconds > settings.stallSeconds()) {
                        stalls++;
                    }
                    out.printf("chaos %s: instance %d: HTTP up after %.1f s, then first progress after %s%n", app.command(),
                        kill, up, seconds < 0 ? "none (stall)" : String.format("%.1f s", seconds));
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
                awaitCaughtUp(offsets, app);
                if (queries != null) {
                    queries.stop();
                }
                final Count count = app == App.RETRIEVER ? countServed(feeder, children.retrieverPort(), broker)
                    : countUpdates(feeder, broker.bootstrapServers());
                return new Result(app.command(), settings.kills(), feeder.sent(), stalls, toProgress, count.lost(),
                    count.duplicated(), queries == null ? Map.of() : queries.answers(),
                    queries == null ? 0 : queries.wrong(), queries == null ? 0 : queries.unreachable(),
                    (System.nanoTime() - started) / 1e9);
            } finally {
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
     * @return the seconds, or -1 when nothing moved in that time or the process died
     */
    private double secondsToProgress(final GroupOffsets offsets, final App app, final Process victim) {
        final long start = System.nanoTime();
        final Map<TopicPartition, Long> before = offsets.committed(app.groupId());
        final long deadline = start + TimeUnit.SECONDS.toNanos(4L * settings.stallSeconds());
        while (System.nanoTime() < deadline && victim.isAlive()) {
            sleep(0.2);
            final Map<TopicPartition, Long> now;
            try {
                now = offsets.committed(app.groupId());
            } catch (IllegalStateException notYet) {
                continue;
            }
            final boolean moved = now.entrySet().stream()
                .anyMatch(e -> e.getKey().topic().equals(app.inputTopic()) && e.getValue() > before.getOrDefault(e.getKey(), -1L));
            if (moved) {
                return (System.nanoTime() - start) / 1e9;
            }
        }
        return -1;
    }

    private void awaitCaughtUp(final GroupOffsets offsets, final App app) {
        final List<App> groups = switch (app) {
            case CONSOLIDATOR -> List.of(App.CONSOLIDATOR);
            case EXTRACTOR -> List.of(App.EXTRACTOR, App.CONSOLIDATOR);
            case RETRIEVER -> List.of(App.CONSOLIDATOR, App.RETRIEVER);
        };
        for (final App group : groups) {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
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
            out.printf("chaos %s: %s lag at the end: %d%n", app.command(), group.command(), lag);
        }
    }

    /** Lost and duplicated counts. */
    private record Count(long lost, long duplicated) {
    }

    /**
     * Every item's user must have its memories created once each and nothing else: one user per item, so
     * any second event for a memory id (a REINFORCED from a re-delivered candidate, a CREATED twice) is a
     * duplicate, and a user without any event is a lost item.
     */
    private Count countUpdates(final ChaosFeeder feeder, final String bootstrap) {
        final Set<String> users = new java.util.HashSet<>();
        final Set<String> memories = new java.util.HashSet<>();
        long duplicated = 0;
        for (final MemoryUpdated update : readCommitted(bootstrap)) {
            users.add(update.getMemory().getUserId());
            if (!memories.add(update.getMemoryId()) || update.getOperation() != UpdateOperation.CREATED) {
                duplicated++;
            }
        }
        long lost = 0;
        for (long i = 0; i < feeder.sent(); i++) {
            if (!users.contains(ChaosFeeder.user(i))) {
                lost++;
            }
        }
        return new Count(lost, duplicated);
    }

    /** The retriever must serve every memory on memory-updated, each once. */
    private Count countServed(final ChaosFeeder feeder, final int port, final EmbeddedBroker broker) {
        final Map<String, Set<String>> logged = new HashMap<>();
        long duplicated = 0;
        for (final MemoryUpdated update : readCommitted(broker.bootstrapServers())) {
            if (!logged.computeIfAbsent(update.getMemory().getUserId(), u -> new java.util.HashSet<>())
                .add(update.getMemoryId())) {
                duplicated++;
            }
        }
        final HttpClient http = HttpClient.newHttpClient();
        long lost = 0;
        for (long i = 0; i < feeder.sent(); i++) {
            final String user = ChaosFeeder.user(i);
            final Set<String> ids = logged.getOrDefault(user, Set.of());
            if (ids.isEmpty()) {
                lost++; // never reached memory-updated: counted against the pipeline
                continue;
            }
            try {
                final HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + port + "/v1/tenants/" + TENANT + "/users/" + user + "/memories"))
                    .header("Authorization", "Bearer " + API_KEY).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
                for (final String id : ids) {
                    if (answer.statusCode() != 200 || !answer.body().contains(id)) {
                        lost++;
                    }
                }
            } catch (IOException e) {
                lost += ids.size();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted", e);
            }
        }
        return new Count(lost, duplicated);
    }

    private static List<MemoryUpdated> readCommitted(final String bootstrap) {
        final Deserializer<MemoryUpdated> decoder = Topic.MEMORY_UPDATED.valueDeserializer(EngramConfig.plain());
        final List<MemoryUpdated> updates = new ArrayList<>();
        TopicScan.toEnd(TopicScan.client(bootstrap), Topic.MEMORY_UPDATED.name(), null, Duration.ofSeconds(120),
            r -> updates.add(decoder.deserialize(r.topic(), r.headers(), r.value())));
        return updates;
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
