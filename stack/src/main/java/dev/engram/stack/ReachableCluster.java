package dev.engram.stack;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.KafkaException;

/**
 * The first step of a command line tool that talks to a cluster: an admin client, returned only once the cluster has
 * answered a {@code describeCluster} within a bound. An unreachable or unresolvable address fails in that time with
 * one message naming the address, the bound and what did not happen, instead of after the clients' own defaults
 * (a minute of silence for the admin client, about two for a producer).
 */
public final class ReachableCluster {

    private ReachableCluster() {
    }

    /**
     * @param connection client settings ({@code bootstrap.servers}, security); the admin client's request and API
     *     timeouts are set to the bound
     * @param timeoutSeconds the bound, ≥ 1
     * @param timeoutName how the user sets the bound, e.g. {@code --connect-timeout}
     * @param consequence what did not happen, e.g. {@code nothing was published}
     * @return an admin client of the cluster, which has answered (the caller closes it); its calls time out after
     *     the bound too
     * @throws IllegalStateException naming {@code bootstrap.servers}, the bound and the consequence when the cluster
     *     does not answer in time
     * @throws IllegalArgumentException if the bound is below 1 s
     * @throws InterruptedException if interrupted while waiting
     */
    public static Admin admin(final Map<String, Object> connection, final int timeoutSeconds, final String timeoutName,
                              final String consequence) throws InterruptedException {
        if (timeoutSeconds < 1) {
            throw new IllegalArgumentException(timeoutName + " must be at least 1 second: " + timeoutSeconds);
        }
        final int timeoutMs = (int) Math.min(Integer.MAX_VALUE, timeoutSeconds * 1000L);
        final String failure = "cannot reach the Kafka cluster at " + connection.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG)
            + " within " + timeoutSeconds + " s (" + timeoutName + "); " + consequence;
        final Map<String, Object> props = new HashMap<>(connection);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
        final Admin admin;
        try {
            admin = Admin.create(props);
        } catch (KafkaException e) {
            throw new IllegalStateException(failure + ": " + e.getMessage(), e);
        }
        try {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs(timeoutMs)).clusterId()
                .get(timeoutMs + 1000L, TimeUnit.MILLISECONDS);
            return admin;
        } catch (ExecutionException | TimeoutException e) {
            admin.close(Duration.ZERO);
            final Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalStateException(failure + " (" + cause.getClass().getSimpleName()
                + (cause.getMessage() == null ? "" : ": " + cause.getMessage()) + ")", cause);
        } catch (InterruptedException e) {
            admin.close(Duration.ZERO);
            throw e;
        }
    }
}
