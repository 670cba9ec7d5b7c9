package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link BrokerTraffic} reads the broker's meters by their JMX names: here meters of the same names and shape
 * ({@code Count}) stand for the broker's, so the test runs without one.
 */
class BrokerTrafficTest {

    /** A meter as JMX shows one of the broker's Yammer meters: its total count. */
    public interface MeterMBean {
        long getCount();
    }

    /** @see MeterMBean */
    public static final class Meter implements MeterMBean {
        private volatile long count;

        Meter(final long count) {
            this.count = count;
        }

        @Override
        public long getCount() {
            return count;
        }
    }

    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();
    private final List<ObjectName> registered = new ArrayList<>();

    @AfterEach
    void unregister() throws Exception {
        for (final ObjectName name : registered) {
            SERVER.unregisterMBean(name);
        }
    }

    private Meter meter(final String name, final long count) throws Exception {
        final Meter meter = new Meter(count);
        final ObjectName objectName = new ObjectName(name);
        SERVER.registerMBean(meter, objectName);
        registered.add(objectName);
        return meter;
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldCountRequestsOverVersionsAndRecordsByTopicPerCandidateWhenMetersMove() throws Exception {
        final Meter produce9 = meter("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce,version=9", 100);
        final Meter produce11 = meter("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce,version=11", 5);
        final Meter endTxn = meter("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=EndTxn,version=4", 7);
        meter("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Heartbeat,version=4", 3);
        final Meter candidates = meter("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=memory-candidates", 0);
        final Meter changelog = meter(
            "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=engram-extractor-x-changelog", 10);
        meter("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec", 999); // the all-topics meter: no topic

        final BrokerTraffic before = BrokerTraffic.take();
        produce9.count += 30;
        produce11.count += 10;
        endTxn.count += 4;
        candidates.count += 40;
        changelog.count += 20;
        final Map<String, Object> f = BrokerTraffic.take().minus(before, 20);

        assertThat(f).containsEntry("requests", 44L).containsEntry("records", 60L);
        // largest first; meters that did not move are left out
        assertThat((Map<String, Object>) f.get("requestsPer")).containsExactly(Map.entry("Produce", 2.0), Map.entry("EndTxn", 0.2));
        assertThat((Map<String, Object>) f.get("recordsPer")).containsExactly(
            Map.entry("memory-candidates", 2.0), Map.entry("engram-extractor-x-changelog", 1.0));
    }
}
