package dev.engram.retriever;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a Prometheus text exposition (what {@code GET /metrics} answers) the way a scraper does, and computes a
 * quantile from a histogram's cumulative {@code _bucket} series the way PromQL's {@code histogram_quantile} does
 * (Prometheus' {@code promql/quantile.go}: find the bucket holding rank {@code q · count}, interpolate linearly between
 * its lower and upper bound; the first bucket's lower bound is 0). Test support: lets a test check that p95/p99 can be
 * computed from the scrape alone, with no access to the registry.
 */
final class PrometheusText {

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})?\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** One sample: metric name, labels, value. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    private final List<Sample> samples = new ArrayList<>();

    PrometheusText(final String exposition) {
        for (final String line : exposition.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            final Matcher m = SAMPLE.matcher(line);
            if (!m.find()) {
                throw new IllegalArgumentException("Not a sample line: " + line);
            }
            final Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(3) != null) {
                final Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, parse(m.group(4))));
        }
    }

    /**
     * @param name a metric name, e.g. {@code engram_retrieval_requests_seconds_count}
     * @param match labels every returned sample has with these values
     * @return the matching samples
     */
    List<Sample> find(final String name, final Map<String, String> match) {
        return samples.stream().filter(s -> s.name().equals(name))
            .filter(s -> match.entrySet().stream().allMatch(e -> e.getValue().equals(s.labels().get(e.getKey()))))
            .toList();
    }

    /**
     * @param histogram the histogram's base name, e.g. {@code engram_retrieval_requests_seconds}
     * @param match labels selecting one series (the buckets are summed over the rest, as {@code sum by (le)})
     * @return upper bound {@code le} → cumulative count, {@code +Inf} last
     * @throws IllegalStateException if there is no bucket
     */
    TreeMap<Double, Double> buckets(final String histogram, final Map<String, String> match) {
        final TreeMap<Double, Double> buckets = new TreeMap<>();
        for (final Sample s : find(histogram + "_bucket", match)) {
            buckets.merge(parse(s.labels().get("le")), s.value(), Double::sum);
        }
        if (buckets.isEmpty()) {
            throw new IllegalStateException("No " + histogram + "_bucket series with " + match);
        }
        return buckets;
    }

    /**
     * PromQL's {@code histogram_quantile(q, sum by (le) (…))} over one scrape.
     *
     * @param q the quantile, 0..1
     * @param histogram the histogram's base name
     * @param match labels selecting the series
     * @return the quantile in the histogram's unit; NaN when it has no observation
     */
    double quantile(final double q, final String histogram, final Map<String, String> match) {
        return quantile(q, buckets(histogram, match));
    }

    /**
     * @param histogram the histogram's base name
     * @param match labels selecting the series
     * @param before the same histogram's buckets in an earlier scrape (empty when it had none)
     * @return the buckets of the observations made between the two scrapes (PromQL's {@code increase} per bucket)
     */
    TreeMap<Double, Double> bucketsSince(final String histogram, final Map<String, String> match,
                                         final Map<Double, Double> before) {
        final TreeMap<Double, Double> delta = buckets(histogram, match);
        delta.replaceAll((le, count) -> count - before.getOrDefault(le, 0.0));
        return delta;
    }

    /**
     * @param histogram the histogram's base name
     * @param match labels selecting the series
     * @return its buckets, empty when the series has none yet
     */
    TreeMap<Double, Double> bucketsOrEmpty(final String histogram, final Map<String, String> match) {
        return find(histogram + "_bucket", match).isEmpty() ? new TreeMap<>() : buckets(histogram, match);
    }

    /**
     * PromQL's {@code histogram_quantile} over given cumulative buckets.
     *
     * @param q the quantile, 0..1
     * @param buckets upper bound {@code le} → cumulative count, {@code +Inf} last
     * @return the quantile; NaN without observations
     */
    static double quantile(final double q, final TreeMap<Double, Double> buckets) {
        final double count = buckets.lastEntry().getValue();
        if (count == 0) {
            return Double.NaN;
        }
        final double rank = q * count;
        double lower = 0;
        double below = 0;
        for (final Map.Entry<Double, Double> bucket : buckets.entrySet()) {
            if (bucket.getValue() >= rank) {
                if (bucket.getKey().isInfinite()) {
                    return lower; // Prometheus answers the highest finite bound
                }
                final double inBucket = bucket.getValue() - below;
                return lower + (bucket.getKey() - lower) * (inBucket == 0 ? 0 : (rank - below) / inBucket);
            }
            lower = bucket.getKey();
            below = bucket.getValue();
        }
        return lower;
    }

    private static double parse(final String value) {
        return switch (value) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(value);
        };
    }
}
