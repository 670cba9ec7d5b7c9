package dev.engram.ops;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.engram.config.EngramConfig;
import dev.engram.stack.TopicSetup;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code bin/engram topics}: creates every Engram topic that does not exist yet ({@link TopicSetup},
 * {@code topics.partitions} partitions each); the Kubernetes topics Job runs it. Exit 0 on success.
 */
@Command(name = "topics", mixinStandardHelpOptions = true,
    description = "Create Engram's topics (topics.partitions partitions each) on a running cluster; existing ones are left alone.")
public final class TopicsCommand implements Callable<Integer> {

    @Mixin
    OpsOptions options = new OpsOptions();

    @Override
    public Integer call() {
        final EngramConfig config = options.load();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", config.getString(EngramConfig.BOOTSTRAP_SERVERS)))) {
            final List<String> created = TopicSetup.createAll(admin, config.getInt(EngramConfig.NUM_PARTITIONS),
                config.maxMessageBytes());
            System.out.println("Created " + created.size() + " topic(s): " + created);
            return 0;
        }
    }
}
