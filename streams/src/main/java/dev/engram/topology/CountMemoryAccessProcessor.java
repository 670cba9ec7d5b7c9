package dev.engram.topology;

import java.util.Map;

import dev.engram.avro.MemoryAccessed;
import dev.engram.core.UserKey;
import dev.engram.scoring.AccessCounts;
import dev.engram.scoring.SearchIndexes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * {@code count-memory-access}: folds the retriever's own {@code memory-access} records into
 * {@link StoreNames#RETRIEVER_ACCESS} ({@link AccessStore}: the consolidator folds the same records by the same rule) and
 * hands each memory's new counts to the search structures ({@link SearchIndexes#access}), where ranking and answers
 * join them with the memory. So a query's hits reach the next query's ranking without a round trip through the
 * consolidator and without rewriting any memory. Forwards nothing.
 *
 * <p>Input: key = user key, value = MemoryAccessed (the erasure ledger {@link StoreNames#RETRIEVER_ERASURES} drops hits
 * of an erased user stamped at or before the erasure). Shares {@link StoreNames#RETRIEVER_ACCESS} and the ledger with
 * {@code materialize-memories}, which forgets a deleted memory's counts and an erased user's.
 */
public final class CountMemoryAccessProcessor implements Processor<String, MemoryAccessed, Void, Void> {

    private final SearchIndexes indexes;
    private ProcessorContext<Void, Void> context;
    private AccessStore access;
    private KeyValueStore<String, Long> erasures;
    private int partition;

    /** @param indexes the search structures told of every memory's new counts */
    public CountMemoryAccessProcessor(final SearchIndexes indexes) {
        this.indexes = indexes;
    }

    @Override
    public void init(final ProcessorContext<Void, Void> context) {
        this.context = context;
        this.access = new AccessStore(context.getStateStore(StoreNames.RETRIEVER_ACCESS));
        this.erasures = context.getStateStore(StoreNames.RETRIEVER_ERASURES);
        this.partition = context.taskId().partition();
    }

    @Override
    public void process(final Record<String, MemoryAccessed> record) {
        final UserKey user = AccessStore.userOf(record, context.recordMetadata().map(RecordMetadata::toString).orElse("?"));
        if (user == null) {
            return;
        }
        final Map<String, AccessCounts> counts = access.fold(user, record.value(), erasures.get(user.wire()));
        counts.forEach((memoryId, after) -> indexes.access(partition, user, memoryId, after));
    }
}
