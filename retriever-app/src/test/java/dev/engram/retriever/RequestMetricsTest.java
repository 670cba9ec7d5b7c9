package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import dev.engram.runtime.AppMetrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * The retriever's request timer as Prometheus sees it: a histogram with a status label, from whose scraped buckets
 * alone {@code histogram_quantile} gives p95/p99 ({@link PrometheusText} computes it as PromQL does).
 */
class RequestMetricsTest {

    private static final String HISTOGRAM = "engram_retrieval_requests_seconds";

    @Test
    void shouldGiveTheP99OfKnownLatenciesFromTheScrapedBucketsWhenRequestsWereTimed() {
        final PrometheusMeterRegistry registry = AppMetrics.registry("engram-retriever", "test-host");
        try {
            final Map<String, Timer> timers = new HashMap<>();
            final Timer ok = RetrieverApi.requestTimer(registry, timers, "memories", 200);
            for (int i = 0; i < 990; i++) {
                ok.record(Duration.ofMillis(5));
            }
            for (int i = 0; i < 10; i++) {
                ok.record(Duration.ofSeconds(2));
            }
            RetrieverApi.requestTimer(registry, timers, "history", 404).record(Duration.ofMillis(3));
            assertThat(RetrieverApi.requestTimer(registry, timers, "memories", 200)).isSameAs(ok);

            final PrometheusText scrape = new PrometheusText(registry.scrape());
            final Map<String, String> memories200 = Map.of("endpoint", "memories", "status", "200");
            // rank 990 of 1000 is the last 5 ms request: p99 lies in the bucket that holds 5 ms
            assertThat(scrape.quantile(0.99, HISTOGRAM, memories200)).isBetween(0.004, 0.0065);
            // rank 999 is a 2 s request
            assertThat(scrape.quantile(0.999, HISTOGRAM, memories200)).isBetween(1.6, 2.5);
            // the bounds are those of the settings: 14 finite buckets from 1 ms to 30 s, and +Inf
            assertThat(scrape.buckets(HISTOGRAM, memories200).keySet()).hasSize(15).startsWith(0.001)
                .contains(0.005, 2.5, 30.0, Double.POSITIVE_INFINITY);
            // an error rate needs the status: a 404 is its own series, with the common tags and no clashing "instance"
            assertThat(scrape.find(HISTOGRAM + "_count", Map.of("endpoint", "history", "status", "404")))
                .singleElement().satisfies(s -> {
                    assertThat(s.value()).isEqualTo(1.0);
                    assertThat(s.labels()).containsEntry("application", "engram-retriever")
                        .containsEntry(AppMetrics.HOST_TAG, "test-host").doesNotContainKey("instance");
                });
        } finally {
            registry.close();
        }
    }
}
