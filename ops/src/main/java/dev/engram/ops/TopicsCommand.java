package dev.engram.ops;

import java.util.List;
import java.util.concurrent.Callable;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.config.KafkaConnection;
import dev.engram.stack.ReachableCluster;
import dev.engram.stack.TopicSetup;
import dev.engram.streams.PipelineConfig;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/engram topics}: creates every Engram topic that does not exist yet ({@link TopicSetup},
 * {@code topics.partitions} partitions each) and lets the existing ones take every event time Engram accepts
 * ({@link TopicSetup#alignTimestampLimits}); the Kubernetes topics Job runs it. The cluster must answer within
 * {@code --connect-timeout} seconds (default 15), else one line names the bootstrap servers and the exit code is 1.
 * Exit 0 on success.
 */
@Command(name = "topics", mixinStandardHelpOptions = true,
    description = "Create Engram's topics (topics.partitions partitions each) on a running cluster; existing ones keep their settings except the timestamp limits (a topic takes any record timestamp; the pipeline bounds event times, input.max.future.ms).")
public final class TopicsCommand implements Callable<Integer> {

    @Mixin
    OpsOptions options = new OpsOptions();

    @Override
    public Integer call() throws InterruptedException {
        final EngramConfig config = options.load();
        System.err.println("Creating Engram's topics on " + config.getString(CoreConfig.BOOTSTRAP_SERVERS) + "…");
        try (Admin admin = ReachableCluster.admin(KafkaConnection.of(config.kafkaProperties()), options.connectTimeoutSeconds,
            "--connect-timeout", "no topic was created")) {
            final List<String> created = TopicSetup.createAll(admin, config.getInt(PipelineConfig.NUM_PARTITIONS),
                config.maxMessageBytes());
            System.out.println("Created " + created.size() + " topic(s): " + created);
            final List<String> aligned = TopicSetup.alignTimestampLimits(admin);
            if (!aligned.isEmpty()) {
                System.out.println("Set message.timestamp.after.max.ms and message.timestamp.before.max.ms to their"
                    + " maximum (the topic takes any record timestamp; the pipeline bounds event times, input.max.future.ms)"
                    + " on " + aligned.size() + " existing topic(s): " + aligned);
            }
            return 0;
        }
    }
}
