package dev.engram.bench;

import java.lang.management.ManagementFactory;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * What the in-process broker was asked to do between two readings: requests by API ({@code Produce}, {@code Fetch},
 * {@code AddPartitionsToTxn}, {@code EndTxn}, {@code TxnOffsetCommit}, {@code WriteTxnMarkers}, …) and records
 * appended by topic (changelogs and repartition topics included; transaction markers are not records), read from the
 * broker's own meters in this JVM's platform MBean server ({@code kafka.network:type=RequestMetrics,
 * name=RequestsPerSec,request=*,version=*} and {@code kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,
 * topic=*}, their {@code Count}: totals since the meter was created). The broker's CPU per candidate in {@code bench
 * ingest} is this traffic's cost, so it is what shows which topic or request to remove.
 *
 * <p>The meters are the broker's process-wide Yammer registry: a discarded warm-up stack's broker counted into the same
 * meters, so only the difference of two readings means anything.
 *
 * <p>The broker counts every client's requests, the benchmark's own too: its producer ({@code engram-ingest}) and its
 * settle monitor ({@link dev.engram.stack.PipelineMonitor}'s consumer and admin client, the extractor's pending-store
 * check), which are not the pipeline's work. Those clients' own request counts ({@code request-total} of their
 * {@code kafka.producer}, {@code kafka.consumer} and {@code kafka.admin.client} metrics, by client id,
 * {@link #BENCH_CLIENTS}) are read beside the broker's meters, so the share of the requests that is the benchmark's is
 * told apart ({@code benchClientRequests}). A client closed before a reading has no metrics any more: read them before
 * the bench's clients close.
 *
 * @param requests request name → requests since the meter was created (every version summed)
 * @param records topic → records appended since the meter was created
 * @param bytes topic → bytes appended since the meter was created
 * @param benchClientRequests requests the benchmark's own clients sent since they were created
 */
record BrokerTraffic(Map<String, Long> requests, Map<String, Long> records, Map<String, Long> bytes,
                     long benchClientRequests) {

    /** The client ids (prefixes) of the benchmark's own Kafka clients: what is not the pipeline's traffic. */
    static final List<String> BENCH_CLIENTS = List.of("engram-ingest", "engram-demo-monitor", "engram-pending-extractions",
        "engram-topic-scan");

    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    /** @return the broker's meters now (empty maps when no broker runs in this JVM) */
    static BrokerTraffic take() {
        long bench = 0;
        for (final String type : List.of("kafka.producer:type=producer-metrics", "kafka.consumer:type=consumer-metrics",
            "kafka.admin.client:type=admin-client-metrics")) {
            for (final Map.Entry<String, Long> client : counts(type + ",client-id=*", "client-id", "request-total").entrySet()) {
                if (BENCH_CLIENTS.stream().anyMatch(client.getKey()::startsWith)) {
                    bench += client.getValue();
                }
            }
        }
        return new BrokerTraffic(
            counts("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=*,version=*", "request", "Count"),
            counts("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=*", "topic", "Count"),
            counts("kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=*", "topic", "Count"), bench);
    }

    /**
     * @param before the earlier reading
     * @param per what to divide by (e.g. candidates); at least 1 is used
     * @return {@code requests} and {@code records}: the totals; {@code benchClientRequests}: how many of the requests
     *     the benchmark's own clients sent, and {@code benchClientRequestsPer} per {@code per}; {@code requestsPer},
     *     {@code recordsPer} and {@code bytesPer}: the increase of each meter divided by {@code per} (3 decimals),
     *     largest first, meters that did not move left out
     */
    Map<String, Object> minus(final BrokerTraffic before, final long per) {
        final Map<String, Long> requestDelta = delta(requests, before.requests);
        final Map<String, Long> recordDelta = delta(records, before.records);
        final long bench = Math.max(0, benchClientRequests - before.benchClientRequests);
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put("requests", requestDelta.values().stream().mapToLong(Long::longValue).sum());
        f.put("records", recordDelta.values().stream().mapToLong(Long::longValue).sum());
        f.put("benchClientRequests", bench);
        f.put("benchClientRequestsPer", BenchReport.round((double) bench / Math.max(1, per), 3));
        f.put("requestsPer", divided(requestDelta, per));
        f.put("recordsPer", divided(recordDelta, per));
        f.put("bytesPer", divided(delta(bytes, before.bytes), per));
        return f;
    }

    private static Map<String, Long> delta(final Map<String, Long> after, final Map<String, Long> before) {
        final Map<String, Long> d = new TreeMap<>();
        after.forEach((name, n) -> {
            final long moved = n - before.getOrDefault(name, 0L);
            if (moved > 0) {
                d.put(name, moved);
            }
        });
        return d;
    }

    private static Map<String, Object> divided(final Map<String, Long> counts, final long per) {
        final long n = Math.max(1, per);
        return counts.entrySet().stream()
            .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()).thenComparing(Map.Entry.comparingByKey()))
            .collect(Collectors.toMap(Map.Entry::getKey, e -> (Object) BenchReport.round((double) e.getValue() / n, 3),
                (a, b) -> a, LinkedHashMap::new));
    }

    /** Sums an attribute (a count) of every MBean matching the pattern by the value of one key property. */
    private static Map<String, Long> counts(final String pattern, final String key, final String attribute) {
        final Map<String, Long> counts = new TreeMap<>();
        try {
            for (final ObjectName name : SERVER.queryNames(new ObjectName(pattern), null)) {
                final String by = name.getKeyProperty(key);
                final Object count;
                try {
                    count = SERVER.getAttribute(name, attribute);
                } catch (InstanceNotFoundException | javax.management.AttributeNotFoundException gone) {
                    continue; // a closing broker's or client's meter, removed between the query and the read
                }
                if (by != null && count instanceof Number n && Double.isFinite(n.doubleValue())) {
                    counts.merge(by, n.longValue(), Long::sum);
                }
            }
        } catch (JMException e) {
            throw new IllegalStateException("Cannot read the broker's meters (" + pattern + ")", e);
        }
        return counts;
    }
}
