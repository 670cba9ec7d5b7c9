package dev.engram.topology;

import java.time.Duration;
import java.util.function.LongSupplier;

import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * Commits a task's output as soon as its input goes quiet, instead of waiting for {@code commit.interval.ms}.
 * Under exactly-once, what a task writes becomes readable only when its transaction commits; a memory crosses
 * two such hops (extractor, consolidator) before the retriever can serve it, so on an idle pipeline each hop
 * waited half the commit interval on average and the whole interval at worst ({@code bench freshness}). Here a
 * wall-clock punctuation every {@value #QUIET_MS} ms asks Kafka Streams to commit ({@link ProcessorContext#commit},
 * honoured in the same loop of the stream thread) when the task produced output and received no input for
 * {@value #QUIET_MS} ms. Under a steady stream the input is never quiet, so the commit interval still batches
 * the transactions and throughput is unchanged.
 */
final class IdleCommit {

    /** Input quiet for this long, with output pending, commits; also the punctuation's period. */
    static final long QUIET_MS = 5;
    private static final long QUIET_NANOS = Duration.ofMillis(QUIET_MS).toNanos();

    private final ProcessorContext<?, ?> context;
    private final LongSupplier nanoTime;
    private long lastInput;
    private boolean pending;

    /** @param context the task's context (the punctuation is scheduled on it) */
    IdleCommit(final ProcessorContext<?, ?> context) {
        this(context, System::nanoTime);
    }

    /**
     * @param context the task's context (the punctuation is scheduled on it)
     * @param nanoTime the monotonic clock the quiet time is read on ({@link System#nanoTime})
     */
    IdleCommit(final ProcessorContext<?, ?> context, final LongSupplier nanoTime) {
        this.context = context;
        this.nanoTime = nanoTime;
        this.lastInput = nanoTime.getAsLong();
        context.schedule(Duration.ofMillis(QUIET_MS), PunctuationType.WALL_CLOCK_TIME, now -> check());
    }

    /**
     * The task is done with a record (call it after every record, however it ended): the quiet time counts from here,
     * not from the record's arrival (the punctuation cannot run while a record is processed). A record whose
     * processing takes longer than {@value #QUIET_MS} ms (the extractor waiting for a free slot with
     * {@code extractor.max.in.flight} conversations in flight, a consolidator record running the lifecycle pass) is
     * not a quiet input: counted from the arrival, a backlog committed after nearly every such record instead of
     * every {@code commit.interval.ms} — in {@code bench extraction} about once per conversation, each commit a
     * transaction with its markers on every partition written.
     */
    void processed() {
        lastInput = nanoTime.getAsLong();
    }

    /** The task forwarded or stored something that a commit makes visible. */
    void output() {
        pending = true;
    }

    private void check() {
        if (pending && nanoTime.getAsLong() - lastInput >= QUIET_NANOS) {
            pending = false;
            context.commit();
        }
    }
}
