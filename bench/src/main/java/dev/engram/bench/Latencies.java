package dev.engram.bench;

import java.util.LinkedHashMap;
import java.util.Map;

import org.HdrHistogram.Histogram;

/** Percentile figures from an HdrHistogram recorded in microseconds. */
final class Latencies {

    private Latencies() {
    }

    /** @return a histogram for 1 µs … 1 h with 3 significant digits, as HdrHistogram's examples use */
    static Histogram histogram() {
        return new Histogram(3_600_000_000L, 3);
    }

    /**
     * @param h latencies in µs
     * @param prefix key prefix, e.g. {@code ""} → {@code p50Ms}
     * @return count, p50, p95, p99, p99.9 and max in ms
     */
    static Map<String, Object> figures(final Histogram h, final String prefix) {
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put(prefix + "count", h.getTotalCount());
        f.put(prefix + "p50Ms", ms(h.getValueAtPercentile(50)));
        f.put(prefix + "p95Ms", ms(h.getValueAtPercentile(95)));
        f.put(prefix + "p99Ms", ms(h.getValueAtPercentile(99)));
        f.put(prefix + "p999Ms", ms(h.getValueAtPercentile(99.9)));
        f.put(prefix + "maxMs", ms(h.getMaxValue()));
        return f;
    }

    private static double ms(final long micros) {
        return BenchReport.round(micros / 1000.0, 2);
    }
}
