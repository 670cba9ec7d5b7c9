package dev.engram.stack;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import dev.engram.config.EngramConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import dev.engram.topics.Topic;

/**
 * Creates Engram's topics ({@link Topics#all()}) up front.
 *
 * <p>Every topic gets the same partition count, so the per-user topics (all keyed by
 * {@code UserKey.wire()}) are co-partitioned: a user's candidates, commands, access events and
 * updates land in the same partition number and are processed by one task. The broker's default
 * replication factor is used. Every topic has {@code retention.ms=-1} and {@code retention.bytes=-1}
 * (record timestamps are event time, so time retention would delete old conversations on arrival) and
 * {@code max.message.bytes} from {@code input.max.record.bytes}, and {@code message.timestamp.after.max.ms} and
 * {@code message.timestamp.before.max.ms} at their maximum ({@link #TIMESTAMP_LIMITS}): record timestamps are
 * event time, and a topic takes any of them, so old data replays whatever its date and whatever a producer wrote;
 * what the pipeline accepts is bounded by {@code input.max.future.ms} (1 h after the receiver's clock) at its edges
 * (HTTP, MCP, ingest, the extractor's dead letters) and in the consolidator's lifecycle time. Kafka 4's default
 * refuses a timestamp more than one hour ahead of the broker's clock, which would fail a replay or a task on a record
 * written before.
 * {@code memory-updated} keeps
 * {@code cleanup.policy=delete} for now; it
 * could become compacted once every consumer tolerates seeing only the latest event per key;
 * {@code user-profiles} is compacted.
 */
public final class TopicSetup {

    /** How long {@link #alignTimestampLimits} waits for the brokers to apply the limits it altered. */
    static final java.time.Duration APPLIED_WAIT = java.time.Duration.ofSeconds(30);

    /**
     * The topic configs that let a topic take any record timestamp: no limit on how far it may be ahead of or behind
     * the broker's clock (the pipeline bounds event times itself, {@code input.max.future.ms}).
     */
    public static final java.util.Map<String, String> TIMESTAMP_LIMITS = java.util.Map.of(
        TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, String.valueOf(Long.MAX_VALUE),
        TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, String.valueOf(Long.MAX_VALUE));

    private TopicSetup() {
    }

    /**
     * Sets {@link #TIMESTAMP_LIMITS} on the Engram topics that exist with other values (topics created before
     * Engram set them, or by hand), so that they take every event time ingest accepts.
     *
     * @param admin an admin client of the target cluster
     * @return the topics whose configs were changed
     * @throws IllegalStateException if the cluster refuses to describe or alter them
     */
    public static List<String> alignTimestampLimits(final Admin admin) {
        final List<String> names = new ArrayList<>(Topic.allNames());
        names.add(Topic.DATA_KEYS.name());
        try {
            final Set<String> existing = admin.listTopics().names().get();
            final List<org.apache.kafka.common.config.ConfigResource> resources = names.stream().filter(existing::contains)
                .map(n -> new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.TOPIC, n))
                .toList();
            final java.util.Map<org.apache.kafka.common.config.ConfigResource, java.util.Collection<org.apache.kafka.clients.admin.AlterConfigOp>> changes =
                new java.util.LinkedHashMap<>();
            admin.describeConfigs(resources).all().get().forEach((resource, config) -> {
                final List<org.apache.kafka.clients.admin.AlterConfigOp> ops = new ArrayList<>();
                TIMESTAMP_LIMITS.forEach((key, value) -> {
                    final org.apache.kafka.clients.admin.ConfigEntry entry = config.get(key);
                    if (entry == null || !value.equals(entry.value())) {
                        ops.add(new org.apache.kafka.clients.admin.AlterConfigOp(
                            new org.apache.kafka.clients.admin.ConfigEntry(key, value), org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET));
                    }
                });
                if (!ops.isEmpty()) {
                    changes.put(resource, ops);
                }
            });
            if (!changes.isEmpty()) {
                admin.incrementalAlterConfigs(changes).all().get();
                awaitApplied(admin, changes.keySet());
            }
            return changes.keySet().stream().map(org.apache.kafka.common.config.ConfigResource::name).sorted().toList();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while aligning the topics' timestamp limits", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Cannot align the topics' timestamp limits: " + e.getCause(), e.getCause());
        }
    }

    /**
     * Waits until the cluster describes {@link #TIMESTAMP_LIMITS} on the topics: the alteration's future completes once
     * the controller has the change, and a broker applies it from its metadata a moment later, so a record produced at
     * once could still meet the old limit (seen under load in a test that produced right after). Bounded by
     * {@link #APPLIED_WAIT}; past it the alteration stands and is not waited for further.
     */
    private static void awaitApplied(final Admin admin,
                                     final Set<org.apache.kafka.common.config.ConfigResource> resources)
        throws InterruptedException, ExecutionException {
        final long deadline = System.nanoTime() + APPLIED_WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            final boolean applied = admin.describeConfigs(resources).all().get().values().stream()
                .allMatch(config -> TIMESTAMP_LIMITS.entrySet().stream().allMatch(limit -> {
                    final org.apache.kafka.clients.admin.ConfigEntry entry = config.get(limit.getKey());
                    return entry != null && limit.getValue().equals(entry.value());
                }));
            if (applied) {
                return;
            }
            Thread.sleep(50);
        }
    }

    /**
     * Creates every topic of {@link Topics#all()} that does not exist yet.
     *
     * @param admin an admin client of the target cluster
     * @param partitions partitions per topic, ≥ 1
     * @return the topics that were created (existing ones are left alone)
     * @throws IllegalStateException if the cluster refuses a topic for another reason than "exists"
     */
    public static List<String> createAll(final Admin admin, final int partitions) {
        return createAll(admin, partitions, EngramConfig.defaults().maxMessageBytes());
    }

    /**
     * Creates every topic of {@link Topics#all()} that does not exist yet, each with
     * {@code max.message.bytes} = {@code maxMessageBytes}, so that the broker accepts every record that
     * ingest accepts (and its dead letter, which carries the reason in headers).
     *
     * @param admin an admin client of the target cluster
     * @param partitions partitions per topic, ≥ 1
     * @param maxMessageBytes the topics' {@code max.message.bytes} ({@link EngramConfig#maxMessageBytes()})
     * @return the topics that were created (existing ones are left alone)
     * @throws IllegalStateException if the cluster refuses a topic for another reason than "exists"
     */
    public static List<String> createAll(final Admin admin, final int partitions, final int maxMessageBytes) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1: " + partitions);
        }
        final Set<String> existing;
        try {
            existing = admin.listTopics().names().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while listing topics", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Cannot list topics", e.getCause());
        }
        final List<NewTopic> missing = new ArrayList<>();
        final List<String> names = new ArrayList<>(Topic.allNames());
        names.add(Topic.DATA_KEYS.name());
        for (final String name : names) {
            if (!existing.contains(name)) {
                final NewTopic topic = new NewTopic(name, Optional.of(partitions), Optional.empty());
                final java.util.Map<String, String> configs = new java.util.HashMap<>();
                configs.put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, String.valueOf(maxMessageBytes));
                // Record timestamps are event time: with the broker's default 7-day time retention a
                // replayed or back-filled record older than that is deleted as soon as it is written —
                // lost input, and a consumer positioned at a log start that is already the end (the
                // "restarted app is RUNNING but fetches nothing" of the kill IT). These topics are the
                // replayable log: no time or size retention.
                configs.put(TopicConfig.RETENTION_MS_CONFIG, "-1");
                configs.put(TopicConfig.RETENTION_BYTES_CONFIG, "-1");
                configs.putAll(TIMESTAMP_LIMITS);
                if (Topic.TENANT_SETTINGS.name().equals(name)) {
                    // one record per settings version (versions have distinct keys): compaction only drops a
                    // version rewritten under the same key, never the history a replay needs
                    configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
                }
                if (Topic.USER_PROFILES.name().equals(name)) {
                    // one latest profile per user; an erasure's tombstone removes it for good
                    configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
                }
                if (Topic.DATA_KEYS.name().equals(name)) {
                    // Compacted: the latest wrapped key per user. Small segments and a low dirty ratio let
                    // the cleaner drop an erased user's wrapped key soon after its tombstone (hours, not weeks);
                    // the tombstone itself is kept one day so that every reader sees it.
                    configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
                    configs.put(TopicConfig.SEGMENT_MS_CONFIG, "3600000");
                    configs.put(TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, "0.01");
                    configs.put(TopicConfig.DELETE_RETENTION_MS_CONFIG, "86400000");
                    configs.put(TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG, "60000");
                }
                topic.configs(configs);
                missing.add(topic);
            }
        }
        final List<String> created = new ArrayList<>();
        admin.createTopics(missing).values().forEach((name, future) -> {
            try {
                future.get();
                created.add(name);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while creating " + name, e);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("Cannot create topic " + name, e.getCause());
                }
            }
        });
        awaitLeaders(admin, created);
        return List.copyOf(created);
    }

    /**
     * Waits until every partition of the new topics has a leader, up to 30 s. A producer that sends
     * while a new partition has none yet gets NOT_LEADER_OR_FOLLOWER, and an idempotent producer whose
     * first batch failed that way can then be refused with OUT_OF_ORDER_SEQUENCE_NUMBER on every retry
     * (seen as an ingest that never finished in the demo IT).
     *
     * @throws IllegalStateException when a partition has no leader after 30 s
     */
    private static void awaitLeaders(final Admin admin, final List<String> topics) {
        if (topics.isEmpty()) {
            return;
        }
        final long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                final boolean ready = admin.describeTopics(topics).allTopicNames().get().values().stream()
                    .allMatch(d -> d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
                if (ready) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for partition leaders", e);
            } catch (ExecutionException e) {
                // a topic not yet in the broker's metadata: not ready, ask again
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("No leader for every partition of " + topics + " after 30 s");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for partition leaders", e);
            }
        }
    }
}
