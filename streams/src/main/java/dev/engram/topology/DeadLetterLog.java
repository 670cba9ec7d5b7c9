package dev.engram.topology;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.WeakHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.slf4j.Logger;

/**
 * The log lines of one dead-letter topic, rate-limited: the first {@value #FIRST_PER_KIND} dead letters of each kind
 * (stage and error class, e.g. {@code deserialization org.apache.kafka.common.errors.SerializationException}) are a
 * WARN line each, with the reason; after that a kind is counted, and every {@link #SUMMARY_INTERVAL} one WARN line
 * gives the counts per kind not logged since. Every dead letter was a line: 200,000 bad records in the demo gave
 * 200,004 lines (52 MB of log). The records themselves, with their reasons in headers, are still all on the
 * dead-letter topic, and every one is still counted in {@value DeadLetters#METER}.
 *
 * <p>Thread-safe. One daemon thread per JVM writes the summaries of every live instance ({@link #summarizeAll}).
 */
public final class DeadLetterLog {

    /** Dead letters of one kind logged one by one, over the life of the instance. */
    static final int FIRST_PER_KIND = 10;
    /** How often the counts of the dead letters not logged one by one are written. */
    static final Duration SUMMARY_INTERVAL = Duration.ofSeconds(30);

    private static final Set<DeadLetterLog> LIVE = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread thread = new Thread(r, "engram-dead-letter-log");
        thread.setDaemon(true);
        return thread;
    });

    static {
        TIMER.scheduleAtFixedRate(DeadLetterLog::summarizeAll, SUMMARY_INTERVAL.toMillis(), SUMMARY_INTERVAL.toMillis(),
            TimeUnit.MILLISECONDS);
    }

    private final String topic;
    private final Logger log;
    private final Map<String, Long> logged = new HashMap<>();
    private final Map<String, Long> unlogged = new TreeMap<>();

    /**
     * @param topic the dead-letter topic the lines name
     * @param log where the lines go
     */
    DeadLetterLog(final String topic, final Logger log) {
        this.topic = topic;
        this.log = log;
        LIVE.add(this);
    }

    /**
     * One dead letter: a WARN line while its kind has had fewer than {@value #FIRST_PER_KIND}, else counted for the
     * next summary.
     *
     * @param stage the dead-letter stage
     * @param errorClass the exception class or rule name
     * @param where {@code topic-partition@offset} of the record
     * @param reason why
     */
    synchronized void record(final String stage, final String errorClass, final String where, final String reason) {
        final String kind = stage + " " + errorClass;
        final long seen = logged.merge(kind, 1L, Long::sum);
        if (seen <= FIRST_PER_KIND) {
            log.warn("Dead letter to {} ({} at {}): {}", topic, stage, where, reason);
            if (seen == FIRST_PER_KIND) {
                log.warn("Dead letters to {}: {} of kind '{}' logged; the next ones of this kind are counted and "
                    + "summed up every {} s (all are on the topic, with their reasons in headers)", topic,
                    FIRST_PER_KIND, kind, SUMMARY_INTERVAL.toSeconds());
            }
            return;
        }
        unlogged.merge(kind, 1L, Long::sum);
    }

    /** Writes the counts of the dead letters not logged one by one since the last summary, if any. */
    synchronized void summarize() {
        if (unlogged.isEmpty()) {
            return;
        }
        final long total = unlogged.values().stream().mapToLong(Long::longValue).sum();
        log.warn("Dead letters to {} not logged one by one since the last summary: {} ({})", topic,
            String.format(Locale.ROOT, "%,d", total), unlogged.entrySet().stream()
                .map(e -> String.format(Locale.ROOT, "%s: %,d", e.getKey(), e.getValue()))
                .collect(Collectors.joining("; ")));
        unlogged.clear();
    }

    /** Writes the summary of every live instance: the timer's task, every {@link #SUMMARY_INTERVAL}. */
    static void summarizeAll() {
        final List<DeadLetterLog> live;
        synchronized (LIVE) {
            live = List.copyOf(LIVE);
        }
        live.forEach(DeadLetterLog::summarize);
    }
}
