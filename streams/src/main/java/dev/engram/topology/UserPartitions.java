package dev.engram.topology;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.engram.topics.Topic;

/**
 * Which partition a user's records belong on: the Java client's default partitioner of the user key
 * ({@code murmur2(UTF-8 bytes of tenant/user) mod partitions}), the one Engram's own producers and Kafka Streams' sinks
 * use, so the partition where the consolidator wrote the user's profile to {@code user-profiles}.
 *
 * <p>A chat platform's producer may partition otherwise: librdkafka's clients (Python, Go, .NET, kcat) default to
 * {@code consistent_random} (CRC32), so the same key lands on another partition. The extractor compares each
 * conversation's partition with this one and re-routes a misplaced record ({@link ExtractionTopology}).
 *
 * <p>The partition count is that of {@code conversations-completed}, asked of the cluster once (an admin client with
 * the settings Kafka Streams gives its own, {@link StreamsConfig#getAdminConfigs}) when the first task starts, and kept: a topic's partitions
 * are never re-counted while the app runs (adding partitions moves users and needs a restart anyway). Thread-safe.
 */
public final class UserPartitions {

    private static final Logger LOG = LoggerFactory.getLogger(UserPartitions.class);
    private static final long LOOKUP_TIMEOUT_MS = 30_000;

    private final AtomicInteger count;

    private UserPartitions(final int count) {
        this.count = new AtomicInteger(count);
    }

    /** @return partitions counted on the cluster the app runs against, at the first task's start */
    public static UserPartitions ofCluster() {
        return new UserPartitions(0);
    }

    /**
     * @param count the partition count, ≥ 1 (a {@code TopologyTestDriver} has 1)
     * @return that count, never asked of a cluster
     */
    public static UserPartitions fixed(final int count) {
        if (count < 1) {
            throw new IllegalArgumentException("partitions must be at least 1: " + count);
        }
        return new UserPartitions(count);
    }

    /**
     * @param userKey a user key, {@code tenant/user} ({@link dev.engram.core.UserKey#wire()})
     * @param partitions the topic's partition count, ≥ 1
     * @return the partition the Java client's default partitioner gives that key
     */
    public static int partition(final String userKey, final int partitions) {
        return Utils.toPositive(Utils.murmur2(userKey.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    /**
     * @param appConfigs the Streams properties of the app ({@code ProcessorContext#appConfigs()}): its bootstrap
     *     servers and security settings
     * @return the partition count of {@code conversations-completed}
     * @throws IllegalStateException if the cluster does not describe the topic within 30 s (the task does not start)
     */
    public int count(final Map<String, Object> appConfigs) {
        final int known = count.get();
        if (known > 0) {
            return known;
        }
        synchronized (this) {
            if (count.get() == 0) {
                count.set(lookup(appConfigs));
            }
            return count.get();
        }
    }

    private static int lookup(final Map<String, Object> appConfigs) {
        // the admin settings Kafka Streams gives its own admin client (bootstrap, security of any kind, admin.* overrides)
        final Map<String, Object> connection = new StreamsConfig(appConfigs).getAdminConfigs("engram-extractor-partitions");
        try (Admin admin = Admin.create(connection)) {
            final Map<String, TopicDescription> described = admin.describeTopics(
                    List.of(Topic.CONVERSATIONS_COMPLETED.name(), Topic.USER_PROFILES.name())).allTopicNames()
                .get(LOOKUP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            final int conversations = described.get(Topic.CONVERSATIONS_COMPLETED.name()).partitions().size();
            final int profiles = described.get(Topic.USER_PROFILES.name()).partitions().size();
            if (conversations != profiles) {
                LOG.error("{} has {} partitions and {} has {}: the extractor's profile join needs the same count "
                    + "(re-create the topics with bin/engram topics)", Topic.CONVERSATIONS_COMPLETED.name(), conversations,
                    Topic.USER_PROFILES.name(), profiles);
            }
            return conversations;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while counting the partitions of " + Topic.CONVERSATIONS_COMPLETED.name(), e);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot count the partitions of " + Topic.CONVERSATIONS_COMPLETED.name()
                + " within " + LOOKUP_TIMEOUT_MS + " ms", e);
        }
    }
}
