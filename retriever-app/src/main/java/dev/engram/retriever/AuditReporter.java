package dev.engram.retriever;

import dev.engram.avro.AuditRecord;

/**
 * Where the retriever's audit records go ({@code memory-audit}). Implementations never block the
 * request for long and never throw.
 */
public interface AuditReporter extends AutoCloseable {

    /** @param record one audit record (no memory content) */
    void record(AuditRecord record);

    @Override
    default void close() {
    }
}
