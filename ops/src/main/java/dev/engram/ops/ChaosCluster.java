package dev.engram.ops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.engram.stack.EmbeddedBroker;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * The scale-out chaos run's Kafka cluster: {@code n} combined broker+controller KRaft nodes, each a child JVM
 * ({@link ChaosBroker}) on fixed localhost ports and a log directory of its own ({@code <work>/broker-<id>}), so
 * that one can be SIGKILLed and restarted on its log directory and ports while the others serve. Replication factor
 * 3 and {@code min.insync.replicas} 2 for every topic ({@link ChaosBroker#replication}).
 */
final class ChaosCluster {

    /** Bound of the first start (a quorum of JVMs on a loaded machine) and of a restart. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(240);

    private final Path work;
    private final int heapMb;
    private final String clusterId = org.apache.kafka.common.Uuid.randomUuid().toString();
    private final List<EmbeddedBroker.Node> nodes = new ArrayList<>();
    private final Process[] processes;
    private final int[] starts;
    private ChaosChildren children;

    /**
     * Chooses the nodes' ports; nothing runs yet.
     *
     * @param work the run's directory
     * @param brokers how many nodes, ≥ 1
     * @param heapMb -Xmx of each broker JVM
     */
    ChaosCluster(final Path work, final int brokers, final int heapMb) {
        this.work = work;
        this.heapMb = heapMb;
        final java.util.Set<Integer> taken = new java.util.HashSet<>();
        for (int id = 1; id <= brokers; id++) {
            nodes.add(new EmbeddedBroker.Node(id, freePort(taken), freePort(taken)));
        }
        this.processes = new Process[brokers];
        this.starts = new int[brokers];
    }

    /** @return every node's client address, {@code localhost:p1,localhost:p2,…} */
    String bootstrapServers() {
        return String.join(",", nodes.stream().map(n -> "localhost:" + n.brokerPort()).toList());
    }

    /** @return every port the nodes listen on (client and controller) */
    java.util.Set<Integer> ports() {
        final java.util.Set<Integer> ports = new java.util.HashSet<>();
        nodes.forEach(n -> {
            ports.add(n.brokerPort());
            ports.add(n.controllerPort());
        });
        return ports;
    }

    /** @return how many nodes */
    int size() {
        return nodes.size();
    }

    /**
     * Starts every node and waits until the cluster has them all.
     *
     * @param processStarter starts the child JVMs (and destroys them on close)
     * @return seconds until every node was registered
     * @throws IllegalStateException if they are not all up within {@link #START_TIMEOUT}
     */
    double start(final ChaosChildren processStarter) {
        this.children = processStarter;
        final long start = System.nanoTime();
        for (int i = 0; i < nodes.size(); i++) {
            launch(i);
        }
        if (!awaitNodes(nodes.size(), START_TIMEOUT)) {
            throw new IllegalStateException("The " + nodes.size() + " brokers did not form a cluster within "
                + START_TIMEOUT + " (logs: " + work + "/broker-*.log)");
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private void launch(final int index) {
        final EmbeddedBroker.Node node = nodes.get(index);
        processes[index] = children.startJava(ChaosBroker.class.getName(), List.of(
                work.resolve("broker-" + node.nodeId()).toString(), clusterId, String.valueOf(node.nodeId()),
                ChaosBroker.format(nodes)),
            "broker-" + node.nodeId() + "-" + starts[index]++, heapMb);
    }

    /**
     * SIGKILLs one node (no shutdown, no flush: what a crashed machine leaves behind) and waits for the process to end.
     *
     * @param index the node, 0 …
     */
    void kill(final int index) {
        final Process process = processes[index];
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    /**
     * Restarts a killed node on its log directory and ports.
     *
     * @param index the node
     */
    void restart(final int index) {
        launch(index);
    }

    /** @return the node's id */
    int nodeId(final int index) {
        return nodes.get(index).nodeId();
    }

    /**
     * Waits until the cluster has {@code count} nodes registered, bounded by {@code timeout}.
     *
     * @return whether it did
     */
    boolean awaitNodes(final int count, final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin admin = admin()) {
            while (System.nanoTime() < deadline) {
                try {
                    if (admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() >= count) {
                        return true;
                    }
                } catch (ExecutionException | TimeoutException notYet) {
                    // no node answers yet, or the quorum has no leader yet
                }
                Chaos.sleep(0.5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
        return false;
    }

    /**
     * Waits until every partition of every topic (internal ones included) has its full replica set in sync, i.e. a
     * restarted node has caught up, bounded by {@code timeout}.
     *
     * @return the seconds waited, or -1 when some partition was still under-replicated at the deadline
     */
    double awaitInSync(final Duration timeout) {
        final long start = System.nanoTime();
        final long deadline = start + timeout.toNanos();
        try (Admin admin = admin()) {
            while (System.nanoTime() < deadline) {
                try {
                    if (underReplicated(admin) == 0) {
                        return (System.nanoTime() - start) / 1e9;
                    }
                } catch (ExecutionException | TimeoutException notYet) {
                    // a leader is moving: ask again
                }
                Chaos.sleep(0.5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
        return -1;
    }

    /** @return partitions whose in-sync replicas are fewer than their replicas */
    private static long underReplicated(final Admin admin)
        throws ExecutionException, InterruptedException, TimeoutException {
        final java.util.Set<String> names = admin.listTopics(new ListTopicsOptions().listInternal(true)).names()
            .get(10, TimeUnit.SECONDS);
        final Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS);
        long under = 0;
        for (final TopicDescription topic : topics.values()) {
            for (final TopicPartitionInfo partition : topic.partitions()) {
                if (partition.isr().size() < partition.replicas().size()) {
                    under++;
                }
            }
        }
        return under;
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000));
    }

    private static int freePort(final java.util.Set<Integer> taken) {
        while (true) {
            try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
                if (taken.add(socket.getLocalPort())) {
                    return socket.getLocalPort();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("No free port", e);
            }
        }
    }
}
