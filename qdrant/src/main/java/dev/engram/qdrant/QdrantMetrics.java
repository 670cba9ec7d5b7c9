package dev.engram.qdrant;

import java.util.Locale;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Micrometer meters of the Qdrant adapter.
 *
 * <ul>
 *   <li>{@code engram.qdrant.requests} (timer): every call with its latency, tags {@code operation}
 *       ({@code search}, {@code upsert}, {@code delete}, {@code delete_user}, {@code count},
 *       {@code health}, {@code get_collection}, {@code create_collection}, {@code create_index}) and
 *       {@code status} ({@code OK} or the gRPC status code, e.g. {@code UNAVAILABLE}); its count is
 *       the number of calls;</li>
 *   <li>{@code engram.qdrant.errors} (counter): failed calls, same tags.</li>
 * </ul>
 * The registry's common tags ({@code application}, {@code instance}) are added by the app's registry.
 */
final class QdrantMetrics {

    private final MeterRegistry registry;

    QdrantMetrics(final MeterRegistry registry) {
        this.registry = registry;
    }

    void record(final String operation, final String status, final long nanos) {
        Timer.builder("engram.qdrant.requests").description("Qdrant calls and their latency, by operation and gRPC status")
            .tag("operation", operation).tag("status", status.toUpperCase(Locale.ROOT))
            .publishPercentileHistogram(false).register(registry)
            .record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
        if (!"OK".equals(status)) {
            Counter.builder("engram.qdrant.errors").description("Failed Qdrant calls, by operation and gRPC status")
                .tag("operation", operation).tag("status", status.toUpperCase(Locale.ROOT)).register(registry).increment();
        }
    }
}
