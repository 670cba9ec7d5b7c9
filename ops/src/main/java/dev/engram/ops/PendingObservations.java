package dev.engram.ops;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import dev.engram.stack.TopicScan;
import dev.engram.topology.StoreNames;
import org.apache.kafka.common.KafkaException;
import dev.engram.topics.AppIds;

/**
 * The users whose observations the consolidator has still to regroup, read from the changelog of its
 * {@code observation-pending-store} (user key → stream time; a tombstone once regrouped): the consolidator's
 * observations are the function of the statements that a replay also ends with only once this is empty, a few
 * seconds ({@code lifecycle.observe.interval.ms}) after its input stops. {@link Rebuild} waits for it before reading
 * what it rebuilt; a consolidator stopped with users pending left their observations behind its statements.
 */
public final class PendingObservations {

    /** The changelog of the consolidator's pending-observations store. */
    public static final String CHANGELOG = AppIds.CONSOLIDATOR + "-" + StoreNames.OBSERVATION_PENDING + "-changelog";

    private PendingObservations() {
    }

    /**
     * @param clientProperties consumer properties with at least {@code bootstrap.servers}
     * @param timeout how long reading may take at most
     * @return the users pending now (committed records only); 0 when the changelog does not exist yet
     */
    public static int count(final Map<String, Object> clientProperties, final Duration timeout) {
        final Set<String> pending = new HashSet<>();
        try {
            TopicScan.toEnd(clientProperties, CHANGELOG, null, timeout, r -> {
                final String user = new String(r.key(), StandardCharsets.UTF_8);
                if (r.value() == null) {
                    pending.remove(user);
                } else {
                    pending.add(user);
                }
            });
        } catch (KafkaException e) {
            return 0; // no such topic: the consolidator never marked a user
        }
        return pending.size();
    }

    /**
     * Waits until no user is pending.
     *
     * @param clientProperties consumer properties with at least {@code bootstrap.servers}
     * @param timeout how long to wait at most
     * @return whether none is pending (false: the timeout passed first)
     */
    public static boolean awaitNone(final Map<String, Object> clientProperties, final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (count(clientProperties, timeout) > 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(500); // the consolidator regroups on its wall clock: nothing to block on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
