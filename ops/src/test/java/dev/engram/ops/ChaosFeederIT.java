package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import dev.engram.stack.EmbeddedBroker;
import dev.engram.stack.TopicScan;
import dev.engram.stack.TopicSetup;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos feeder checks every send: while the broker is down its sends fail (each after the producer's delivery
 * timeout) and are counted, and the items are sent again, so once the broker is back every item is published, none is
 * unsent and none is missing from the topic.
 */
class ChaosFeederIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(180);

    @TempDir
    Path dir;

    @Test
    void shouldCountFailedSendsAndPublishEveryItemWhenTheBrokerIsDownForAWhile() throws Exception {
        EmbeddedBroker broker = EmbeddedBroker.start(dir.resolve("broker"));
        final String bootstrap = broker.bootstrapServers();
        final int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            TopicSetup.createAll(admin, 1);
        }
        final ChaosFeeder feeder = new ChaosFeeder(bootstrap, Chaos.App.CONSOLIDATOR, 20, false, Duration.ofSeconds(2));
        try {
            feeder.start();
            EmbeddedKafka.waitUntil(() -> feeder.published(10), TIMEOUT, "ten items published");

            broker.close();
            EmbeddedKafka.waitUntil(() -> feeder.failedSends() >= 3, TIMEOUT, "three failed sends while the broker is down");
            broker = EmbeddedBroker.start(dir.resolve("broker"), port, Map.of());
            final long issued = feeder.sent();
            EmbeddedKafka.waitUntil(() -> LongStream.range(0, issued).allMatch(feeder::published), TIMEOUT,
                "every item issued so far published once the broker is back");
        } finally {
            feeder.stop();
        }

        try {
            assertThat(feeder.unsent()).as("unsent after the retries").isZero();
            final Set<String> keys = new TreeSet<>();
            TopicScan.toEnd(TopicScan.client(broker.bootstrapServers()), Topic.MEMORY_CANDIDATES.name(), null, TIMEOUT,
                r -> keys.add(new String(r.key(), StandardCharsets.UTF_8)));
            final Set<String> missing = LongStream.range(0, feeder.sent())
                .mapToObj(i -> Chaos.TENANT + "/" + ChaosFeeder.user(i)).filter(k -> !keys.contains(k))
                .collect(Collectors.toCollection(TreeSet::new));
            assertThat(missing).as("items of %d never written", feeder.sent()).isEmpty();
            assertThat(feeder.failedSends()).isGreaterThanOrEqualTo(3);
        } finally {
            broker.close();
        }
    }
}
