package dev.engram.ops;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import dev.engram.stack.EmbeddedBroker;

/**
 * One broker of the scale-out chaos run's cluster ({@link ChaosCluster}), run as a process of its own so that the
 * run can SIGKILL it: a combined broker+controller KRaft node ({@link EmbeddedBroker#start(Path, String,
 * EmbeddedBroker.Node, List, Map)}) with replication factor 3 and {@code min.insync.replicas} 2 for every topic,
 * the offsets topic and the transaction log (with fewer than three nodes, as many as there are, and 1).
 *
 * <p>Arguments: {@code <run dir> <cluster id> <node id> <voters>}, voters as {@code id:brokerPort:controllerPort}
 * separated by commas (every node of the cluster, this one included). Runs until the process ends.
 */
public final class ChaosBroker {

    private ChaosBroker() {
    }

    /**
     * @param nodes every node of the cluster
     * @return the replication settings of a cluster of that many nodes
     */
    static Map<String, String> replication(final int nodes) {
        final String factor = String.valueOf(Math.min(3, nodes));
        final String minIsr = String.valueOf(nodes >= 3 ? 2 : 1);
        return Map.of("default.replication.factor", factor, "min.insync.replicas", minIsr,
            "offsets.topic.replication.factor", factor, "transaction.state.log.replication.factor", factor,
            "transaction.state.log.min.isr", minIsr, "share.coordinator.state.topic.replication.factor", factor,
            "share.coordinator.state.topic.min.isr", minIsr,
            // a partition never gets a leader that lacks acknowledged records (Kafka's default, said here)
            "unclean.leader.election.enable", "false");
    }

    /**
     * @param voters the nodes, {@code id:brokerPort:controllerPort,…}
     * @return them parsed
     * @throws IllegalArgumentException if an entry is not three numbers
     */
    static List<EmbeddedBroker.Node> parse(final String voters) {
        final List<EmbeddedBroker.Node> nodes = new ArrayList<>();
        for (final String entry : voters.split(",")) {
            final String[] parts = entry.split(":");
            if (parts.length != 3) {
                throw new IllegalArgumentException("A voter is id:brokerPort:controllerPort, not " + entry);
            }
            nodes.add(new EmbeddedBroker.Node(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]),
                Integer.parseInt(parts[2])));
        }
        return nodes;
    }

    /**
     * @param nodes the nodes
     * @return the {@code voters} argument naming them
     */
    static String format(final List<EmbeddedBroker.Node> nodes) {
        return String.join(",", nodes.stream()
            .map(n -> n.nodeId() + ":" + n.brokerPort() + ":" + n.controllerPort()).toList());
    }

    /**
     * Starts the node and blocks.
     *
     * @param args run dir, cluster id, node id, voters
     * @throws InterruptedException never in practice: the process is killed or stopped
     */
    public static void main(final String[] args) throws InterruptedException {
        if (args.length != 4) {
            System.err.println("usage: ChaosBroker <run dir> <cluster id> <node id> <id:brokerPort:controllerPort,...>");
            System.exit(2);
        }
        final List<EmbeddedBroker.Node> voters = parse(args[3]);
        final int nodeId = Integer.parseInt(args[2]);
        final EmbeddedBroker.Node self = voters.stream().filter(n -> n.nodeId() == nodeId).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("Node " + nodeId + " is not among the voters " + args[3]));
        final EmbeddedBroker broker = EmbeddedBroker.start(Path.of(args[0]), args[1], self, voters,
            replication(voters.size()));
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.close();
            stopped.countDown();
        }, "chaos-broker-stop"));
        System.out.println("chaos broker " + nodeId + " ready at " + broker.bootstrapServers());
        stopped.await();
    }
}
