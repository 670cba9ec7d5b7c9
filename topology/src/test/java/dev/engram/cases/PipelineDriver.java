package dev.engram.cases;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.Message;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.embedded.EmbeddedVectorIndexFactory;
import dev.engram.embedded.KeyValueContradictionJudge;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.embedded.RuleBasedExtractor;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.ScoredMemory;
import dev.engram.serde.AvroSerdes;
import dev.engram.topology.ConsolidationTopology;
import dev.engram.topology.ExtractionTopology;
import dev.engram.topology.RetrievalTopology;
import dev.engram.topology.Stores;
import dev.engram.topology.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The whole offline pipeline on TopologyTestDriver: the real rule-based extractor and MiniLM model
 * (extraction topology) → consolidation topology → the retriever's read model, with retrieval
 * ranked by the retriever's {@link HybridScorer} over the read model's store, and the
 * consolidator's {@code user-profiles} fed back to the extractor's profiles table. Records flow
 * topic by topic in order, exactly as through the broker with one partition per user.
 *
 * <p>Conversations can also be replayed from their candidates ({@link #replayCandidates}) to
 * check that consolidation alone rebuilds the same state.
 */
final class PipelineDriver implements AutoCloseable {

    private final Path stateDir;
    private final TopologyTestDriver extraction;
    private final TopologyTestDriver consolidation;
    private final TopologyTestDriver retrieval;
    private final TestInputTopic<String, ConversationCompleted> conversations;
    private final TestOutputTopic<String, MemoryCandidate> candidatesOut;
    private final TestInputTopic<String, MemoryCandidate> candidatesIn;
    private final TestOutputTopic<String, MemoryUpdated> updatedOut;
    private final TestInputTopic<String, MemoryUpdated> updatedIn;
    private final TestOutputTopic<String, UserProfile> profilesOut;
    private final TestInputTopic<String, UserProfile> profilesIn;
    private final List<TestRecord<String, MemoryCandidate>> candidateLog = new ArrayList<>();
    private final List<MemoryUpdated> updates = new ArrayList<>();
    private final HybridScorer scorer;

    PipelineDriver() {
        try {
            stateDir = Files.createTempDirectory("engram-pipeline-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        final EngramConfig config = EngramConfig.defaults().with(Map.of(EngramConfig.STATE_DIR, stateDir.toString()));
        final Embedder embedder = ScriptRoutedEmbedder.defaults();
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        extraction = new TopologyTestDriver(
            ExtractionTopology.build(config, new RuleBasedExtractor(), embedder, registry),
            ExtractionTopology.config(config));
        consolidation = new TopologyTestDriver(
            ConsolidationTopology.build(config, new KeyValueContradictionJudge(), new EmbeddedVectorIndexFactory(), registry),
            ConsolidationTopology.config(config));
        retrieval = new TopologyTestDriver(RetrievalTopology.build(config), RetrievalTopology.config(config));
        final StringSerializer keys = new StringSerializer();
        final StringDeserializer keyReader = new StringDeserializer();
        conversations = extraction.createInputTopic(Topics.CONVERSATIONS_COMPLETED, keys,
            AvroSerdes.serde(ConversationCompleted.class).serializer());
        candidatesOut = extraction.createOutputTopic(Topics.MEMORY_CANDIDATES, keyReader,
            AvroSerdes.serde(MemoryCandidate.class).deserializer());
        candidatesIn = consolidation.createInputTopic(Topics.MEMORY_CANDIDATES, keys,
            AvroSerdes.serde(MemoryCandidate.class).serializer());
        updatedOut = consolidation.createOutputTopic(Topics.MEMORY_UPDATED, keyReader,
            AvroSerdes.serde(MemoryUpdated.class).deserializer());
        updatedIn = retrieval.createInputTopic(Topics.MEMORY_UPDATED, keys,
            AvroSerdes.serde(MemoryUpdated.class).serializer());
        profilesOut = consolidation.createOutputTopic(Topics.USER_PROFILES, keyReader,
            AvroSerdes.serde(UserProfile.class).deserializer());
        profilesIn = extraction.createInputTopic(Topics.USER_PROFILES, keys,
            AvroSerdes.serde(UserProfile.class).serializer());
        scorer = new HybridScorer(embedder, config);
    }

    /**
     * Builds a conversation the way a chat platform publishes it.
     *
     * @param tenant tenant
     * @param user user
     * @param conversationId conversation id
     * @param turns alternating role and content pairs are not needed: each turn is {role, content, ISO time}
     * @return the record
     */
    static ConversationCompleted conversation(final String tenant, final String user, final String conversationId,
                                              final String[]... turns) {
        final List<Message> messages = new ArrayList<>();
        for (int i = 0; i < turns.length; i++) {
            messages.add(new Message(i, turns[i][0], turns[i][1], Instant.parse(turns[i][2])));
        }
        return ConversationCompleted.newBuilder().setTenantId(tenant).setUserId(user)
            .setConversationId(conversationId).setMessages(messages)
            .setCompletedAt(messages.get(messages.size() - 1).getTimestamp()).build();
    }

    /** @return a user turn {role, content, time} */
    static String[] user(final String content, final String isoTime) {
        return new String[] {"user", content, isoTime};
    }

    /** @return an assistant turn {role, content, time} */
    static String[] assistant(final String content, final String isoTime) {
        return new String[] {"assistant", content, isoTime};
    }

    /**
     * Publishes conversations and lets every stage process them, in order.
     *
     * @param records conversations, keyed by their user
     */
    void publish(final ConversationCompleted... records) {
        publishAt(null, records);
    }

    /**
     * Publishes conversations with a record time of their own (a backfill years later), or each at its
     * completedAt when {@code recordTime} is null.
     *
     * @param recordTime the Kafka record timestamp, or null
     * @param records conversations, keyed by their user
     */
    void publishAt(final Instant recordTime, final ConversationCompleted... records) {
        for (final ConversationCompleted c : records) {
            conversations.pipeInput(new UserKey(c.getTenantId(), c.getUserId()).wire(), c,
                recordTime == null ? c.getCompletedAt() : recordTime);
            final List<TestRecord<String, MemoryCandidate>> produced = candidatesOut.readRecordsToList();
            candidateLog.addAll(produced);
            consolidate(produced);
        }
    }

    /**
     * Re-delivers candidates to consolidation (as after a lost offset commit or a reset).
     *
     * @param records candidates as they were on memory-candidates
     */
    void replayCandidates(final List<TestRecord<String, MemoryCandidate>> records) {
        consolidate(records);
    }

    private void consolidate(final List<TestRecord<String, MemoryCandidate>> records) {
        for (final TestRecord<String, MemoryCandidate> r : records) {
            candidatesIn.pipeInput(r);
            for (final TestRecord<String, MemoryUpdated> u : updatedOut.readRecordsToList()) {
                updates.add(u.value());
                updatedIn.pipeInput(u);
            }
            profilesOut.readRecordsToList().forEach(profilesIn::pipeInput);
        }
    }

    /** @return every candidate the extractor wrote so far, in order */
    List<TestRecord<String, MemoryCandidate>> candidates() {
        return List.copyOf(candidateLog);
    }

    /** @return every memory-updated event so far, in order */
    List<MemoryUpdated> updates() {
        return List.copyOf(updates);
    }

    /**
     * @param tenant tenant
     * @param user user
     * @return the user's memories in the retriever's read model, every status
     */
    List<Memory> memories(final String tenant, final String user) {
        return scan(retrieval.getKeyValueStore(Stores.RETRIEVER_MEMORIES), new UserKey(tenant, user));
    }

    /**
     * @param tenant tenant
     * @param user user
     * @return the user's memories in the consolidator's store, every status
     */
    List<Memory> consolidatorMemories(final String tenant, final String user) {
        return scan(consolidation.getKeyValueStore(Stores.MEMORIES), new UserKey(tenant, user));
    }

    /** @return the active memories of the user in the read model */
    List<Memory> active(final String tenant, final String user) {
        return memories(tenant, user).stream().filter(m -> m.getStatus() == MemoryStatus.ACTIVE).toList();
    }

    /** @return the retriever's profile of the user, or null */
    UserProfile profile(final String tenant, final String user) {
        final KeyValueStore<String, UserProfile> store = retrieval.getKeyValueStore(Stores.RETRIEVER_PROFILES);
        return store.get(new UserKey(tenant, user).wire());
    }

    /**
     * Ranks the user's memories for a query as the retriever's API does.
     *
     * @param tenant tenant
     * @param user user
     * @param query query text
     * @param k top k
     * @return hits, best first
     */
    List<ScoredMemory> retrieve(final String tenant, final String user, final String query, final int k) {
        return scorer.rank(query, memories(tenant, user), k);
    }

    /** @return every entry of the consolidator's memories store, as a sorted snapshot for equality */
    Map<String, Memory> consolidatorSnapshot() {
        final Map<String, Memory> snapshot = new java.util.TreeMap<>();
        final KeyValueStore<String, Memory> store = consolidation.getKeyValueStore(Stores.MEMORIES);
        try (KeyValueIterator<String, Memory> it = store.all()) {
            it.forEachRemaining(kv -> snapshot.put(kv.key, kv.value));
        }
        return snapshot;
    }

    private static List<Memory> scan(final KeyValueStore<String, Memory> store, final UserKey user) {
        final List<Memory> out = new ArrayList<>();
        try (KeyValueIterator<String, Memory> it = store.prefixScan(user.storePrefix(), new StringSerializer())) {
            while (it.hasNext()) {
                final KeyValue<String, Memory> kv = it.next();
                out.add(kv.value);
            }
        }
        return out;
    }

    @Override
    public void close() {
        extraction.close();
        consolidation.close();
        retrieval.close();
        try (var files = Files.walk(stateDir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: the directory is under the build's temp dir
        }
    }
}
