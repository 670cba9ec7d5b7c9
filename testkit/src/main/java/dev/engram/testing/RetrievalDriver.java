package dev.engram.testing;

import static dev.engram.testing.DriverTopics.input;

import java.util.ArrayList;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryAccessed;
import dev.engram.avro.MemoryUpdated;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.RankRequest;
import dev.engram.scoring.ScoredMemory;
import dev.engram.topics.Topic;
import dev.engram.topology.MaterializeMemoriesProcessor;
import dev.engram.topology.RetrievalTopology;
import dev.engram.topology.StoreNames;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The retrieval topology (the retriever's read model) of a {@link PipelineHarness}: its driver starts on first use
 * and is then given every {@code memory-updated} and {@code memory-access} record recorded so far, in order.
 */
final class RetrievalDriver implements AutoCloseable {

    private final EngramConfig config;
    /** The read model's inputs in order ({@code memory-updated} and {@code memory-access} records), for a late start. */
    private final List<TestRecord<String, ?>> inputs = new ArrayList<>();
    private final Stage stage;
    private TopologyTestDriver driver;
    private TestInputTopic<String, MemoryUpdated> updatedIn;
    private TestInputTopic<String, MemoryAccessed> accessIn;
    private HybridScorer scorer;

    RetrievalDriver(final EngramConfig config) {
        this.config = config;
        stage = new Stage(this::driver, StoreNames.RETRIEVER_MEMORIES, StoreNames.RETRIEVER_PROFILES,
            StoreNames.RETRIEVER_ACCESS);
    }

    /** The driver, started (and given every record so far) on first use. */
    TopologyTestDriver driver() {
        if (driver == null) {
            driver = new TopologyTestDriver(RetrievalTopology.build(config), RetrievalTopology.config(config));
            updatedIn = input(driver, Topic.MEMORY_UPDATED, config);
            accessIn = input(driver, Topic.MEMORY_ACCESS, config);
            inputs.forEach(this::pipe);
        }
        return driver;
    }

    /** The read model's stores. */
    Stage stage() {
        return stage;
    }

    /** Records one {@code memory-updated} or {@code memory-access} record, piped at once if the driver runs. */
    void record(final TestRecord<String, ?> record) {
        inputs.add(record);
        if (driver != null) {
            pipe(record);
        }
    }

    @SuppressWarnings("unchecked")
    private void pipe(final TestRecord<String, ?> record) {
        if (record.value() instanceof MemoryAccessed) {
            accessIn.pipeInput((TestRecord<String, MemoryAccessed>) record);
        } else {
            updatedIn.pipeInput((TestRecord<String, MemoryUpdated>) record);
        }
    }

    /** The memory's versions in {@code retriever-history-store}, in key order. */
    List<MemoryUpdated> history(final String user, final String memoryId) {
        final KeyValueStore<String, MemoryUpdated> store = driver().getKeyValueStore(StoreNames.RETRIEVER_HISTORY);
        final List<MemoryUpdated> out = new ArrayList<>();
        try (KeyValueIterator<String, MemoryUpdated> it = store.prefixScan(
            MaterializeMemoriesProcessor.historyPrefix(UserKey.parse(user), memoryId), new StringSerializer())) {
            it.forEachRemaining(kv -> out.add(kv.value));
        }
        return out;
    }

    /** Ranks the user's read-model memories for a query as the retriever's API does ({@link HybridScorer}). */
    List<ScoredMemory> rank(final String user, final String query, final int k) {
        if (scorer == null) {
            scorer = new HybridScorer(ScriptRoutedEmbedder.fromConfig(config), config);
        }
        // the read model joins each memory with its retrieval hits, as the retriever's index does
        final List<Memory> memories = stage.memories(user).stream()
            .map(m -> stage.hits(user, m.getMemoryId()).applyTo(m)).toList();
        return scorer.forList(n -> scorer.rank(RankRequest.of(query, n).memories(memories)), k); // as GET …/memories?query= ranks a list
    }

    @Override
    public void close() {
        if (driver != null) {
            driver.close();
        }
    }
}
