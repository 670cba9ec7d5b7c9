package dev.engram.ops;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.KnownVectors;
import dev.engram.runtime.StreamsRunner;
import dev.engram.topics.AppIds;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;

/**
 * Rebuilds one Streams app's state from its input topics, the supported way:
 *
 * <ol>
 *   <li>waits (up to 60 s) until the app's consumer group has no members, and refuses if it still has:
 *       Kafka's reset tool must only run against a stopped application ({@code force} removes the
 *       members of instances already stopped, as the reset tool's {@code --force});</li>
 *   <li>remembers where {@code memory-updated} ends and reads the memory state before up to there
 *       ({@link MemorySnapshot} of {@code memory-updated}) beside the next steps ({@link RebuildSnapshots});</li>
 *   <li>runs Kafka's {@code StreamsResetter} (what {@code kafka-streams-application-reset.sh} runs; {@link AppReset}):
 *       input topics back to the earliest offset, the app's internal topics (changelogs) deleted;</li>
 *   <li>deletes the app's local state directory ({@code <state.dir>/<application.id>}), as
 *       {@code KafkaStreams#cleanUp()} would;</li>
 *   <li>for the consolidator, runs the app with its embedder counted ({@link KnownVectors}, no vector known):
 *       candidates carry their vectors and an observation's is its statements' centroid, so a rebuild without
 *       {@code reExtract} embeds nothing, and the report says so;</li>
 *   <li>runs the app in this JVM ({@link #replayConfig}: the consolidator regroups observations once its input is
 *       quiet, not every few seconds of the replay) until its consumer group has no lag on its inputs and, for the
 *       consolidator, no user's observations are still to be regrouped (its pending store asked in this JVM, then
 *       {@link PendingObservations} on the changelog: committed; {@link ReprocessWatch}), printing
 *       progress; with {@code reExtract} the extractor and the consolidator run at once (the consolidator consumes
 *       candidates as they are written), the consolidator awaited after the extractor has extracted every
 *       conversation; with {@code withRetriever} the retriever runs at once too (it re-reads {@code memory-updated}
 *       while the consolidator appends the rebuilt events), awaited after the consolidator ({@link RebuiltApps});</li>
 *   <li>snapshots the state after and compares it with the state before ({@link MemorySnapshot#diff}).</li>
 * </ol>
 *
 * <p>The report says where the wall time went ({@link Report#phaseSeconds}).
 *
 * <p>Which state "after" means: for the consolidator, the fold of the {@code memory-updated} events the
 * rebuild itself wrote (from the remembered end on), so an empty or partial rebuild cannot pass; for
 * the retriever, its rebuilt read model read through interactive queries (with {@code withRetriever}, both); for the
 * extractor alone, the whole topic again.
 *
 * <p>Extraction is re-run only with {@code reExtract} (the extractor is reset and run too, so its
 * candidates reach the consolidator; candidate ids are deterministic, so a redelivered candidate
 * changes nothing). {@code fromTimestamp} applies to the extractor's {@code conversations-completed}
 * only: the consolidator's and retriever's state is a fold of their whole input, so they always restart
 * from the earliest offset.
 */
public final class Rebuild {

    /** The apps a rebuild can reset. */
    public enum App {
        /** {@code EXTRACTOR_APP}. */
        EXTRACTOR(AppIds.EXTRACTOR, List.of(Topic.CONVERSATIONS_COMPLETED.name(), Topic.USER_PROFILES.name())),
        /** {@code CONSOLIDATOR_APP}. */
        CONSOLIDATOR(AppIds.CONSOLIDATOR, List.of(Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_COMMANDS.name(), Topic.MEMORY_ACCESS.name())),
        /** {@code RETRIEVER_APP}. */
        RETRIEVER(AppIds.RETRIEVER, List.of(Topic.MEMORY_UPDATED.name(), Topic.MEMORY_ACCESS.name()));

        private final String applicationId;
        private final List<String> inputs;

        App(final String applicationId, final List<String> inputs) {
            this.applicationId = applicationId;
            this.inputs = inputs;
        }

        /** @return the built-in application.id ({@link AppIds}) */
        public String applicationId() {
            return applicationId;
        }

        /**
         * @param config the deployment's configuration
         * @return the application.id the app runs under: {@code kafka.application.id} when set (the {@code kafka.}
         *     settings come last in {@code StreamsSettings#forApp}), else the built-in one; the group a rebuild resets
         */
        public String applicationId(final EngramConfig config) {
            final Object set = config.kafkaProperties().get(org.apache.kafka.streams.StreamsConfig.APPLICATION_ID_CONFIG);
            return set == null ? applicationId : set.toString();
        }

        /** @return its name in phase names, e.g. {@code consolidator} */
        String key() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** @return the topics the app reads */
        List<String> inputs() {
            return inputs;
        }
    }

    /**
     * What a rebuild did.
     *
     * @param processed app → input records re-processed
     * @param updatesWritten {@code memory-updated} records written during the rebuild
     * @param before the state before
     * @param after the state after
     * @param differences {@link MemorySnapshot#diff}, empty when identical
     * @param seconds wall time
     * @param reprocessSeconds app → wall time from its start until it had caught up (the rest of {@code seconds}:
     *     snapshots, reset)
     * @param observationVectorsReused observation texts the rebuilt consolidator took from known vectors instead of
     *     embedding them: 0 since an observation's vector is its statements' centroid (kept for the report's readers)
     * @param observationTextsEmbedded observation texts it embedded (not found there)
     * @param phaseSeconds where {@code seconds} went, in order ({@link RebuildPhases}): {@code snapshotBefore}, {@code reset},
     *     {@code observationVectors}, per app {@code <app>.start} (from its start until RUNNING) and {@code <app>.catchUp}
     *     (until caught up), {@code consolidator.regroup} (until no user's observations are pending),
     *     {@code snapshotAfter}; with {@code reExtract} the consolidator starts with the extractor, so its start
     *     overlaps the extractor's phases; {@code snapshotBefore} is the wait for the state before, read beside the
     *     other phases (its end offsets taken, then what was left to read once the apps had caught up)
     */
    public record Report(Map<App, Long> processed, long updatesWritten, MemorySnapshot before, MemorySnapshot after,
                         List<String> differences, double seconds, Map<App, Double> reprocessSeconds,
                         long observationVectorsReused, long observationTextsEmbedded, Map<String, Double> phaseSeconds) {
    }

    private final EngramConfig config;
    private final App app;
    private final Instant fromTimestamp;
    private final boolean reExtract;
    private final boolean withRetriever;
    private final boolean force;
    private final Path workDir;
    private final Duration timeout;
    private final PrintStream out;

    /**
     * A rebuild of one app (with {@code reExtract}, of the extractor too).
     *
     * @param config the apps' config (bootstrap servers, state.dir, thresholds); HTTP ports should be 0
     * @param app the app to rebuild
     * @param fromTimestamp re-extract conversations from this event time on (with {@code reExtract}); null = all
     * @param reExtract also reset and re-run the extractor (LLM cost with an LLM extractor)
     * @param force remove members left in the app's consumer group (instances stopped less than a
     *     session timeout ago) instead of waiting for them to expire; never use it while one still runs
     * @param workDir where {@code before.json} and {@code after.json} are written
     * @param timeout how long re-processing may take at most
     * @param out progress and report
     */
    public Rebuild(final EngramConfig config, final App app, final Instant fromTimestamp, final boolean reExtract,
                   final boolean force, final Path workDir, final Duration timeout, final PrintStream out) {
        this(config, app, fromTimestamp, reExtract, false, force, workDir, timeout, out);
    }

    /**
     * A rebuild of the consolidator and, at once, of the retriever ({@code withRetriever}): the retriever is reset with
     * it and re-reads {@code memory-updated} while the consolidator appends the rebuilt events to it, so the two take
     * about the consolidator's time instead of the sum of two rebuilds; both are verified against the state before
     * (the retriever's read model too: its differences are prefixed {@code retriever:}).
     *
     * @param withRetriever also reset and re-run the retriever at once (only with {@code app} consolidator)
     * @throws IllegalArgumentException for {@code withRetriever} with another app, {@code fromTimestamp} without
     *     re-extraction, or two apps at once under one {@code kafka.application.id}
     * @see #Rebuild(EngramConfig, App, Instant, boolean, boolean, Path, Duration, PrintStream) the other parameters
     */
    public Rebuild(final EngramConfig config, final App app, final Instant fromTimestamp, final boolean reExtract,
                   final boolean withRetriever, final boolean force, final Path workDir, final Duration timeout,
                   final PrintStream out) {
        this.config = config;
        this.app = app;
        this.fromTimestamp = fromTimestamp;
        this.reExtract = reExtract || app == App.EXTRACTOR;
        this.withRetriever = withRetriever;
        this.force = force;
        this.workDir = workDir;
        this.timeout = timeout;
        this.out = out;
        if (fromTimestamp != null && !this.reExtract) {
            throw new IllegalArgumentException("--from-timestamp re-extracts conversations from that time on: "
                + "it needs --re-extract (the " + app.name().toLowerCase(Locale.ROOT)
                + "'s state is a fold of its whole input and is always rebuilt from the start)");
        }
        if (withRetriever && app != App.CONSOLIDATOR) {
            throw new IllegalArgumentException("--with-retriever rebuilds the retriever at once with the consolidator: "
                + "it needs --app consolidator (not " + app.name().toLowerCase(Locale.ROOT) + ")");
        }
        if (config.kafkaProperties().containsKey(org.apache.kafka.streams.StreamsConfig.APPLICATION_ID_CONFIG)
            && (withRetriever || this.reExtract && app != App.EXTRACTOR)) {
            throw new IllegalArgumentException("kafka.application.id names one app's group: a rebuild of two apps at once "
                + "(--with-retriever, --re-extract) cannot run both under it; rebuild them one at a time, each with its own configuration");
        }
    }

    /**
     * Runs the rebuild.
     *
     * @return the report
     * @throws IllegalStateException if an instance is still running, the reset fails, or re-processing
     *     does not finish within the timeout
     */
    public Report run() {
        return run(() -> { });
    }

    /**
     * Runs the rebuild, with a hook while the rebuilt apps still run.
     *
     * @param beforeStop runs once the state after is read and the report made, before the rebuilt apps are stopped (a
     *     benchmark reads their threads' CPU time there: a stopped thread's is gone)
     * @return the report
     * @throws IllegalStateException as {@link #run()}
     */
    public Report run(final Runnable beforeStop) {
        final RebuildPhases phases = new RebuildPhases();
        final List<App> apps = new ArrayList<>();
        if (reExtract) {
            apps.add(App.EXTRACTOR);
        }
        if (app != App.EXTRACTOR) {
            apps.add(app);
        }
        if (withRetriever) {
            apps.add(App.RETRIEVER);
        }
        final Map<String, Object> client = clientProperties();
        final AppReset reset = new AppReset(config, fromTimestamp, force, out);
        try (Admin admin = Admin.create(client)) {
            final GroupOffsets offsets = new GroupOffsets(admin);
            for (final App a : apps) {
                if (!force) {
                    reset.awaitNoMembers(offsets, a);
                }
            }
            // the state before is memory-updated up to where it ends now, read beside the reset and the rebuilt apps
            // (which only append after that end): its second or two no longer delay them
            final Map<TopicPartition, Long> updatedEnd = offsets.ends(Set.of(Topic.MEMORY_UPDATED.name()));
            // the consolidator's state after is what it appends from there on, folded as it is written
            try (RebuildSnapshots snapshots = RebuildSnapshots.start(client, updatedEnd, timeout, this::updates,
                    workDir.resolve("before.json"), app == App.CONSOLIDATOR)) {
                phases.end("snapshotBefore");

                final Map<App, Set<String>> inputs = new ConcurrentHashMap<>();
                final Map<App, Map<TopicPartition, Long>> resetAt = new ConcurrentHashMap<>();
                final Set<String> existing = GroupOffsets.get(admin.listTopics().names(), "list", "topics");
                // the apps' groups and internal topics are their own: reset at once, each on a thread of its own
                reset.forEach(apps, a -> {
                    if (a == App.CONSOLIDATOR) {
                        notePending(client); // before its reset deletes the pending changelog
                    }
                    inputs.put(a, reset.reset(a, offsets, existing));
                    resetAt.put(a, offsets.committed(a.applicationId(config)));
                    reset.deleteLocalState(a);
                });
                phases.end("reset");
                final Map<App, Long> processed = new HashMap<>();
                final Map<App, Double> reprocessSeconds = new HashMap<>();
                try (RebuiltApps running = new RebuiltApps(out)) {
                    // an observation's vector is its statements' centroid (the consolidator embeds nothing): no vector to
                    // read back from memory-updated; the phase stays in the report (0 s) for its readers
                    if (apps.contains(App.CONSOLIDATOR)) {
                        phases.end("observationVectors");
                    }
                    // every app at once: each consumes what the one before writes as it is written
                    running.start(apps, ReplayConfig.of(config), updatedEnd.size());
                    final ReprocessWatch watch = new ReprocessWatch(config, offsets, client, updatedEnd, phases, timeout, out);
                    for (final App a : apps) {
                        final StreamsRunner runner = running.runner(a);
                        out.printf("Re-processing %s from %s…%n", a.applicationId(config), String.join(", ", inputs.get(a)));
                        watch.awaitRunning(a, runner);
                        phases.end(a.key() + ".start");
                        // with the consolidator beside it, the extractor is done once it has extracted every conversation
                        // (the consolidator's profiles keep arriving on user-profiles until the consolidator is done)
                        // (and the repartition topic: a conversation re-routed to its user's partition is in no store
                        // until the extractor consumes it again)
                        final Set<String> caughtUpOn = a == App.EXTRACTOR && apps.contains(App.CONSOLIDATOR)
                            ? Set.of(Topic.CONVERSATIONS_COMPLETED.name(), dev.engram.topology.ExtractionTopology.REPARTITION_TOPIC)
                            : inputs.get(a);
                        watch.awaitCaughtUp(a, runner, caughtUpOn, running.idle(a, client));
                        phases.end(a.key() + ".catchUp");
                        if (a == App.CONSOLIDATOR) {
                            watch.awaitRegrouped(runner);
                            phases.end("consolidator.regroup");
                        }
                        processed.put(a, ReprocessWatch.processed(offsets.committed(a.applicationId(config)), resetAt.get(a),
                            inputs.get(a)));
                        reprocessSeconds.put(a, running.secondsSinceStart(a));
                        out.printf(Locale.ROOT, "[%6.1f s] %s: %,d input records re-processed · memory-updated offsets +%,d"
                            + " · %,.0f commits%n", phases.total(), a.applicationId(config), processed.get(a), watch.updatesSince(),
                            ReprocessWatch.commits(runner));
                    }
                    final MemorySnapshot before = snapshots.before(out);
                    phases.end("snapshotBefore");
                    final MemorySnapshot after = app == App.RETRIEVER
                        ? MemorySnapshot.ofReadModel(running.retriever().runner().kafkaStreams())
                        : app == App.CONSOLIDATOR ? snapshots.appended(offsets.ends(Set.of(Topic.MEMORY_UPDATED.name())))
                        : MemorySnapshot.fromTopic(client, null, timeout, updates());
                    after.write(workDir.resolve("after.json"));
                    final List<String> differences = new ArrayList<>(before.diff(after));
                    if (withRetriever) {
                        final MemorySnapshot readModel = MemorySnapshot.ofReadModel(running.retriever().runner().kafkaStreams());
                        readModel.write(workDir.resolve("after-retriever.json"));
                        before.diff(readModel).forEach(d -> differences.add("retriever: " + d));
                    }
                    final long written = after.events() > 0 && app == App.CONSOLIDATOR ? after.events()
                        : watch.updatesSince();
                    phases.end("snapshotAfter");
                    final Report report = new Report(Map.copyOf(processed), written, before, after, List.copyOf(differences),
                        phases.total(), Map.copyOf(reprocessSeconds), running.observationVectorsReused(),
                        running.observationTextsEmbedded(), phases.seconds());
                    RebuildSummary.print(out, report, app, config, workDir);
                    beforeStop.run();
                    return report;
                }
            }
        }
    }

    /** Tells of users the stopped consolidator left to regroup (their observations will differ in verify). */
    private void notePending(final Map<String, Object> client) {
        final int pending = PendingObservations.count(client, timeout);
        if (pending > 0) {
            out.printf("Note: the consolidator was stopped with %,d users' observations not regrouped yet; the "
                + "rebuild regroups them, so verify shows those users%n", pending);
        }
    }

    private String bootstrapServers() {
        return config.getString(CoreConfig.BOOTSTRAP_SERVERS);
    }

    private Map<String, Object> clientProperties() {
        final Map<String, Object> props = new HashMap<>();
        for (final Map.Entry<String, Object> e : config.kafkaProperties().entrySet()) {
            if (ConsumerConfig.configNames().contains(e.getKey())) {
                props.put(e.getKey(), e.getValue());
            }
        }
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return props;
    }

    /** The memory-updated decoder of this deployment (sealing when {@code crypto.enabled}). */
    private org.apache.kafka.common.serialization.Deserializer<dev.engram.avro.MemoryUpdated> updates() {
        return Topic.MEMORY_UPDATED.valueDeserializer(config);
    }
}
