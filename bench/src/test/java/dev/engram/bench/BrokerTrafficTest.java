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

    /** A Kafka client's metrics MBean as JMX shows it: {@code request-total}, a double (a dynamic MBean: the name). */
    public static final class ClientMetrics implements javax.management.DynamicMBean {
        private volatile double requests;

        ClientMetrics(final double requests) {
            this.requests = requests;
        }

        @Override
        public Object getAttribute(final String attribute) throws javax.management.AttributeNotFoundException {
            if (!attribute.equals("request-total")) {
                throw new javax.management.AttributeNotFoundException(attribute);
            }
            return requests;
        }

        @Override
        public void setAttribute(final javax.management.Attribute attribute) {
            throw new UnsupportedOperationException();
        }

        @Override
        public javax.management.AttributeList getAttributes(final String[] attributes) {
            return new javax.management.AttributeList();
        }

        @Override
        public javax.management.AttributeList setAttributes(final javax.management.AttributeList attributes) {
            return new javax.management.AttributeList();
        }

        @Override
        public Object invoke(final String action, final Object[] params, final String[] signature) {
            throw new UnsupportedOperationException();
        }

        @Override
        public javax.management.MBeanInfo getMBeanInfo() {
            return new javax.management.MBeanInfo(ClientMetrics.class.getName(), "client metrics",
                new javax.management.MBeanAttributeInfo[] {new javax.management.MBeanAttributeInfo("request-total",
                    "double", "requests sent", true, false, false)}, null, null, null);
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

    private <T> T meter(final String name, final T meter) throws Exception {
        final ObjectName objectName = new ObjectName(name);
        SERVER.registerMBean(meter, objectName);
        registered.add(objectName);
        return meter;
    }

    private Meter meter(final String name, final long count) throws Exception {
        return meter(name, new Meter(count));
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldCountRequestsOverVersionsRecordsAndBytesByTopicAndTheBenchsOwnRequestsWhenMetersMove() throws Exception {
        final Meter produce9 = meter("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce,version=9", 100);
        final Meter produce11 = meter("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce,version=11", 5);
        final Meter endTxn = meter("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=EndTxn,version=4", 7);
        meter("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Heartbeat,version=4", 3);
        final Meter candidates = meter("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=memory-candidates", 0);
        final Meter changelog = meter(
            "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=engram-extractor-x-changelog", 10);
        meter("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec", 999); // the all-topics meter: no topic
        final Meter candidateBytes = meter("kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=memory-candidates", 0);
        // the bench's own clients (its settle monitor's consumer and admin client) against an app's producer
        final ClientMetrics monitor = meter("kafka.consumer:type=consumer-metrics,client-id=engram-demo-monitor",
            new ClientMetrics(50));
        final ClientMetrics monitorAdmin = meter(
            "kafka.admin.client:type=admin-client-metrics,client-id=engram-demo-monitor-admin", new ClientMetrics(9));
        final ClientMetrics app = meter(
            "kafka.producer:type=producer-metrics,client-id=engram-extractor-1-StreamThread-1-producer", new ClientMetrics(70));

        final BrokerTraffic before = BrokerTraffic.take();
        produce9.count += 30;
        produce11.count += 10;
        endTxn.count += 4;
        candidates.count += 40;
        changelog.count += 20;
        candidateBytes.count += 80_000;
        monitor.requests += 8;
        monitorAdmin.requests += 2;
        app.requests += 30;
        final Map<String, Object> f = BrokerTraffic.take().minus(before, 20);

        assertThat(f).containsEntry("requests", 44L).containsEntry("records", 60L);
        assertThat(f).containsEntry("benchClientRequests", 10L).containsEntry("benchClientRequestsPer", 0.5);
        assertThat((Map<String, Object>) f.get("bytesPer")).containsExactly(Map.entry("memory-candidates", 4000.0));
        // largest first; meters that did not move are left out
        assertThat((Map<String, Object>) f.get("requestsPer")).containsExactly(Map.entry("Produce", 2.0), Map.entry("EndTxn", 0.2));
        assertThat((Map<String, Object>) f.get("recordsPer")).containsExactly(
            Map.entry("memory-candidates", 2.0), Map.entry("engram-extractor-x-changelog", 1.0));
    }
}
