package dev.engram.stack;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A plain single-node Kafka broker in KRaft mode (one process role set {@code broker,controller}),
 * run in-process from the Maven Central artifacts ({@code kafka_2.13} 4.3.1): the demo's broker.
 *
 * <p>Start: the log directory is formatted with Kafka's {@link Formatter} (what {@code kafka-storage.sh
 * format} does: a fresh random cluster id, node id 1, the static voter {@code 1@localhost:<controller
 * port>}), then {@link KafkaRaftServer} runs controller and broker; {@link #start(Path)} returns once an
 * admin client sees the broker, or fails after 60 s.
 *
 * <p>Settings (docs/ARCHITECTURE.md, "Facts about the dependency set"): replication factor and min ISR 1 for the offsets and
 * transaction-state topics (without them an {@code exactly_once_v2} app hangs without a word),
 * {@code log.cleaner.dedupe.buffer.size=2097152} (the broker heap drops from ~170 MB to ~43 MB),
 * {@code group.initial.rebalance.delay.ms} {@value #INITIAL_REBALANCE_DELAY_MS} ms (below), no topic auto-creation, no time-based retention (record
 * timestamps are event time, possibly years old), and few partitions for the internal topics so that a
 * laptop starts it in about two seconds. Ports are free ports chosen at start unless given.
 *
 * <p>{@link #start(Path, String, Node, List, Map)} runs one node of a multi-node cluster instead (every node
 * combined, a static quorum of all of them, one process per node): the brokers {@code bin/engram chaos --brokers 3}
 * kills and restarts.
 *
 * <p>Not for production: no security, plaintext on localhost.
 */
public final class EmbeddedBroker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedBroker.class);
    private static final int NODE_ID = 1;
    private static final String CONTROLLER_LISTENER = "CONTROLLER";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration CLUSTER_START_TIMEOUT = Duration.ofSeconds(180);
    /**
     * {@code group.initial.rebalance.delay.ms}: how long the coordinator holds the first JoinGroup of an empty group for
     * more members (extended once by as much when one joins meanwhile). Kafka's default is 3000, which every group's
     * first start would wait. At 0, an app with two stream threads (a consolidator or retriever rebuilt alone,
     * {@code bin/engram rebuild}) joined in two rounds: the first thread's join completed alone, the second thread's,
     * a few ms later, started a second rebalance, whose leader then asked the end offsets of the changelogs the first
     * round had created (a newly created changelog is taken as empty only in the round that creates it): 0.7 s
     * between join and assignment at load 31, 2.5 s at load 60, against 0.2–0.35 s for one round of both (scratch
     * rebuild loop, BENCHMARKS.md "Rebuild"). 100 ms lets a second thread that joins within it share the round; a
     * one-member group waits it once.
     */
    static final int INITIAL_REBALANCE_DELAY_MS = 100;

    private final KafkaRaftServer server;
    private final String bootstrapServers;
    private final Path logDir;

    private EmbeddedBroker(final KafkaRaftServer server, final String bootstrapServers, final Path logDir) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
        this.logDir = logDir;
    }

    /**
     * Formats {@code runDir/kafka-logs} and starts a broker on free ports.
     *
     * @param runDir the run directory; the log directory is created under it and must not be formatted yet
     * @return the running broker
     * @throws IllegalStateException if formatting or start-up fails, or the broker is not reachable within 60 s
     */
    public static EmbeddedBroker start(final Path runDir) {
        return start(runDir, 0, Map.of());
    }

    /**
     * Formats {@code runDir/kafka-logs} and starts a broker.
     *
     * @param runDir the run directory; the log directory is created under it, or reused as it is when
     *     it was formatted before (a restart: same topics, offsets and transactions)
     * @param brokerPort the client port, 0 for a free port
     * @param overrides broker settings that replace the defaults (e.g. {@code num.partitions})
     * @return the running broker
     * @throws IllegalStateException if formatting or start-up fails, or the broker is not reachable within 60 s
     */
    public static EmbeddedBroker start(final Path runDir, final int brokerPort, final Map<String, String> overrides) {
        final int port = brokerPort == 0 ? freePort() : brokerPort;
        int controllerPort = freePort();
        while (controllerPort == port) {
            // the OS may hand out the port it just released again: two listeners cannot share one
            controllerPort = freePort();
        }
        final Node self = new Node(NODE_ID, port, controllerPort);
        return start(runDir, Uuid.randomUuid().toString(), self, List.of(self), overrides);
    }

    /**
     * One node of a KRaft cluster of combined broker+controller nodes with a static quorum (every node a voter):
     * its id and its two ports on localhost.
     *
     * @param nodeId {@code node.id}, ≥ 1
     * @param brokerPort the client (PLAINTEXT) port
     * @param controllerPort the controller (quorum) port
     */
    public record Node(int nodeId, int brokerPort, int controllerPort) {
        /** @return the node's {@code id@localhost:controllerPort} entry of {@code controller.quorum.voters} */
        String voter() {
            return nodeId + "@localhost:" + controllerPort;
        }
    }

    /**
     * Starts one node of a multi-node cluster (each node in a process of its own, e.g. the three brokers of
     * {@code bin/engram chaos --brokers 3}): formats {@code runDir/kafka-logs} with the cluster's id on first start,
     * or reuses it as it is (a restart after a crash: same topics, offsets and transactions). The replication
     * settings (offsets and transaction-state topics, {@code default.replication.factor}, {@code min.insync.replicas})
     * are the single node's (1) unless {@code overrides} sets them. Returns once an admin client of this node sees the
     * cluster, which needs a majority of the voters up.
     *
     * @param runDir the node's run directory
     * @param clusterId the cluster id, the same on every node ({@link Uuid#toString()} form)
     * @param self this node
     * @param voters every node of the cluster, this one included
     * @param overrides broker settings that replace the defaults
     * @return the running node
     * @throws IllegalStateException if formatting or start-up fails, or the node is not ready within 180 s
     */
    public static EmbeddedBroker start(final Path runDir, final String clusterId, final Node self, final List<Node> voters,
                                       final Map<String, String> overrides) {
        final Path logDir = runDir.toAbsolutePath().resolve("kafka-logs");
        try {
            Files.createDirectories(logDir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the broker log directory " + logDir, e);
        }
        final Properties props = settings(logDir, self.brokerPort(), self.controllerPort());
        props.put("node.id", String.valueOf(self.nodeId()));
        props.put("controller.quorum.voters", String.join(",", voters.stream().map(Node::voter).toList()));
        props.putAll(overrides);
        final KafkaConfig config = new KafkaConfig(props, false);
        if (!Files.exists(logDir.resolve("meta.properties"))) {
            format(logDir, self.nodeId(), clusterId);
        } // else: a restart on the same log directory (and port), keeping every topic and offset
        final int port = self.brokerPort();
        final KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
        final EmbeddedBroker broker = new EmbeddedBroker(server, "localhost:" + port, logDir);
        try {
            // a cluster node waits for a quorum of processes that may start slowly on a loaded machine
            broker.awaitReady(voters.size() > 1 ? CLUSTER_START_TIMEOUT : START_TIMEOUT);
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
        LOG.info("Embedded Kafka broker ready at {} (log dir {})", broker.bootstrapServers, logDir);
        return broker;
    }

    /** The broker settings; every value a string, as in a server.properties file. */
    static Properties settings(final Path logDir, final int port, final int controllerPort) {
        final Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", String.valueOf(NODE_ID));
        p.put("controller.quorum.voters", NODE_ID + "@localhost:" + controllerPort);
        p.put("listeners", "PLAINTEXT://localhost:" + port + "," + CONTROLLER_LISTENER + "://localhost:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://localhost:" + port);
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        p.put("controller.listener.names", CONTROLLER_LISTENER);
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", logDir.toString());
        // One node: every internal topic must accept replication factor 1, or EOS apps hang silently.
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "4");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("default.replication.factor", "1");
        p.put("min.insync.replicas", "1");
        // The cleaner's default 128 MB dedupe buffer dominates a small broker's heap.
        p.put("log.cleaner.dedupe.buffer.size", "2097152");
        p.put("group.initial.rebalance.delay.ms", String.valueOf(INITIAL_REBALANCE_DELAY_MS));
        // Topics are created on purpose (TopicSetup, Streams' internal topics), never by a typo.
        p.put("auto.create.topics.enable", "false");
        // Record timestamps are event time (LoCoMo sessions date from 2023): time-based retention
        // would delete a replayable log by the age of the conversation, not of the write.
        p.put("log.retention.ms", "-1");
        // ... and topics take any timestamp (old data replays; the pipeline bounds event times itself with
        // input.max.future.ms): Kafka 4 refuses more than 1 h ahead by default
        p.put("log.message.timestamp.after.max.ms", String.valueOf(Long.MAX_VALUE));
        // The one size limit (input.max.record.bytes + headroom), also for topics created without it.
        p.put("message.max.bytes", String.valueOf(dev.engram.config.EngramConfig.defaults().maxMessageBytes()));
        p.put("replica.fetch.max.bytes", String.valueOf(dev.engram.config.EngramConfig.defaults().maxMessageBytes()));
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        return p;
    }

    /** Formats the log directory as {@code kafka-storage.sh format} would for this config. */
    private static void format(final Path logDir, final int nodeId, final String clusterId) {
        final Formatter formatter = new Formatter()
            .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
            .setNodeId(nodeId)
            .setClusterId(clusterId)
            .setControllerListenerName(CONTROLLER_LISTENER)
            .setMetadataLogDirectory(logDir.toString()) // one log dir, so it holds the metadata log too
            .addDirectory(logDir.toString());
        try {
            formatter.run();
        } catch (Exception e) {
            throw new IllegalStateException("Cannot format the broker log directory " + logDir, e);
        }
    }

    /** Polls the cluster with an admin client until the broker is registered, bounded by {@code timeout}. */
    private void awaitReady(final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            while (true) {
                try {
                    if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    LOG.debug("Broker not ready yet: {}", e.toString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while waiting for the broker", e);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("The embedded broker did not become ready within " + timeout);
                }
            }
        }
    }

    /** @return a free TCP port on the loopback interface (it may be taken by someone else before we bind it) */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free port", e);
        }
    }

    /** @return {@code localhost:<port>} of the client listener */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** @return the broker's log directory */
    public Path logDir() {
        return logDir;
    }

    /** Shuts the broker down and waits for it; the log directory is left in place. */
    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
        LOG.info("Embedded Kafka broker at {} stopped", bootstrapServers);
    }
}
