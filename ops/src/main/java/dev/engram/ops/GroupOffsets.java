package dev.engram.ops;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import dev.engram.kafka.KafkaOperationFailed;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * Consumer-group offsets of a Streams app as an operator reads them with an admin client: committed
 * offsets, last stable offsets (read_committed ends), lag, and whether the group has live members.
 */
final class GroupOffsets {

    private final Admin admin;

    GroupOffsets(final Admin admin) {
        this.admin = admin;
    }

    /** @return committed offsets of the group (empty if it never committed) */
    Map<TopicPartition, Long> committed(final String groupId) {
        final Map<TopicPartition, Long> out = new HashMap<>();
        get(admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata(), "describe", "group " + groupId).forEach((tp, o) -> {
            if (o != null) {
                out.put(tp, ((OffsetAndMetadata) o).offset());
            }
        });
        return out;
    }

    /** @return the group's input topics: topics it committed offsets for, minus its own internal topics */
    Set<String> inputTopics(final String groupId) {
        return committed(groupId).keySet().stream().map(TopicPartition::topic)
            .filter(t -> !t.startsWith(groupId + "-")).collect(Collectors.toCollection(java.util.TreeSet::new));
    }

    /** @return last stable offset of every partition of the topics */
    Map<TopicPartition, Long> ends(final Set<String> topics) {
        final Map<TopicPartition, OffsetSpec> wanted = new HashMap<>();
        get(admin.describeTopics(topics).allTopicNames(), "describe", "topics " + topics).forEach((name, description) ->
            description.partitions().forEach(p -> wanted.put(new TopicPartition(name, p.partition()), OffsetSpec.latest())));
        final Map<TopicPartition, Long> out = new HashMap<>();
        get(admin.listOffsets(wanted, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all(), "describe",
            "the end offsets of " + topics)
            .forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** @return records of the topics not yet committed as processed by the group */
    long lag(final String groupId, final Set<String> topics) {
        final Map<TopicPartition, Long> committed = committed(groupId);
        long lag = 0;
        for (final Map.Entry<TopicPartition, Long> end : ends(topics).entrySet()) {
            lag += Math.max(0, end.getValue() - committed.getOrDefault(end.getKey(), 0L));
        }
        return lag;
    }

    /** @return whether the group has members (an instance of the app is running) */
    boolean hasMembers(final String groupId) {
        try {
            return !admin.describeConsumerGroups(Set.of(groupId)).describedGroups().get(groupId)
                .get(10, TimeUnit.SECONDS).members().isEmpty();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return false;
            }
            throw new KafkaOperationFailed("describe", "group " + groupId, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("Cannot describe group " + groupId + " within 10 s", e);
        }
    }

    /**
     * @param groupId the app's group
     * @param instanceId the {@code group.instance.id} of one instance (Streams appends the thread's index)
     * @return the partitions assigned to that instance's members now (empty while it has not joined)
     */
    Set<TopicPartition> assigned(final String groupId, final String instanceId) {
        try {
            return admin.describeConsumerGroups(Set.of(groupId)).describedGroups().get(groupId).get(10, TimeUnit.SECONDS)
                .members().stream().filter(m -> m.groupInstanceId().map(id -> id.startsWith(instanceId)).orElse(false))
                .flatMap(m -> m.assignment().topicPartitions().stream()).collect(Collectors.toSet());
        } catch (ExecutionException | TimeoutException e) {
            return Set.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    /**
     * @param future an admin call's result
     * @param operation what the call does ({@code describe}, {@code delete}, …), for the error
     * @param resource on what ({@code topic X}), for the error
     * @return its value, within 30 s
     * @throws KafkaOperationFailed naming the operation (a denied delete is not a read error)
     */
    static <T> T get(final KafkaFuture<T> future, final String operation, final String resource) {
        try {
            return future.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while asking the cluster", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaOperationFailed(operation, resource, e);
        }
    }
}
