package dev.engram.retriever;

import dev.engram.avro.AuditRecord;

/**
 * Takes audit records off the request thread ({@link BackgroundBatches}): {@link #record} only enqueues, and one
 * daemon thread hands what arrived within {@value #LINGER_MS} ms of the first queued record to the delegate, which
 * encodes and produces each to {@code memory-audit}. The Avro encoding and the producer's append leave the request
 * path, and the records of a batch reach the producer together, so they go to the broker in fewer produce requests
 * than one record per request with the producer's own linger. Audit records are a ledger, never dropped: when the
 * queue is full the record is handed to the delegate on the caller's thread, as it was before. {@link #close}
 * drains what is queued, then closes the delegate.
 */
final class BatchingAuditReporter implements AuditReporter {

    /** Records held at most while the sender is behind; beyond that, the caller sends. */
    static final int CAPACITY = 10_000;
    /** Records handed over per wake-up at most. */
    static final int BATCH = 1_000;
    /** How long the sender collects records after the first one of a batch, ms. */
    static final long LINGER_MS = 100;

    private final AuditReporter delegate;
    private final BackgroundBatches<AuditRecord> batches;

    /** @param delegate encodes and sends each record (owned: closed by {@link #close}) */
    BatchingAuditReporter(final AuditReporter delegate) {
        this.delegate = delegate;
        this.batches = new BackgroundBatches<>("engram-audit-reporter", "audit records (memory-audit)", CAPACITY, BATCH,
            LINGER_MS, batch -> batch.forEach(delegate::record));
    }

    @Override
    public void record(final AuditRecord record) {
        if (!batches.offer(record)) {
            delegate.record(record);
        }
    }

    @Override
    public void close() {
        try {
            batches.close();
        } finally {
            delegate.close();
        }
    }
}
