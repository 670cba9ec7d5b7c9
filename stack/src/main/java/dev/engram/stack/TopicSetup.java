package dev.engram.stack;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import dev.engram.topology.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates Engram's topics ({@link Topics#all()}) up front.
 *
 * <p>Every topic gets the same partition count, so the per-user topics (all keyed by
 * {@code UserKey.wire()}) are co-partitioned: a user's candidates, commands, access events and
 * updates land in the same partition number and are processed by one task. The broker's default
 * replication factor is used. {@code memory-updated} keeps {@code cleanup.policy=delete} for now; it
 * could become compacted once every consumer tolerates seeing only the latest event per key;
 * {@code user-profiles} is compacted.
 */
public final class TopicSetup {

    private TopicSetup() {
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
        for (final String name : Topics.all()) {
            if (!existing.contains(name)) {
                final NewTopic topic = new NewTopic(name, Optional.of(partitions), Optional.empty());
                if (Topics.USER_PROFILES.equals(name)) {
                    // one latest profile per user; an erasure's tombstone removes it for good
                    topic.configs(java.util.Map.of("cleanup.policy", "compact"));
                }
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
        return List.copyOf(created);
    }
}
