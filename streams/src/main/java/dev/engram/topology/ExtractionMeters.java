package dev.engram.topology;

import java.util.concurrent.atomic.AtomicInteger;

import dev.engram.topics.AppIds;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The extractor's meters, shared by every task of the topology (tag {@code application=engram-extractor}; the names
 * are {@link ExtractionTopology}'s constants).
 *
 * @param conversations valid conversations extracted
 * @param candidates memory candidates written
 * @param memoryOff conversations of users with memory off
 * @param replaced U+FFFD characters in accepted conversations' text
 * @param latency extraction and embedding of one conversation (a histogram)
 * @param pending conversations consumed but not forwarded yet (a gauge)
 * @param registry where they are registered
 */
record ExtractionMeters(Counter conversations, Counter candidates, Counter memoryOff, Counter replaced,
              io.micrometer.core.instrument.Timer latency, AtomicInteger pending, MeterRegistry registry) {
    ExtractionMeters(final MeterRegistry registry) {
        this(registry, new AtomicInteger());
    }

    /** Counts one consumed conversation under {@code outcome} and {@code reason} (bounded sets, see ExtractionTopology). */
    void outcome(final String outcome, final String reason) {
        Counter.builder(ExtractionTopology.METER_OUTCOMES)
            .description("Consumed conversations by what they ended as: remembered, nothing_to_remember (reason), "
                + "dead_lettered (stage); in = the sum").tag("application", AppIds.EXTRACTOR)
            .tag("outcome", outcome).tag("reason", reason).register(registry).increment();
    }

    private ExtractionMeters(final MeterRegistry registry, final AtomicInteger pending) {
        this(counter(registry, ExtractionTopology.METER_CONVERSATIONS, "Valid conversations extracted"),
            counter(registry, ExtractionTopology.METER_CANDIDATES, "Memory candidates written"),
            counter(registry, ExtractionTopology.METER_MEMORY_OFF, "Conversations of users with memory off (no extraction call)"),
            Counter.builder(ExtractionTopology.METER_REPLACED).description("U+FFFD characters (invalid UTF-8 replaced on the way) in "
                + "the text of accepted conversations").tag("application", AppIds.EXTRACTOR)
                .tag("path", "extractor").register(registry),
            // a histogram (buckets 1 ms … 2 min: a rule-based conversation takes milliseconds, an LLM's many
            // seconds) so that histogram_quantile gives p95/p99 from /metrics
            io.micrometer.core.instrument.Timer.builder(ExtractionTopology.METER_LATENCY)
                .description("Extraction and embedding of one conversation").tag("application", AppIds.EXTRACTOR)
                .publishPercentileHistogram().minimumExpectedValue(java.time.Duration.ofMillis(1))
                .maximumExpectedValue(java.time.Duration.ofMinutes(2)).register(registry),
            pending, registry);
        io.micrometer.core.instrument.Gauge.builder(ExtractionTopology.METER_PENDING, pending, AtomicInteger::get)
            .description("Conversations consumed (offsets committed with the pending store) whose candidates are "
                + "not forwarded yet").tag("application", AppIds.EXTRACTOR).register(registry);
    }

    private static Counter counter(final MeterRegistry registry, final String name, final String description) {
        return Counter.builder(name).description(description).tag("application", AppIds.EXTRACTOR)
            .register(registry);
    }
}
