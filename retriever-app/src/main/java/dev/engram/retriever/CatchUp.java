package dev.engram.retriever;

import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import dev.engram.config.KafkaConnection;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A latch that opens once this retriever instance has read its input topic ({@code memory-updated}) up to where the
 * topic ended when its stream thread first ran, and stays open: "caught up once since the start".
 *
 * <p>Why: a restarted retriever is RUNNING (its stores are queryable) while it still works through the events that
 * arrived while it was down, so a user in that backlog is unknown to it. Until the latch opens, "unknown" is not an
 * answer the instance can give: {@link RetrievalService#unknown} makes it a 503 with Retry-After, and the readiness
 * probe says not ready. An empty topic (a fresh deployment) is caught up at the first check.
 *
 * <p>How, on one background thread every {@value #CHECK_MS} ms while the Streams client is RUNNING: the partitions of
 * the topic in this instance's active tasks ({@link KafkaStreams#metadataForLocalThreads()}); for each, once, its
 * target: the read_committed end offset (last stable offset) when it is first seen; then the group's committed
 * offsets ({@code application.id}; under exactly_once_v2 a commit is the transaction that also holds the store
 * writes, so a committed offset is processed and visible). Open when every committed offset has reached its target.
 * These are the offsets an operator's lag check reads (committed vs end), not the consumer's fetch lag, which says 0
 * as soon as the backlog is fetched into the task buffer, before it is processed.
 *
 * <p>Bounded: after {@code maxWait} (from construction) the latch opens anyway with a warning, so that a target the
 * group never commits up to (the backlog ends in aborted transactions only; the cluster unreachable) cannot keep the
 * instance unready forever. Later rebalances do not close it again, but a partition moved here after the latch
 * opened is gated the same way on its own ({@link #partitionCaughtUp}): it is restored from its changelog before
 * RUNNING, but its old owner's last commit may be minutes behind the topic (the chaos scale-out: an owner that failed
 * and a 45 s session timeout), and until this instance has processed up to where the topic ended when the partition
 * arrived, a user of that backlog is not read yet rather than unknown (503, not 404). Each such gate is bounded by the
 * same maximum wait, counted from the partition's arrival. And every owned partition must have been processed up to
 * its end at most {@value #MAX_STALENESS_MS} ms ago ({@link PartitionFreshness}, sampled at each check): an instance
 * that fell behind its input (a killed broker at load) cannot tell a user it has not read yet from an unknown one
 * either. Thread-safe.
 */
final class CatchUp implements AutoCloseable {

    /** Milliseconds between two checks. */
    static final long CHECK_MS = 100;
    /** Milliseconds between two checks for moved partitions (and of every owned one's freshness) once the latch is open. */
    static final long MOVED_CHECK_MS = 500;
    /**
     * Longest time since an owned partition was processed up to its end for "unknown" to be an answer about its users
     * ({@link PartitionFreshness}): well under the 10 s and 30 s after which the chaos soaks count a 404 as wrong, and
     * ten checks long, so that one slow check at load does not turn 404s into 503s.
     */
    static final long MAX_STALENESS_MS = 5_000;
    private static final Logger LOG = LoggerFactory.getLogger(CatchUp.class);

    private final Supplier<KafkaStreams> streams;
    private final Map<String, Object> connection;
    private final String groupId;
    private final String topic;
    private final long maxWaitNanos;
    private final long createdAt = System.nanoTime();
    /** Target per partition, fixed when first seen; checker thread only. */
    private final Map<TopicPartition, Long> targets = new HashMap<>();
    private volatile boolean open;
    /**
     * Partitions owned here and known to be caught up: those owned when the latch opened, and each that moved here
     * later once processed up to its target. A partition not in it (just moved here, not checked yet) is not.
     */
    private final Set<Integer> caughtUpPartitions = ConcurrentHashMap.newKeySet();
    /** Partitions moved here after the latch opened and not caught up yet, with when they were first seen. */
    private final Map<Integer, Long> pending = new ConcurrentHashMap<>();
    private volatile long behind = -1;
    private volatile boolean closed;
    private Thread checker;
    /** Whether the partitions owned when the latch opened have been taken as caught up (before: every one is). */
    private volatile boolean seeded;
    private final PartitionFreshness freshness = new PartitionFreshness(TimeUnit.MILLISECONDS.toNanos(MAX_STALENESS_MS));

    /**
     * @param streams the Streams client (null until created)
     * @param kafka the app's Kafka settings (bootstrap servers and security are taken)
     * @param groupId the Streams {@code application.id}, whose committed offsets are read
     * @param topic the input topic
     * @param maxWait longest the latch stays closed; zero opens it at once
     */
    CatchUp(final Supplier<KafkaStreams> streams, final Map<String, Object> kafka, final String groupId,
            final String topic, final Duration maxWait) {
        this.streams = streams;
        this.connection = KafkaConnection.of(kafka);
        this.groupId = groupId;
        this.topic = topic;
        this.maxWaitNanos = maxWait.toNanos();
        this.open = maxWait.isZero();
    }

    /** Starts the checker thread (a no-op when the latch is open from the start: no waiting configured). */
    void start() {
        if (open) {
            return;
        }
        checker = new Thread(this::run, "engram-retriever-catch-up");
        checker.setDaemon(true);
        checker.start();
    }

    /** @return true once the instance has caught up (or the wait bound passed); never false again after that */
    boolean caughtUp() {
        return open;
    }

    /**
     * @param partition a partition of the input topic
     * @return true once the instance has caught up and, if the partition moved here since, has processed it up to
     *     where it ended when it arrived (or that wait's bound passed), and has processed it up to where it ended at
     *     most {@value #MAX_STALENESS_MS} ms ago
     */
    boolean partitionCaughtUp(final int partition) {
        return open && (!seeded || caughtUpPartitions.contains(partition) && freshness.current(partition, System.nanoTime()));
    }

    /**
     * Why a partition owned here is not caught up, for the 503's detail (a client and an operator see how far behind
     * the instance is, not only "not ready").
     *
     * @param partition a partition of the input topic
     * @return empty when {@link #partitionCaughtUp} holds or nothing more specific than "not ready" is known; else e.g.
     *     {@code partition 3 of memory-updated was last read to its end 12.4 s ago (about 57 records behind)}
     */
    Optional<String> lagOf(final int partition) {
        if (!open || !seeded || partitionCaughtUp(partition)) {
            return Optional.empty();
        }
        final Long movedAt = pending.get(partition);
        if (movedAt != null) {
            return Optional.of(String.format(Locale.ROOT, "partition %d of %s moved to this instance %.1f s ago and is "
                + "being read up to where it ended then", partition, topic, (System.nanoTime() - movedAt) / 1e9));
        }
        if (!caughtUpPartitions.contains(partition)) {
            return Optional.empty();
        }
        return Optional.of(freshness.describe(partition, topic, System.nanoTime()));
    }

    /** @return records of the input topic not yet committed as processed at the last check; -1 before one */
    long behind() {
        return behind;
    }

    private void run() {
        final Map<String, Object> props = new HashMap<>(connection);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        try (Admin admin = Admin.create(props)) {
            String lastFailure = null;
            while (!closed) {
                if (!open && System.nanoTime() - createdAt > maxWaitNanos) {
                    open = true;
                    LOG.warn("retriever: not caught up with {} after {} ms ({} records behind at the last check); "
                        + "answering 404 for users and memories not read yet from now on", topic,
                        TimeUnit.NANOSECONDS.toMillis(maxWaitNanos), behind);
                }
                final KafkaStreams client = streams.get();
                if (client != null && client.state() == KafkaStreams.State.RUNNING) {
                    try {
                        if (open) {
                            checkMoved(admin, client);
                        } else {
                            check(admin, client);
                        }
                        lastFailure = null;
                    } catch (ExecutionException | TimeoutException | RuntimeException e) {
                        final String failure = e.toString();
                        if (!failure.equals(lastFailure)) {
                            LOG.info("retriever: catch-up check failed ({}); retrying", failure);
                            lastFailure = failure;
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                pause(open ? MOVED_CHECK_MS : CHECK_MS);
            }
        } catch (RuntimeException e) {
            // no admin client (bad settings): the wait bound cannot be kept, so do not wait at all
            open = true;
            LOG.warn("retriever: cannot check catch-up ({}); answering 404 for unknown users from now on", e.toString());
        }
    }

    private void check(final Admin admin, final KafkaStreams client)
        throws ExecutionException, InterruptedException, TimeoutException {
        final Set<TopicPartition> owned = owned(client);
        fixTargets(admin, owned);
        final Map<TopicPartition, Long> committed = committed(admin, owned);
        long lag = 0;
        for (final TopicPartition tp : owned) {
            lag += Math.max(0, targets.get(tp) - committed.get(tp));
        }
        behind = lag;
        if (lag == 0) {
            seed(owned); // before opening, so that no owned partition is ever taken as not caught up
            open = true;
            LOG.info("retriever: caught up with {} (partitions {}) {} ms after start", topic,
                owned.stream().map(TopicPartition::partition).sorted().toList(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - createdAt));
        }
    }

    /**
     * After the latch opened: a partition of the input topic now in an active task that was not at the last check has
     * moved here; it is pending until the group's committed offset reaches the partition's last stable offset as of
     * its arrival (or the maximum wait passed); a partition that left is forgotten, so that it is gated again if it
     * comes back.
     */
    private void checkMoved(final Admin admin, final KafkaStreams client)
        throws ExecutionException, InterruptedException, TimeoutException {
        final Set<TopicPartition> owned = owned(client);
        if (!seeded) {
            seed(owned); // opened by the wait bound: what is owned now counts as caught up
            return;
        }
        targets.keySet().retainAll(owned);
        pending.keySet().removeIf(p -> !owned.contains(new TopicPartition(topic, p)));
        caughtUpPartitions.removeIf(p -> {
            final boolean left = !owned.contains(new TopicPartition(topic, p));
            if (left) {
                freshness.forget(p);
            }
            return left;
        });
        final Set<TopicPartition> arrived = fixTargets(admin, owned);
        if (!arrived.isEmpty()) {
            final long now = System.nanoTime();
            arrived.forEach(tp -> pending.put(tp.partition(), now));
            LOG.info("retriever: partitions {} of {} moved here; answering 503 for their unknown users until "
                + "processed up to {}", arrived.stream().map(TopicPartition::partition).sorted().toList(), topic,
                arrived.stream().collect(Collectors.toMap(TopicPartition::partition, targets::get)));
        }
        sampleFreshness(admin, owned);
        if (pending.isEmpty()) {
            return;
        }
        final Set<TopicPartition> waiting = pending.keySet().stream().map(p -> new TopicPartition(topic, p))
            .collect(Collectors.toSet());
        final Map<TopicPartition, Long> committed = committed(admin, waiting);
        for (final TopicPartition tp : waiting) {
            final long since = pending.getOrDefault(tp.partition(), System.nanoTime());
            if (committed.get(tp) >= targets.get(tp)) {
                pending.remove(tp.partition());
                caughtUpPartitions.add(tp.partition());
                LOG.info("retriever: partition {} of {} caught up {} ms after it moved here", tp.partition(), topic,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since));
            } else if (System.nanoTime() - since > maxWaitNanos) {
                pending.remove(tp.partition());
                caughtUpPartitions.add(tp.partition());
                LOG.warn("retriever: partition {} of {} not caught up {} ms after it moved here; answering 404 for "
                    + "its unknown users from now on", tp.partition(), topic, TimeUnit.NANOSECONDS.toMillis(maxWaitNanos));
            }
        }
    }

    /** Samples the end and then the committed offset of every owned caught-up partition ({@link PartitionFreshness}). */
    private void sampleFreshness(final Admin admin, final Set<TopicPartition> owned)
        throws ExecutionException, InterruptedException, TimeoutException {
        final Map<TopicPartition, OffsetSpec> current = owned.stream()
            .filter(tp -> caughtUpPartitions.contains(tp.partition()))
            .collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
        if (current.isEmpty()) {
            return;
        }
        final long askedAt = System.nanoTime();
        admin.listOffsets(current, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(10, TimeUnit.SECONDS)
            .forEach((tp, info) -> freshness.sampled(tp.partition(), askedAt, info.offset()));
        final long now = System.nanoTime();
        committed(admin, current.keySet()).forEach((tp, offset) -> freshness.committed(tp.partition(), offset, now));
    }

    /**
     * Fixes the target of each partition not seen before: its read_committed end offset (last stable offset) now.
     *
     * @return the partitions whose target was fixed by this call
     */
    private Set<TopicPartition> fixTargets(final Admin admin, final Set<TopicPartition> owned)
        throws ExecutionException, InterruptedException, TimeoutException {
        final Map<TopicPartition, OffsetSpec> unseen = owned.stream().filter(tp -> !targets.containsKey(tp))
            .collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
        if (!unseen.isEmpty()) {
            admin.listOffsets(unseen, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
                .get(10, TimeUnit.SECONDS).forEach((tp, info) -> targets.put(tp, info.offset()));
        }
        return unseen.keySet();
    }

    /** @return the group's committed offset of each partition (0 where it has none yet) */
    private Map<TopicPartition, Long> committed(final Admin admin, final Set<TopicPartition> partitions)
        throws ExecutionException, InterruptedException, TimeoutException {
        final Map<TopicPartition, OffsetAndMetadata> committed = partitions.isEmpty() ? Map.of()
            : admin.listConsumerGroupOffsets(Map.of(groupId, new ListConsumerGroupOffsetsSpec().topicPartitions(partitions)))
                .partitionsToOffsetAndMetadata(groupId).get(10, TimeUnit.SECONDS);
        final Map<TopicPartition, Long> out = new HashMap<>();
        partitions.forEach(tp -> {
            final OffsetAndMetadata done = committed.get(tp);
            out.put(tp, done == null ? 0L : done.offset());
        });
        return out;
    }

    /** The partitions owned when the latch opened are caught up; later arrivals are gated by {@link #checkMoved}. */
    private void seed(final Set<TopicPartition> owned) {
        targets.clear();
        owned.forEach(tp -> {
            targets.put(tp, -1L);
            caughtUpPartitions.add(tp.partition());
        });
        seeded = true;
    }

    private Set<TopicPartition> owned(final KafkaStreams client) {
        return client.metadataForLocalThreads().stream()
            .flatMap(thread -> thread.activeTasks().stream())
            .flatMap(task -> task.topicPartitions().stream())
            .filter(tp -> tp.topic().equals(topic))
            .collect(Collectors.toSet());
    }

    private void pause(final long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    /** Stops the checker (waits up to 5 s); the latch keeps its state. */
    @Override
    public void close() {
        closed = true;
        if (checker != null) {
            checker.interrupt();
            KafkaConnection.join(checker);
        }
    }
}
