package dev.engram.ops;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.Topic;
import org.apache.kafka.tools.StreamsResetter;

/**
 * The reset half of a {@link Rebuild}: waits for an app's consumer group to be empty, runs Kafka's
 * {@link StreamsResetter} (what {@code kafka-streams-application-reset.sh} runs: input topics back to
 * the earliest offset, or the extractor's {@code conversations-completed} to a time; internal topics
 * deleted) and deletes the app's local state directory, as {@code KafkaStreams#cleanUp()} would.
 */
final class AppReset {

    /** Longer than Streams' default session timeout (45 s). */
    private static final Duration MEMBERS_WAIT = Duration.ofSeconds(60);
    private static final DateTimeFormatter RESETTER_TIME =
        DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS", Locale.ROOT).withZone(ZoneOffset.UTC);

    private final EngramConfig config;
    private final Instant fromTimestamp;
    private final boolean force;
    private final PrintStream out;

    /**
     * @param config bootstrap servers and {@code state.dir}
     * @param fromTimestamp where the extractor's {@code conversations-completed} restarts; null = the earliest offset
     * @param force pass {@code --force} to the reset tool (removes members of instances already stopped)
     * @param out progress
     */
    AppReset(final EngramConfig config, final Instant fromTimestamp, final boolean force, final PrintStream out) {
        this.config = config;
        this.fromTimestamp = fromTimestamp;
        this.force = force;
        this.out = out;
    }

    /**
     * Waits up to {@link #MEMBERS_WAIT} for the group to be empty: instances stopped a moment ago stay
     * members until their session times out (Streams does not leave the group on close).
     */
    void awaitNoMembers(final GroupOffsets offsets, final Rebuild.App a) {
        final long deadline = System.nanoTime() + MEMBERS_WAIT.toNanos();
        boolean told = false;
        while (offsets.hasMembers(a.applicationId(config))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Consumer group " + a.applicationId(config) + " still has members after "
                    + MEMBERS_WAIT.toSeconds() + " s: stop every " + a.name().toLowerCase(Locale.ROOT)
                    + " instance before a rebuild (--force removes members of instances already stopped)");
            }
            if (!told) {
                out.printf("Waiting for the members of %s to leave (instances stopped less than a session timeout ago)…%n",
                    a.applicationId(config));
                told = true;
            }
            try {
                Thread.sleep(1000); // polling the group; there is nothing to block on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted", e);
            }
        }
    }

    /**
     * Runs {@code step} for each app at once, each on a thread of its own (a reset is a few round trips to the broker
     * per app: group members, offsets, internal topics deleted, each waited for), and waits for all.
     *
     * @param apps the apps
     * @param step what to do for one app
     * @throws IllegalStateException the first app's failure (the others are waited for first)
     */
    void forEach(final List<Rebuild.App> apps, final Consumer<Rebuild.App> step) {
        final List<CompletableFuture<Void>> running = new ArrayList<>();
        for (final Rebuild.App a : apps) {
            final CompletableFuture<Void> done = new CompletableFuture<>();
            final Thread t = new Thread(() -> {
                try {
                    step.accept(a);
                    done.complete(null);
                } catch (RuntimeException | Error e) {
                    done.completeExceptionally(e);
                }
            }, "engram-reset-" + a.name().toLowerCase(Locale.ROOT));
            t.setDaemon(true);
            t.start();
            running.add(done);
        }
        RuntimeException first = null;
        for (final CompletableFuture<Void> done : running) {
            try {
                done.join();
            } catch (CompletionException e) {
                if (first == null) {
                    first = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Runs StreamsResetter for one app; returns its input topics. */
    Set<String> reset(final Rebuild.App a, final GroupOffsets offsets, final Set<String> existing) {
        final Set<String> topics = new TreeSet<>(a.inputs());
        topics.addAll(offsets.inputTopics(a.applicationId(config)));
        topics.retainAll(existing);
        final Set<String> byTime = new LinkedHashSet<>();
        if (a == Rebuild.App.EXTRACTOR && fromTimestamp != null) {
            byTime.add(Topic.CONVERSATIONS_COMPLETED.name());
        }
        final Set<String> earliest = new TreeSet<>(topics);
        earliest.removeAll(byTime);
        out.printf("Resetting %s with Kafka's StreamsResetter: %s to the earliest offset%s; internal topics deleted%n",
            a.applicationId(config), earliest, byTime.isEmpty() ? "" : ", " + byTime + " to " + fromTimestamp);
        runResetter(a, earliest, List.of("--to-earliest"), offsets);
        if (!byTime.isEmpty()) {
            runResetter(a, byTime, List.of("--to-datetime", RESETTER_TIME.format(fromTimestamp)), offsets);
        }
        return topics;
    }

    private void runResetter(final Rebuild.App a, final Set<String> topics, final List<String> position,
                             final GroupOffsets offsets) {
        if (topics.isEmpty()) {
            return;
        }
        final List<String> args = new ArrayList<>(List.of("--bootstrap-server", config.getString(CoreConfig.BOOTSTRAP_SERVERS),
            "--application-id", a.applicationId(config), "--input-topics", String.join(",", topics)));
        args.addAll(position);
        if (force) {
            args.add("--force");
        }
        final int code = new StreamsResetter().execute(args.toArray(String[]::new));
        if (code != 0) {
            // README trial: --force against a running app removed its members, the app rejoined at once, and the
            // resetter's offset commit failed with a stack trace about max.poll.interval.ms
            final boolean running = force && offsets.hasMembers(a.applicationId(config));
            throw new IllegalStateException("StreamsResetter failed for " + a.applicationId(config) + " (exit " + code
                + (running ? "): the group has members again after --force removed them, so an instance is running: stop"
                    + " every " + a.name().toLowerCase(Locale.ROOT) + " instance (--force is for instances already"
                    + " stopped), then run the rebuild again" : "); see its output above"));
        }
    }

    void deleteLocalState(final Rebuild.App a) {
        final Path dir = Path.of(config.getString(PipelineConfig.STATE_DIR)).resolve(a.applicationId(config));
        try {
            dev.engram.stack.ProjectPaths.deleteRecursively(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete the local state " + dir, e);
        }
    }
}
