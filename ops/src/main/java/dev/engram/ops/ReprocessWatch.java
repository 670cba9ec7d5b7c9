package dev.engram.ops;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

import dev.engram.config.EngramConfig;
import dev.engram.runtime.StreamsRunner;
import dev.engram.topics.Topic;
import dev.engram.topology.StoreNames;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.UnknownStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The waits of a {@link Rebuild} while the rebuilt apps re-process their input, all bounded by one deadline: until an
 * app is RUNNING, until its consumer group has caught up, until the consolidator has no user's observations pending.
 * There is nothing to block on (group offsets, a store), so each polls every {@link #POLL_EVERY} (it was 500 ms, with
 * a consumer made for each look at the pending changelog: most of a small rebuild's wall time was such waits).
 */
final class ReprocessWatch {

    /** How often the groups' lag is asked while the apps still fetch their input. */
    static final Duration POLL_EVERY = Duration.ofMillis(100);
    /**
     * How soon a look follows one that found the app done (the second of two in a row), or its consumers at the end of
     * their input; also how often the consolidator's pending-observations store is asked (in this JVM).
     */
    static final Duration CONFIRM_AFTER = Duration.ofMillis(20);
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(2);

    private final EngramConfig config;
    private final GroupOffsets offsets;
    private final Map<String, Object> client;
    private final Map<TopicPartition, Long> updatedEnd;
    private final RebuildPhases phases;
    private final Duration timeout;
    private final long deadline;
    private final PrintStream out;

    /**
     * @param config the deployment's configuration (the apps' application.id, {@link Rebuild.App#applicationId(EngramConfig)})
     * @param offsets the cluster's group offsets
     * @param client consumer properties with at least {@code bootstrap.servers}
     * @param updatedEnd where {@code memory-updated} ended before the rebuild
     * @param phases the rebuild's phases (progress lines print their total)
     * @param timeout how long all the waits together may take, from now
     * @param out progress
     */
    ReprocessWatch(final EngramConfig config, final GroupOffsets offsets, final Map<String, Object> client, final Map<TopicPartition, Long> updatedEnd,
                   final RebuildPhases phases, final Duration timeout, final PrintStream out) {
        this.config = config;
        this.offsets = offsets;
        this.client = client;
        this.updatedEnd = updatedEnd;
        this.phases = phases;
        this.timeout = timeout;
        this.deadline = System.nanoTime() + timeout.toNanos();
        this.out = out;
    }

    /**
     * Waits until the app is RUNNING (started, its tasks assigned and restored).
     *
     * @throws IllegalStateException if it stops or the deadline passes
     */
    void awaitRunning(final Rebuild.App a, final StreamsRunner runner) {
        while (!runner.isReady()) {
            requireLive(a, runner);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(a.applicationId(config) + " was not RUNNING within " + timeout + " (state "
                    + runner.state() + ")");
            }
            // woken by the state change itself (a pause of POLL_EVERY was half of it lost on average); once RUNNING was
            // reached and left again (a rebalance) the latch is open, so look again after a short pause
            try {
                if (runner.awaitRunning(POLL_EVERY) && !runner.isReady()) {
                    pause(CONFIRM_AFTER);
                }
            } catch (IllegalStateException ended) {
                requireLive(a, runner);
            }
        }
    }

    /**
     * Waits until the group has no lag on {@code topics} twice in a row and {@code idle} holds, printing progress.
     *
     * @throws IllegalStateException if the app stops or the deadline passes
     */
    void awaitCaughtUp(final Rebuild.App a, final StreamsRunner runner, final Set<String> topics, final BooleanSupplier idle) {
        long lastPrint = System.nanoTime();
        int settled = 0;
        while (true) {
            requireLive(a, runner);
            final long lag = offsets.lag(a.applicationId(config), topics);
            settled = lag == 0 && runner.isReady() && idle.getAsBoolean() ? settled + 1 : 0;
            if (settled >= 2) {
                return;
            }
            if (System.nanoTime() - lastPrint > PROGRESS_EVERY.toNanos()) {
                lastPrint = System.nanoTime();
                out.printf(Locale.ROOT, "[%6.1f s] %s: lag %,d · memory-updated offsets +%,d%n",
                    phases.total(), a.applicationId(config), lag, updatesSince());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(a.applicationId(config) + " did not catch up within " + timeout + " (lag " + lag + ")");
            }
            // the second look only confirms the first; and once the app's consumers have fetched all of their input, its
            // last commit is near: look often then (each look is three requests to the broker, so not all the time)
            pause(settled == 1 || fetchedAll(runner, topics) ? CONFIRM_AFTER : POLL_EVERY);
        }
    }

    /**
     * Waits until no user's observations are pending in the rebuilt consolidator: asked of its store in this JVM
     * (interactive query), then confirmed on the store's changelog, which holds only what is committed (and so is the
     * regrouping's output on {@code memory-updated}, written in the same transaction).
     *
     * @throws IllegalStateException if the consolidator stops or the deadline passes
     */
    void awaitRegrouped(final StreamsRunner runner) {
        // the store is asked often (in this JVM, no request to the broker), the changelog (a consumer of its own) only
        // once the store has no user left
        while (pendingInStore(runner) || PendingObservations.count(client, timeout) > 0) {
            requireLive(Rebuild.App.CONSOLIDATOR, runner);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("engram-consolidator still had users' observations to regroup after "
                    + timeout);
            }
            pause(CONFIRM_AFTER);
        }
    }

    /** @return {@code memory-updated} records written since the rebuild began (all partitions) */
    long updatesSince() {
        long sum = 0;
        for (final Map.Entry<TopicPartition, Long> e : offsets.ends(Set.of(Topic.MEMORY_UPDATED.name())).entrySet()) {
            sum += Math.max(0, e.getValue() - updatedEnd.getOrDefault(e.getKey(), 0L));
        }
        return sum;
    }

    /**
     * @param committed the group's committed offsets now
     * @param resetAt its committed offsets right after the reset
     * @param topics the topics to count
     * @return input records the group processed since the reset
     */
    static long processed(final Map<TopicPartition, Long> committed, final Map<TopicPartition, Long> resetAt,
                          final Set<String> topics) {
        long sum = 0;
        for (final Map.Entry<TopicPartition, Long> e : committed.entrySet()) {
            if (topics.contains(e.getKey().topic())) {
                sum += Math.max(0, e.getValue() - resetAt.getOrDefault(e.getKey(), 0L));
            }
        }
        return sum;
    }

    /**
     * @param runner a running app
     * @return the commits its stream threads made so far (Kafka Streams' {@code commit-total}; under exactly-once, each a
     *     transaction of every task the thread runs)
     */
    static double commits(final StreamsRunner runner) {
        double sum = 0;
        for (final Map.Entry<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> m
            : runner.kafkaStreams().metrics().entrySet()) {
            if (m.getKey().name().equals("commit-total") && m.getKey().group().equals("stream-thread-metrics")
                && m.getValue().metricValue() instanceof Number n) {
                sum += n.doubleValue();
            }
        }
        return sum;
    }

    /** @return whether the running consolidator's pending-observations store holds a user (true while not queryable) */
    private static boolean pendingInStore(final StreamsRunner runner) {
        try {
            final ReadOnlyKeyValueStore<String, Long> store = runner.kafkaStreams().store(StoreQueryParameters.fromNameAndType(
                StoreNames.OBSERVATION_PENDING, QueryableStoreTypes.<String, Long>keyValueStore()));
            try (KeyValueIterator<String, Long> it = store.all()) {
                return it.hasNext();
            }
        } catch (UnknownStateStoreException e) {
            return false; // a topology without the store marks no user
        } catch (InvalidStateStoreException e) {
            return true; // rebalancing: ask again
        }
    }

    private void requireLive(final Rebuild.App a, final StreamsRunner runner) {
        if (!runner.isLive()) {
            throw new IllegalStateException(a.applicationId(config) + " stopped during the rebuild (state " + runner.state() + ")",
                runner.failure());
        }
    }

    /**
     * @param runner a running app
     * @param topics its input topics
     * @return whether its main consumers have fetched every partition of the topics they read to its end (Kafka's
     *     {@code records-lag} of each partition 0): what is left is in the tasks' buffers, processed and committed soon;
     *     false before the first fetch
     */
    static boolean fetchedAll(final StreamsRunner runner, final Set<String> topics) {
        boolean any = false;
        for (final Map.Entry<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> m
            : runner.kafkaStreams().metrics().entrySet()) {
            final org.apache.kafka.common.MetricName name = m.getKey();
            if (name.name().equals("records-lag") && name.group().equals("consumer-fetch-manager-metrics")
                && topics.contains(name.tags().get("topic")) && m.getValue().metricValue() instanceof Number n) {
                if (n.doubleValue() > 0 || Double.isNaN(n.doubleValue())) {
                    return false;
                }
                any = true;
            }
        }
        return any;
    }

    private static void pause(final Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }
}
