package dev.engram.retriever;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import java.util.concurrent.atomic.AtomicLong;

import dev.engram.core.UserKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes access reports off the request thread and sends them per user and batch: {@link #report} only enqueues
 * (a bounded queue of {@value #CAPACITY} reports; when it is full the report is dropped and counted, as access
 * counts are a ranking signal, not a ledger), and one daemon thread collects what arrives within
 * {@code retriever.access.linger.ms} ({@link #DEFAULT_LINGER_MS} ms by default) of the first queued report (at most {@value #BATCH} reports), then hands the
 * delegate one report per user: the memory ids of that user's requests in order, an id once per request that
 * returned it (the consolidator raises a memory's access count by the number of times it is listed, so access
 * counts mean what they meant). One record and one consolidator write per user and batch instead of per request:
 * JFR of {@code bench retrieval} at saturation put the access loop (the consolidator applying each report, the
 * retriever materializing each resulting {@code memory-updated}, the broker between them) at ~60 % of the JVM's
 * Java samples (docs/benchmark-history.md, "Retrieval"). An access is applied up to the linger later than without
 * batching. {@link #close} drains what is queued, then closes the delegate.
 */
public final class BatchingAccessReporter implements AccessReporter {

    /** Reports held at most while the sender is behind. */
    static final int CAPACITY = 10_000;
    /** Reports handed over per wake-up at most. */
    static final int BATCH = 500;
    /**
     * How long the sender collects reports after the first one of a batch, ms. Each batch is one record per user, and
     * the consolidator and the retriever each fold a record in an exactly-once transaction and copy every memory it
     * hit into the search index under the user's write lock: at 250 ms a JFR of {@code bench retrieval} at saturation
     * had the broker's transaction work (AddPartitionsToTxn, EndTxn, markers) as the largest part of its CPU. A second
     * is a quarter of those records and transactions at any request rate; a hit counts in ranking (access count,
     * recency: days) up to a second later.
     */
    public static final long DEFAULT_LINGER_MS = 1000;

    /** One request's report. */
    record Report(UserKey user, List<String> memoryIds) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(BatchingAccessReporter.class);

    private final AccessReporter delegate;
    private final BackgroundBatches<Report> batches;
    private final AtomicLong dropped = new AtomicLong();
    private final long lingerMs;

    /** @param delegate sends the grouped reports (owned: closed by {@link #close}) */
    public BatchingAccessReporter(final AccessReporter delegate) {
        this(delegate, DEFAULT_LINGER_MS);
    }

    /**
     * @param config {@code retriever.access.linger.ms} ({@link RetrieverConfig#ACCESS_LINGER_MS})
     * @param delegate sends the grouped reports (owned: closed by {@link #close})
     * @return a reporter collecting for that long
     */
    public static BatchingAccessReporter from(final dev.engram.config.EngramConfig config, final AccessReporter delegate) {
        return new BatchingAccessReporter(delegate, config.getLong(RetrieverConfig.ACCESS_LINGER_MS));
    }

    /**
     * @param delegate sends the grouped reports (owned)
     * @param lingerMs how long to collect after the first report of a batch
     */
    public BatchingAccessReporter(final AccessReporter delegate, final long lingerMs) {
        this.delegate = delegate;
        this.lingerMs = lingerMs;
        this.batches = new BackgroundBatches<>("engram-access-reporter", "access reports (memory-access)", CAPACITY,
            BATCH, lingerMs, batch -> perUser(batch).forEach(delegate::report));
    }

    @Override
    public void report(final UserKey user, final List<String> memoryIds) {
        if (memoryIds.isEmpty()) {
            return;
        }
        if (!batches.offer(new Report(user, List.copyOf(memoryIds))) && dropped.incrementAndGet() % 1000 == 1) {
            LOG.warn("Access reports are dropped: the memory-access sender is behind ({} so far)", dropped.get());
        }
    }

    /** @return how long the sender collects after the first report of a batch, ms */
    public long lingerMs() {
        return lingerMs;
    }

    /** @return reports dropped because the queue was full */
    public long dropped() {
        return dropped.get();
    }

    /**
     * @param batch reports in arrival order
     * @return per user (in order of first report), the memory ids of all its reports in order, repeats kept
     */
    static Map<UserKey, List<String>> perUser(final List<Report> batch) {
        final Map<UserKey, List<String>> out = new LinkedHashMap<>();
        for (final Report r : batch) {
            out.computeIfAbsent(r.user(), u -> new ArrayList<>()).addAll(r.memoryIds());
        }
        return out;
    }

    @Override
    public void close() {
        batches.close();
        delegate.close();
    }
}
