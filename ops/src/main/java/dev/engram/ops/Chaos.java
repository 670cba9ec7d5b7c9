package dev.engram.ops;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.Message;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.core.MemoryIds;
import dev.engram.stack.EmbeddedBroker;
import dev.engram.stack.TopicSetup;
import dev.engram.serde.AvroSerdes;
import dev.engram.topology.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

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
 *   <li><b>answers</b> of the retriever under query load (4 queries/s on known users, API key auth) by
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
                case CONSOLIDATOR -> Topics.CONSOLIDATOR_APP;
                case EXTRACTOR -> Topics.EXTRACTOR_APP;
                case RETRIEVER -> Topics.RETRIEVER_APP;
            };
        }

        String inputTopic() {
            return switch (this) {
                case CONSOLIDATOR -> Topics.MEMORY_CANDIDATES;
                case EXTRACTOR -> Topics.CONVERSATIONS_COMPLETED;
                case RETRIEVER -> Topics.MEMORY_UPDATED;
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

    private static final String TENANT = "chaos";
    private static final String API_KEY = "chaos-soak-api-key-0001";
    private static final int DIMENSIONS = 384;

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
            final Children children = new Children(work, broker.bootstrapServers(), settings.childHeapMb());
            // conversations cost an embedding each: a fifth of the rate, so that the extractor can keep up on 2 cores
            final Feeder feeder = new Feeder(broker.bootstrapServers(), app,
                app == App.EXTRACTOR ? Math.max(1, settings.ratePerSecond() / 5) : settings.ratePerSecond());
            final Queries queries = app == App.RETRIEVER ? new Queries(feeder) : null;
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
    private Count countUpdates(final Feeder feeder, final String bootstrap) {
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
            if (!users.contains(Feeder.user(i))) {
                lost++;
            }
        }
        return new Count(lost, duplicated);
    }

    /** The retriever must serve every memory on memory-updated, each once. */
    private Count countServed(final Feeder feeder, final int port, final EmbeddedBroker broker) {
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
            final String user = Feeder.user(i);
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
        final Deserializer<MemoryUpdated> decoder = AvroSerdes.serde(MemoryUpdated.class).deserializer();
        final List<MemoryUpdated> updates = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = MemorySnapshot.consumer(new HashMap<>(Map.of("bootstrap.servers", bootstrap)))) {
            final List<TopicPartition> partitions = MemorySnapshot.partitions(consumer, Topics.MEMORY_UPDATED);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!MemorySnapshot.reached(consumer, ends) && System.nanoTime() < deadline) {
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    updates.add(decoder.deserialize(r.topic(), r.headers(), r.value()));
                }
            }
        }
        return updates;
    }

    private static void sleep(final double seconds) {
        try {
            Thread.sleep((long) (seconds * 1000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    // ------------------------------------------------------------------ input

    /**
     * Publishes input items at a fixed rate on a thread of its own: item {@code i} is user
     * {@code chaos/u-i} — a candidate (consolidator and retriever soaks; a one-hot embedding, so no two
     * items are similar) or a one-message conversation (extractor soak).
     */
    static final class Feeder {
        private final KafkaProducer<String, byte[]> producer;
        private final App app;
        private final int rate;
        private final AtomicLong sent = new AtomicLong();
        private final AtomicBoolean running = new AtomicBoolean();
        private Thread thread;

        Feeder(final String bootstrap, final App app, final int rate) {
            this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(),
                new ByteArraySerializer());
            this.app = app;
            this.rate = rate;
        }

        static String user(final long i) {
            return "u-" + i;
        }

        void start() {
            running.set(true);
            thread = new Thread(this::loop, "chaos-feeder");
            thread.setDaemon(true);
            thread.start();
        }

        private void loop() {
            final Serializer<MemoryCandidate> candidates = AvroSerdes.serde(MemoryCandidate.class).serializer();
            final Serializer<ConversationCompleted> conversations = AvroSerdes.serde(ConversationCompleted.class).serializer();
            final long start = System.nanoTime();
            while (running.get()) {
                final long due = (System.nanoTime() - start) * rate / 1_000_000_000L;
                while (sent.get() < due && running.get()) {
                    final long i = sent.get();
                    final Instant at = Instant.parse("2026-01-01T00:00:00Z").plusSeconds(i);
                    final byte[] value = app == App.EXTRACTOR
                        ? conversations.serialize(Topics.CONVERSATIONS_COMPLETED, conversation(i, at))
                        : candidates.serialize(Topics.MEMORY_CANDIDATES, candidate(i, at));
                    producer.send(new ProducerRecord<>(app == App.EXTRACTOR ? Topics.CONVERSATIONS_COMPLETED
                        : Topics.MEMORY_CANDIDATES, null, at.toEpochMilli(), TENANT + "/" + user(i), value));
                    sent.incrementAndGet();
                }
                producer.flush();
                sleep(0.05);
            }
            producer.flush();
        }

        void stop() {
            if (running.getAndSet(false) && thread != null) {
                try {
                    thread.join(30_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                producer.close(Duration.ofSeconds(10));
            }
        }

        long sent() {
            return sent.get();
        }

        /** A candidate of its own user, episodic, with a one-hot embedding (dimension i mod 384). */
        static MemoryCandidate candidate(final long i, final Instant at) {
            final String user = user(i);
            final String content = "Chaos item " + i + " about the user's day";
            final List<Float> embedding = new ArrayList<>(DIMENSIONS);
            for (int d = 0; d < DIMENSIONS; d++) {
                embedding.add(d == i % DIMENSIONS ? 1f : 0f);
            }
            return MemoryCandidate.newBuilder()
                .setCandidateId(MemoryIds.candidateId(TENANT, user, "c-" + i, content))
                .setTenantId(TENANT).setUserId(user).setConversationId("c-" + i).setType(MemoryType.EPISODIC)
                .setCategory(null).setKey(null).setValue(null).setDisplayName(null).setContent(content)
                .setNegated(false).setImportance(0.6).setConfidence(0.9).setSource(MemorySource.EXPLICIT)
                .setSourceMessageIndexes(List.of(0)).setEventTime(at).setEmbedding(embedding)
                .setEmbeddingModel("one-hot-chaos").setExtractor("chaos").build();
        }

        /** A one-message conversation the rule-based extractor turns into one preference memory. */
        static ConversationCompleted conversation(final long i, final Instant at) {
            return ConversationCompleted.newBuilder().setTenantId(TENANT).setUserId(user(i)).setConversationId("c-" + i)
                .setMessages(List.of(Message.newBuilder().setIndex(0).setRole("user")
                    .setContent("I prefer tea number " + i + " in the morning.").setTimestamp(at).build()))
                .setCompletedAt(at).setMetadata(Map.of()).build();
        }
    }

    // ------------------------------------------------------------------ queries

    /** Four queries a second against the retriever on users already published; counts statuses. */
    static final class Queries {
        private final Feeder feeder;
        private final Map<Integer, Long> answers = new ConcurrentHashMap<>();
        private final AtomicLong unreachable = new AtomicLong();
        private final AtomicBoolean running = new AtomicBoolean();
        private final AtomicInteger port = new AtomicInteger();
        private Thread thread;

        Queries(final Feeder feeder) {
            this.feeder = feeder;
        }

        void start(final int retrieverPort) {
            port.set(retrieverPort);
            running.set(true);
            thread = new Thread(this::loop, "chaos-queries");
            thread.setDaemon(true);
            thread.start();
        }

        private void loop() {
            final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            final Random random = new Random(16);
            while (running.get()) {
                final long n = Math.max(1, feeder.sent());
                final String user = Feeder.user(random.nextLong(n));
                try {
                    final HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                            + port.get() + "/v1/tenants/" + TENANT + "/users/" + user + "/memories?query=chaos%20item&k=3"))
                        .header("Authorization", "Bearer " + API_KEY).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.discarding());
                    answers.merge(answer.statusCode(), 1L, Long::sum);
                } catch (java.net.ConnectException e) {
                    unreachable.incrementAndGet();
                } catch (IOException e) {
                    // the process died with the request in flight: no answer either
                    unreachable.incrementAndGet();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                sleep(0.25);
            }
        }

        void stop() {
            if (running.getAndSet(false) && thread != null) {
                try {
                    thread.join(15_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        Map<Integer, Long> answers() {
            return new TreeMap<>(answers);
        }

        long wrong() {
            // 404: a user whose memory is not in the read model yet is an honest answer only before the
            // restarted instance catches up; the soak asks for users already consolidated, so it counts.
            return answers.entrySet().stream().filter(e -> e.getKey() != 200 && e.getKey() != 503)
                .mapToLong(Map.Entry::getValue).sum();
        }

        long unreachable() {
            return unreachable.get();
        }
    }

    // ------------------------------------------------------------------ child processes

    /** Child JVMs running {@code EngramCli <app> --config FILE} on this JVM's class path. */
    static final class Children implements AutoCloseable {
        private final Path work;
        private final String bootstrap;
        private final int heapMb;
        private final int retrieverPort = freePort();
        private volatile int lastPort;
        private final List<Process> processes = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final Thread hook = new Thread(() -> processes.forEach(Process::destroyForcibly), "chaos-children");

        Children(final Path work, final String bootstrap, final int heapMb) {
            this.work = work;
            this.bootstrap = bootstrap;
            this.heapMb = heapMb;
            // Ctrl-C on the soak must not leave child JVMs behind
            Runtime.getRuntime().addShutdownHook(hook);
        }

        int retrieverPort() {
            return retrieverPort;
        }

        /** @return the HTTP port of the child started last */
        int lastPort() {
            return lastPort;
        }

        /**
         * Waits until the child's {@code /health/live} answers (the JVM is up and the app configured).
         *
         * @return seconds waited, or -1 if the process died or 180 s passed
         */
        double awaitHttp(final Process process, final int port) {
            final long start = System.nanoTime();
            final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
            while (process.isAlive() && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(180)) {
                try {
                    http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/live"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                    return (System.nanoTime() - start) / 1e9;
                } catch (IOException notYet) {
                    sleep(0.1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return -1;
                }
            }
            return -1;
        }

        Process start(final String command, final String name) {
            final Path props = work.resolve(command + ".properties");
            final Map<String, String> config = new LinkedHashMap<>();
            config.put(EngramConfig.BOOTSTRAP_SERVERS, bootstrap);
            config.put(EngramConfig.STATE_DIR, work.resolve("state-" + command).toString());
            final int port = "retriever".equals(command) ? retrieverPort : freePort();
            lastPort = port;
            config.put(EngramConfig.EXTRACTOR_HTTP_PORT, String.valueOf(port));
            config.put(EngramConfig.CONSOLIDATOR_HTTP_PORT, String.valueOf(port));
            config.put(EngramConfig.RETRIEVER_HTTP_PORT, String.valueOf(port));
            config.put("retriever.auth.keys", API_KEY + "=" + TENANT + ":admin");
            final StringBuilder text = new StringBuilder();
            config.forEach((k, v) -> text.append(k).append('=').append(v.replace("\\", "/")).append('\n'));
            try {
                Files.writeString(props, text);
                final List<String> cmd = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heapMb + "m",
                    "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path")));
                final String log4j = System.getProperty("engram.chaos.log4j");
                if (log4j != null) {
                    cmd.add(1, "-Dlog4j2.configurationFile=" + log4j);
                }
                // each app's own main (what bin/engram <app> runs), so the soak needs only the apps on its class path
                switch (command) {
                    case "consolidator" -> cmd.addAll(List.of("dev.engram.consolidator.ConsolidatorApp", props.toString()));
                    case "extractor" -> cmd.addAll(List.of("dev.engram.extractor.ExtractorApp", props.toString()));
                    default -> cmd.addAll(List.of("dev.engram.retriever.RetrieverApp", "--config", props.toString()));
                }
                final Process process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(work.resolve(name + ".log").toFile()).start();
                processes.add(process);
                return process;
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot start " + command, e);
            }
        }

        @Override
        public void close() {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs
            }
            for (final Process p : processes) {
                p.destroy();
            }
            for (final Process p : processes) {
                try {
                    if (!p.waitFor(30, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    p.destroyForcibly();
                }
            }
        }

        private static int freePort() {
            try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
                return socket.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("No free port", e);
            }
        }
    }
}
