package dev.engram.qdrant;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.core.MemoryIds;
import dev.engram.core.UserKey;
import dev.engram.rules.KeyValueContradictionJudge;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.qdrant.testing.QdrantDouble;
import dev.engram.runtime.StreamsRunner;
import dev.engram.scoring.Vectors;
import dev.engram.serde.AvroSerdes;
import dev.engram.streams.PipelineConfig;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.topology.ConsolidationTopology;
import dev.engram.topology.RetryingVectorIndex;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * The consolidator with Qdrant under exactly_once_v2 on the in-process broker, Qdrant being the wire
 * double: while Qdrant is down the task retries and rewinds but never moves past the record (no
 * output, no commit beyond it), and when Qdrant is back it resumes by itself, each memory created
 * exactly once and indexed.
 */
class QdrantConsolidationIT {

    private static final UserKey USER = new UserKey("t1", "u-it");
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startCluster() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(1, Topic.allNames());
    }

    @AfterAll
    static void stopCluster() throws Exception {
        kafka.close();
    }

    @Test
    void shouldHoldTheRecordWhileQdrantIsDownAndResumeByItselfWhenItIsBack() throws Exception {
        final MemoryCandidate lyon = candidate("c-1", "2025-12-01T09:00:00Z", "city", "Lyon", "I live in Lyon.");
        final MemoryCandidate hike = candidate("c-2", "2025-12-02T09:00:00Z", null, null, "Hiked in Geres with my sister.");
        final MemoryCandidate kotlin = candidate("c-3", "2025-12-03T09:00:00Z", "preferred_language", "Kotlin",
            "I write almost everything in Kotlin.");
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final Duration timeout = Duration.ofSeconds(5); // a call to the in-process double can take seconds at load 10+
        final EngramConfig config = kafka.engramConfig(Map.of(PipelineConfig.QDRANT_RETRY_BUDGET_MS, 1000));
        try (QdrantDouble qdrant = QdrantDouble.start();
             QdrantVectorIndexFactory factory = new QdrantVectorIndexFactory(new QdrantVectorIndex(
                 qdrant.client(timeout), "engram-memories", ScriptRoutedEmbedder.defaults().modelName(), timeout,
                 ScriptRoutedEmbedder.defaults().dimensions(), registry))) {
            final StreamsRunner runner = new StreamsRunner(
                ConsolidationTopology.build(config, new KeyValueContradictionJudge(), factory, registry),
                ConsolidationTopology.config(config), "consolidator", registry,
                RetryingVectorIndex::isIndexOutage);
            final KafkaStreams streams = runner.kafkaStreams();
            try {
                runner.start();
                send(lyon);
                assertThat(updated(1, Duration.ofSeconds(60))).extracting(r -> r.value().getMemoryId())
                    .containsExactly(lyon.getCandidateId());
                assertThat(factory.index().count(USER)).isEqualTo(1);

                qdrant.stop();
                send(hike);
                send(kotlin);
                // One rewind per spent budget, each a thread replacement: two = it came back to the same record.
                EmbeddedKafka.waitUntil(() -> rewinds(registry) >= 2, Duration.ofSeconds(120), "two rewinds");
                assertThat(streams.state()).isIn(KafkaStreams.State.RUNNING, KafkaStreams.State.REBALANCING);
                assertThat(updated(2, Duration.ofSeconds(2))).hasSize(1);
                final OffsetAndMetadata committed = kafka.admin().listConsumerGroupOffsets(AppIds.CONSOLIDATOR)
                    .partitionsToOffsetAndMetadata().get().get(new TopicPartition(Topic.MEMORY_CANDIDATES.name(), 0));
                assertThat(committed.offset()).as("nothing committed past the held record").isEqualTo(1);

                qdrant.startServer();
                final List<ConsumerRecord<String, MemoryUpdated>> after = updated(3, Duration.ofSeconds(60));
                assertThat(after).extracting(r -> r.value().getOperation())
                    .containsExactly(UpdateOperation.CREATED, UpdateOperation.CREATED, UpdateOperation.CREATED);
                assertThat(after).extracting(r -> r.value().getMemoryId())
                    .containsExactly(lyon.getCandidateId(), hike.getCandidateId(), kotlin.getCandidateId());
                assertThat(factory.index().count(USER)).isEqualTo(3);
                EmbeddedKafka.waitUntil(() -> streams.state() == KafkaStreams.State.RUNNING, Duration.ofSeconds(120),
                    "RUNNING");
            } finally {
                runner.close(Duration.ofSeconds(30));
                streams.cleanUp();
            }
        }
    }

    private static double rewinds(final SimpleMeterRegistry registry) {
        return registry.find("engram.vector.index.rewinds").counters().stream().mapToDouble(Counter::count).sum();
    }

    private static List<ConsumerRecord<String, MemoryUpdated>> updated(final int expected, final Duration timeout) {
        return kafka.read(Topic.MEMORY_UPDATED.name(), new StringDeserializer(),
            AvroSerdes.serde(MemoryUpdated.class).deserializer(), expected, timeout);
    }

    private static void send(final MemoryCandidate candidate) {
        kafka.send(Topic.MEMORY_CANDIDATES.name(), new StringSerializer(), AvroSerdes.serde(MemoryCandidate.class).serializer(),
            List.of(new EmbeddedKafka.Record<>(USER.wire(), candidate, candidate.getEventTime())));
    }

    private static MemoryCandidate candidate(final String conversationId, final String at, final String key,
                                             final String value, final String content) {
        return MemoryCandidate.newBuilder()
            .setCandidateId(MemoryIds.candidateId(USER.tenantId(), USER.userId(), conversationId, content))
            .setTenantId(USER.tenantId()).setUserId(USER.userId()).setConversationId(conversationId)
            .setType(key == null ? MemoryType.EPISODIC : MemoryType.SEMANTIC)
            .setCategory(key == null ? null : "city".equals(key) ? FactCategory.CONTEXT : FactCategory.TECHNICAL)
            .setKey(key).setValue(value).setDisplayName(null)
            .setContent(content).setNegated(false).setImportance(0.7).setConfidence(0.9)
            .setSource(MemorySource.EXPLICIT).setSourceMessageIndexes(List.of(0))
            .setEventTime(Instant.parse(at))
            .setEmbedding(Vectors.toList(ScriptRoutedEmbedder.defaults().embed(content)))
            .setEmbeddingModel(ScriptRoutedEmbedder.defaults().modelName()).setExtractor("fed-by-test").build();
    }
}
