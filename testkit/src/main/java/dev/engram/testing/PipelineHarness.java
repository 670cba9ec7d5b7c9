package dev.engram.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;

import dev.engram.avro.AuditRecord;
import dev.engram.avro.ContradictionDetected;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.avro.LlmUsage;
import dev.engram.avro.MemoryAccessed;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.Message;
import dev.engram.avro.TenantSettings;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.store.EmbeddedVectorIndexFactory;
import dev.engram.rules.KeyValueContradictionJudge;
import dev.engram.rules.RuleBasedExtractor;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.ContradictionJudge;
import dev.engram.port.Embedder;
import dev.engram.port.MemoryExtractor;
import dev.engram.port.MemoryMerger;
import dev.engram.port.VectorIndexFactory;
import dev.engram.scoring.AccessCounts;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.ScoredMemory;
import dev.engram.topology.ConsolidationTopology;
import dev.engram.topology.ExtractionTopology;
import dev.engram.topology.MaterializeMemoriesProcessor;
import dev.engram.topology.RetrievalTopology;
import dev.engram.topology.StoreNames;
import dev.engram.topology.TenantSettingsTable;
import dev.engram.topics.Topic;
import dev.engram.topology.UserPartitions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;
import dev.engram.scoring.RankRequest;

/**
 * The test harness of every pipeline test: the three topologies on TopologyTestDriver — extraction
 * (the rule-based extractor unless another is given, the default embedder) → consolidation (the
 * key/value contradiction judge, the embedded vector index unless another is given) → the
 * retriever's read model — with each stage's output piped into the next, topic by topic and record
 * by record, exactly as through the broker with one partition per user, and the consolidator's
 * {@code user-profiles} fed back to the extractor's profiles table.
 *
 * <p>Input can enter at any stage: conversations ({@link #publish}, or {@link #extract} to stop after
 * extraction and {@link #consolidate} the candidates later), candidates ({@link #pipe}), raw bytes on
 * {@code memory-candidates} ({@link #pipeBytes}), commands ({@link #command}) and access reports
 * ({@link #access}). After every input the outputs are drained: {@link #updated()},
 * {@link #contradictions()}, {@link #archived()}, {@link #deadLetters()}, {@link #audits()} and
 * {@link #profileLog()} return everything emitted so far, in order. The stores are read through
 * {@link #consolidator()} (the consolidator's memories and profiles) and {@link #retriever()} (the read
 * model); {@link #retrieve} ranks as the retriever's API does.
 *
 * <p>Users are named by their topic key, {@code tenant/user} ({@link UserKey#wire()}). Each harness has
 * its own state directory, deleted on {@link #close()}. The extraction and retrieval stages start on
 * first use and are then given everything their input topic carried so far, so a consolidation-only
 * test costs one driver.
 */
public final class PipelineHarness implements AutoCloseable {

    private final Path stateDir;
    private final MeterRegistry consolidatorMeters = new SimpleMeterRegistry();
    private final EngramConfig config;
    private final MemoryExtractor extractor;
    private final TopologyTestDriver consolidation;
    private final TestInputTopic<String, MemoryCandidate> candidatesIn;
    private final TestInputTopic<String, byte[]> rawCandidatesIn;
    private final TestInputTopic<String, MemoryCommand> commandsIn;
    private final TestInputTopic<String, MemoryAccessed> accessIn;
    private final TestOutputTopic<String, MemoryUpdated> updatedOut;
    private final TestOutputTopic<String, ContradictionDetected> contradictionsOut;
    private final TestOutputTopic<String, MemoryArchived> archivedOut;
    private final TestOutputTopic<String, AuditRecord> auditOut;
    private final TestOutputTopic<String, byte[]> deadLetterOut;
    private final TestOutputTopic<String, UserProfile> profilesOut;
    private final List<TestRecord<String, MemoryCandidate>> candidateLog = new ArrayList<>();
    private final List<LlmUsage> usageLog = new ArrayList<>();
    private final List<TestRecord<String, MemoryUpdated>> updated = new ArrayList<>();
    /** The read model's inputs in order ({@code memory-updated} and {@code memory-access} records), for a late start. */
    private final List<TestRecord<String, ?>> retrieverInputs = new ArrayList<>();
    private final List<TestRecord<String, ContradictionDetected>> contradictions = new ArrayList<>();
    private final List<TestRecord<String, MemoryArchived>> archived = new ArrayList<>();
    private final List<TestRecord<String, byte[]>> deadLetters = new ArrayList<>();
    private final List<AuditRecord> audits = new ArrayList<>();
    private final List<TestRecord<String, UserProfile>> profileLog = new ArrayList<>();
    private final Stage consolidatorStage;
    private final Stage retrieverStage;
    private Extraction extraction;
    private Retrieval retrieval;
    private HybridScorer scorer;

    /** The whole pipeline with the default configuration, the rule-based extractor and the embedded index. */
    public PipelineHarness() {
        this(builder());
    }

    /**
     * The whole pipeline with configuration overrides, the rule-based extractor and the embedded index.
     *
     * @param overrides Engram config keys → values, applied over the defaults
     */
    public PipelineHarness(final Map<String, ?> overrides) {
        this(builder().config(overrides));
    }

    private PipelineHarness(final Builder b) {
        try {
            stateDir = Files.createTempDirectory("engram-pipeline-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        config = EngramConfig.plain().with(b.overrides).with(Map.of(EngramConfig.STATE_DIR, stateDir.toString()));
        extractor = b.extractor;
        consolidation = new TopologyTestDriver(
            ConsolidationTopology.build(config, b.judge, MemoryMerger.CONCATENATE, b.observationEmbedder, b.vectorIndex,
                consolidatorMeters),
            ConsolidationTopology.config(config));
        final StringSerializer keys = new StringSerializer();
        final StringDeserializer keyReader = new StringDeserializer();
        candidatesIn = input(consolidation, Topic.MEMORY_CANDIDATES);
        rawCandidatesIn = consolidation.createInputTopic(Topic.MEMORY_CANDIDATES.name(), keys, new ByteArraySerializer());
        commandsIn = input(consolidation, Topic.MEMORY_COMMANDS);
        accessIn = input(consolidation, Topic.MEMORY_ACCESS);
        updatedOut = output(consolidation, Topic.MEMORY_UPDATED);
        contradictionsOut = output(consolidation, Topic.MEMORY_CONTRADICTIONS);
        archivedOut = output(consolidation, Topic.MEMORY_ARCHIVED);
        auditOut = output(consolidation, Topic.MEMORY_AUDIT);
        deadLetterOut = consolidation.createOutputTopic(Topic.deadLetters(AppIds.CONSOLIDATOR).name(), keyReader,
            new ByteArrayDeserializer());
        profilesOut = output(consolidation, Topic.USER_PROFILES);
        consolidatorStage = new Stage(() -> consolidation, StoreNames.MEMORIES, StoreNames.PROFILES, StoreNames.ACCESS);
        retrieverStage = new Stage(() -> retrieval().driver, StoreNames.RETRIEVER_MEMORIES, StoreNames.RETRIEVER_PROFILES,
            StoreNames.RETRIEVER_ACCESS);
    }

    /**
     * The extraction stage, started on first use: it is then given every {@code user-profiles} record
     * so far, in order, so its profiles table is the one it would have had from the start (a test that
     * feeds candidates only never pays for it).
     */
    private Extraction extraction() {
        if (extraction == null) {
            extraction = new Extraction();
            profileLog.forEach(extraction.profilesIn::pipeInput);
        }
        return extraction;
    }

    /**
     * The read model, started on first use and then given every {@code memory-updated} and {@code memory-access}
     * record so far, in order.
     */
    private Retrieval retrieval() {
        if (retrieval == null) {
            retrieval = new Retrieval();
            retrieverInputs.forEach(retrieval::pipe);
        }
        return retrieval;
    }

    /** An input topic of a driver with the topic's own Serdes under this harness's config. */
    private <V> TestInputTopic<String, V> input(final TopologyTestDriver driver, final Topic<String, V> topic) {
        return driver.createInputTopic(topic.name(), topic.keySerializer(), topic.valueSerializer(config));
    }

    /** An output topic of a driver with the topic's own Serdes under this harness's config. */
    private <V> TestOutputTopic<String, V> output(final TopologyTestDriver driver, final Topic<String, V> topic) {
        return driver.createOutputTopic(topic.name(), topic.keyDeserializer(), topic.valueDeserializer(config));
    }

    /** The extraction topology's driver and topics. */
    private final class Extraction {
        // one partition: the driver's records are all on partition 0, where every user key belongs
        final TopologyTestDriver driver = new TopologyTestDriver(ExtractionTopology.build(config, extractor,
            ScriptRoutedEmbedder.fromConfig(config), new SimpleMeterRegistry(), Runnable::run, 1, UserPartitions.fixed(1)),
            ExtractionTopology.config(config));
        final TestInputTopic<String, ConversationCompleted> conversations = input(driver, Topic.CONVERSATIONS_COMPLETED);
        final TestOutputTopic<String, MemoryCandidate> extracted = output(driver, Topic.MEMORY_CANDIDATES);
        final TestInputTopic<String, UserProfile> profilesIn = input(driver, Topic.USER_PROFILES);
        final TestInputTopic<String, TenantSettings> settingsIn = input(driver, Topic.TENANT_SETTINGS);
        final TestOutputTopic<String, LlmUsage> usageOut = output(driver, Topic.LLM_USAGE);
    }

    /** The retrieval topology's driver and its input. */
    private final class Retrieval {
        final TopologyTestDriver driver = new TopologyTestDriver(RetrievalTopology.build(config),
            RetrievalTopology.config(config));
        final TestInputTopic<String, MemoryUpdated> updatedIn = input(driver, Topic.MEMORY_UPDATED);
        final TestInputTopic<String, MemoryAccessed> accessIn = input(driver, Topic.MEMORY_ACCESS);

        @SuppressWarnings("unchecked")
        void pipe(final TestRecord<String, ?> record) {
            if (record.value() instanceof MemoryAccessed) {
                accessIn.pipeInput((TestRecord<String, MemoryAccessed>) record);
            } else {
                updatedIn.pipeInput((TestRecord<String, MemoryUpdated>) record);
            }
        }
    }

    /** @return a builder for a harness with another extractor, vector index or configuration */
    public static Builder builder() {
        return new Builder();
    }

    /** What a harness is built from; unset parts are the defaults of {@link PipelineHarness#PipelineHarness()}. */
    public static final class Builder {
        private Map<String, ?> overrides = Map.of();
        private MemoryExtractor extractor = new RuleBasedExtractor();
        private VectorIndexFactory vectorIndex = new EmbeddedVectorIndexFactory();
        private ContradictionJudge judge = new KeyValueContradictionJudge();
        private Embedder observationEmbedder;

        private Builder() {
        }

        /**
         * @param value Engram config keys → values, applied over the defaults
         * @return this builder
         */
        public Builder config(final Map<String, ?> value) {
            overrides = Objects.requireNonNull(value);
            return this;
        }

        /**
         * @param value the extractor of the extraction stage
         * @return this builder
         */
        public Builder extractor(final MemoryExtractor value) {
            extractor = Objects.requireNonNull(value);
            return this;
        }

        /**
         * @param value the consolidator's vector index (e.g. a {@link RecordingVectorIndexFactory})
         * @return this builder
         */
        public Builder vectorIndex(final VectorIndexFactory value) {
            vectorIndex = Objects.requireNonNull(value);
            return this;
        }

        /**
         * @param value the consolidator's contradiction judge (the key/value rule judge unless given), e.g. one
         *     standing in for an LLM's verdicts
         * @return this builder
         */
        public Builder judge(final ContradictionJudge value) {
            judge = Objects.requireNonNull(value);
            return this;
        }

        /**
         * @param value the consolidator's embedder of observations (none unless given: the consolidation pass then
         *     writes no observations, as the other tests expect)
         * @return this builder
         */
        public Builder observations(final Embedder value) {
            observationEmbedder = Objects.requireNonNull(value);
            return this;
        }

        /** @return the harness, its drivers started */
        public PipelineHarness build() {
            return new PipelineHarness(this);
        }
    }

    // ---------------------------------------------------------------- building records

    /**
     * Builds a conversation the way a chat platform publishes it.
     *
     * @param tenant tenant
     * @param user user
     * @param conversationId conversation id
     * @param turns each turn is {role, content, ISO-8601 time}; completedAt is the last turn's time
     * @return the record
     */
    public static ConversationCompleted conversation(final String tenant, final String user,
                                                     final String conversationId, final String[]... turns) {
        final List<Message> messages = new ArrayList<>();
        for (int i = 0; i < turns.length; i++) {
            messages.add(new Message(i, turns[i][0], turns[i][1], Instant.parse(turns[i][2])));
        }
        return ConversationCompleted.newBuilder().setTenantId(tenant).setUserId(user)
            .setConversationId(conversationId).setMessages(messages)
            .setCompletedAt(messages.get(messages.size() - 1).getTimestamp()).build();
    }

    /**
     * @param content text
     * @param isoTime ISO-8601 instant
     * @return a user turn {role, content, time}
     */
    public static String[] user(final String content, final String isoTime) {
        return new String[] {"user", content, isoTime};
    }

    /**
     * @param content text
     * @param isoTime ISO-8601 instant
     * @return an assistant turn {role, content, time}
     */
    public static String[] assistant(final String content, final String isoTime) {
        return new String[] {"assistant", content, isoTime};
    }

    // ---------------------------------------------------------------- input

    /**
     * Writes one version of a tenant's settings to {@code tenant-settings} (key {@link TenantSettingsTable#key}, record
     * time its version), as the admin route does; the extractor's global table has it before the next conversation.
     *
     * @param settings the version
     * @return this harness
     */
    public PipelineHarness settings(final TenantSettings settings) {
        extraction().settingsIn.pipeInput(TenantSettingsTable.key(settings.getTenantId(), settings.getVersion()),
            settings, settings.getVersion());
        return this;
    }

    /**
     * Publishes conversations, each at its completedAt, and lets every stage process them, in order.
     *
     * @param records conversations, keyed by their user
     */
    public void publish(final ConversationCompleted... records) {
        publishAt(null, records);
    }

    /**
     * Publishes conversations with a record time of their own (a backfill years later), or each at its
     * completedAt when {@code recordTime} is null, and lets every stage process them.
     *
     * @param recordTime the Kafka record timestamp, or null
     * @param records conversations, keyed by their user
     */
    public void publishAt(final Instant recordTime, final ConversationCompleted... records) {
        for (final ConversationCompleted c : records) {
            consolidate(extract(c, recordTime == null ? c.getCompletedAt() : recordTime));
        }
    }

    /**
     * Runs one conversation through extraction only (at its completedAt); the candidates wait, as
     * while consolidation lags, until given to {@link #consolidate}.
     *
     * @param c the conversation, keyed by its user
     * @return the candidates the extractor wrote for it, in order
     */
    public List<TestRecord<String, MemoryCandidate>> extract(final ConversationCompleted c) {
        return extract(c, c.getCompletedAt());
    }

    private List<TestRecord<String, MemoryCandidate>> extract(final ConversationCompleted c, final Instant at) {
        final Extraction stage = extraction();
        stage.conversations.pipeInput(new UserKey(c.getTenantId(), c.getUserId()).wire(), c, at);
        final List<TestRecord<String, MemoryCandidate>> produced = stage.extracted.readRecordsToList();
        candidateLog.addAll(produced);
        usageLog.addAll(stage.usageOut.readValuesToList());
        return produced;
    }

    /**
     * Delivers candidate records to consolidation, one by one, draining every output after each (also
     * a re-delivery, as after a lost offset commit or a reset).
     *
     * @param records candidates as they were on memory-candidates
     */
    public void consolidate(final List<TestRecord<String, MemoryCandidate>> records) {
        for (final TestRecord<String, MemoryCandidate> r : records) {
            candidatesIn.pipeInput(r);
            flow();
        }
    }

    /**
     * Pipes candidates keyed by their user key, each with its event time as record timestamp.
     *
     * @param values candidates
     * @return this harness
     */
    public PipelineHarness pipe(final MemoryCandidate... values) {
        for (final MemoryCandidate value : values) {
            pipe(new UserKey(value.getTenantId(), value.getUserId()).wire(), value, value.getEventTime());
        }
        return this;
    }

    /**
     * Pipes one candidate record as given.
     *
     * @param key record key (normally {@code tenant/user})
     * @param value candidate
     * @param timestamp record timestamp
     * @return this harness
     */
    public PipelineHarness pipe(final String key, final MemoryCandidate value, final Instant timestamp) {
        candidatesIn.pipeInput(new TestRecord<>(key, value, timestamp));
        flow();
        return this;
    }

    /**
     * Pipes raw bytes on memory-candidates, e.g. a byte-for-byte redelivery or a record that is not Avro.
     *
     * @param key record key
     * @param value record value
     * @param timestamp record timestamp
     * @return this harness
     */
    public PipelineHarness pipeBytes(final String key, final byte[] value, final Instant timestamp) {
        rawCandidatesIn.pipeInput(new TestRecord<>(key, value, timestamp));
        flow();
        return this;
    }

    /**
     * Pipes one command on memory-commands, keyed by its user, at its issuedAt.
     *
     * @param command the command
     */
    public void command(final MemoryCommand command) {
        commandsIn.pipeInput(new UserKey(command.getTenantId(), command.getUserId()).wire(), command,
            command.getIssuedAt());
        flow();
    }

    /**
     * Pipes one retrieval hit report, as the retriever publishes it.
     *
     * @param user {@code tenant/user}
     * @param at when the memories were returned
     * @param memoryIds the memories returned (may be empty: then only stream time advances)
     * @return this harness
     */
    public PipelineHarness access(final String user, final Instant at, final String... memoryIds) {
        final UserKey key = UserKey.parse(user);
        final TestRecord<String, MemoryAccessed> record = new TestRecord<>(user, MemoryAccessed.newBuilder()
            .setTenantId(key.tenantId()).setUserId(key.userId()).setMemoryIds(List.of(memoryIds)).setAccessedAt(at)
            .build(), at);
        accessIn.pipeInput(record);
        flow();
        // the retriever reads its own hits too (after what the consolidator wrote before them)
        retrieverInputs.add(record);
        if (retrieval != null) {
            retrieval.pipe(record);
        }
        return this;
    }

    /**
     * Advances the consolidator's stream time (and so fires due lifecycle punctuations) without changing
     * any memory: an empty access report of an unrelated user at that time.
     *
     * @param at the new stream time
     * @return this harness
     */
    public PipelineHarness advanceTo(final Instant at) {
        return access("t1/u-clock", at);
    }

    /**
     * Advances the consolidator's wall clock (and so fires due WALL_CLOCK punctuations, e.g. the regrouping of
     * pending observations) without any record: stream time stays where it is.
     *
     * @param by how far
     * @return this harness
     */
    public PipelineHarness advanceWallClock(final Duration by) {
        consolidation.advanceWallClockTime(by);
        flow();
        return this;
    }

    /** Drains the consolidator's outputs into the logs, the read model and the extractor's profiles. */
    private void flow() {
        for (final TestRecord<String, MemoryUpdated> u : updatedOut.readRecordsToList()) {
            updated.add(u);
            retrieverInputs.add(u);
            if (retrieval != null) {
                retrieval.pipe(u);
            }
        }
        contradictions.addAll(contradictionsOut.readRecordsToList());
        archived.addAll(archivedOut.readRecordsToList());
        deadLetters.addAll(deadLetterOut.readRecordsToList());
        audits.addAll(auditOut.readValuesToList());
        for (final TestRecord<String, UserProfile> p : profilesOut.readRecordsToList()) {
            profileLog.add(p);
            if (extraction != null) {
                extraction.profilesIn.pipeInput(p);
            }
        }
    }

    // ---------------------------------------------------------------- output logs

    /** @return every cost-ledger record ({@code llm-usage}) the extractor wrote so far, in order */
    public List<LlmUsage> usage() {
        return List.copyOf(usageLog);
    }

    /** @return every candidate the extractor wrote so far, in order */
    public List<TestRecord<String, MemoryCandidate>> candidates() {
        return List.copyOf(candidateLog);
    }

    /** @return every memory-updated record so far, in order */
    public List<TestRecord<String, MemoryUpdated>> updated() {
        flow();
        return List.copyOf(updated);
    }

    /** @return the values of every memory-updated record so far, in order */
    public List<MemoryUpdated> updates() {
        return updated().stream().map(TestRecord::value).toList();
    }

    /** @return every memory-updated event so far as (memory id, operation name), in order */
    public List<KeyValue<String, String>> operations() {
        return updates().stream().map(u -> KeyValue.pair(u.getMemoryId(), u.getOperation().name())).toList();
    }

    /** @return every memory-contradictions record so far, in order */
    public List<TestRecord<String, ContradictionDetected>> contradictions() {
        flow();
        return List.copyOf(contradictions);
    }

    /** @return every memory-archived record so far, in order */
    public List<TestRecord<String, MemoryArchived>> archived() {
        flow();
        return List.copyOf(archived);
    }

    /** @return every record on the consolidator's dead-letter topic so far, in order */
    public List<TestRecord<String, byte[]>> deadLetters() {
        flow();
        return List.copyOf(deadLetters);
    }

    /** @return every audit record the consolidator wrote so far, in order */
    public List<AuditRecord> audits() {
        flow();
        return List.copyOf(audits);
    }

    /** @return every user-profiles record so far (a null value is a tombstone), in order */
    public List<TestRecord<String, UserProfile>> profileLog() {
        flow();
        return List.copyOf(profileLog);
    }

    // ---------------------------------------------------------------- state

    /** @return the consolidator's stores ({@code memories-by-user-store}, {@code profiles-store}) */
    public Stage consolidator() {
        return consolidatorStage;
    }

    /** @return the retriever's read model ({@code retriever-memories-store}, {@code retriever-profiles-store}) */
    public Stage retriever() {
        return retrieverStage;
    }

    /**
     * Ranks the user's read-model memories for a query as the retriever's API does ({@link HybridScorer}).
     *
     * @param user {@code tenant/user}
     * @param query query text
     * @param k top k
     * @return hits, best first
     */
    public List<ScoredMemory> retrieve(final String user, final String query, final int k) {
        if (scorer == null) {
            scorer = new HybridScorer(ScriptRoutedEmbedder.fromConfig(config), config);
        }
        // the read model joins each memory with its retrieval hits, as the retriever's index does
        final List<Memory> memories = retrieverStage.memories(user).stream()
            .map(m -> retrieverStage.hits(user, m.getMemoryId()).applyTo(m)).toList();
        return scorer.forList(n -> scorer.rank(RankRequest.of(query, n).memories(memories)), k); // as GET …/memories?query= ranks a list
    }

    /** @return the consolidation topology's meters (the other stages have registries of their own) */
    public MeterRegistry consolidatorMeters() {
        return consolidatorMeters;
    }

    /** @return the consolidation topology's driver, for what the harness does not wrap */
    public TopologyTestDriver consolidationDriver() {
        return consolidation;
    }

    /**
     * @param user {@code tenant/user}
     * @param memoryId memory id
     * @return the memory's versions in the retriever's {@code retriever-history-store}, in key order
     */
    public List<MemoryUpdated> history(final String user, final String memoryId) {
        final KeyValueStore<String, MemoryUpdated> store = retrieval().driver.getKeyValueStore(StoreNames.RETRIEVER_HISTORY);
        final List<MemoryUpdated> out = new ArrayList<>();
        try (KeyValueIterator<String, MemoryUpdated> it = store.prefixScan(
            MaterializeMemoriesProcessor.historyPrefix(UserKey.parse(user), memoryId), new StringSerializer())) {
            it.forEachRemaining(kv -> out.add(kv.value));
        }
        return out;
    }

    /** The memories and profiles stores of one app. */
    public static final class Stage {
        private final Supplier<TopologyTestDriver> driver;
        private final String memoriesStore;
        private final String profilesStore;
        private final String accessStore;

        private Stage(final Supplier<TopologyTestDriver> driver, final String memoriesStore, final String profilesStore,
                      final String accessStore) {
            this.driver = driver;
            this.memoriesStore = memoriesStore;
            this.profilesStore = profilesStore;
            this.accessStore = accessStore;
        }

        /**
         * @param user {@code tenant/user}
         * @param memoryId memory id
         * @return the memory's retrieval hits in this stage's access store, {@link AccessCounts#NONE} for none
         */
        public AccessCounts hits(final String user, final String memoryId) {
            final AccessCounts counts = driver.get().<String, AccessCounts>getKeyValueStore(accessStore)
                .get(UserKey.parse(user).storeKey(memoryId));
            return counts == null ? AccessCounts.NONE : counts;
        }

        /**
         * @param user {@code tenant/user}
         * @param memoryId memory id
         * @return that memory as a reader sees it (its counters joined with its hits), or null
         */
        public Memory joined(final String user, final String memoryId) {
            final Memory memory = memory(user, memoryId);
            return memory == null ? null : hits(user, memoryId).applyTo(memory);
        }

        /**
         * @param user {@code tenant/user}
         * @return the user's memories, every status, in store-key order
         */
        public List<Memory> memories(final String user) {
            final List<Memory> out = new ArrayList<>();
            try (KeyValueIterator<String, Memory> it = memories().prefixScan(UserKey.parse(user).storePrefix(),
                new StringSerializer())) {
                it.forEachRemaining(kv -> out.add(kv.value));
            }
            return out;
        }

        /**
         * @param user {@code tenant/user}
         * @return the user's ACTIVE memories
         */
        public List<Memory> active(final String user) {
            return memories(user).stream().filter(m -> m.getStatus() == MemoryStatus.ACTIVE).toList();
        }

        /**
         * @param user {@code tenant/user}
         * @param memoryId memory id
         * @return that memory, or null
         */
        public Memory memory(final String user, final String memoryId) {
            return memories().get(UserKey.parse(user).storeKey(memoryId));
        }

        /**
         * @param user {@code tenant/user}
         * @return the user's profile, or null
         */
        public UserProfile profile(final String user) {
            return profiles().get(UserKey.parse(user).wire());
        }

        /** @return the whole memories store, store key → memory, sorted (a snapshot for equality) */
        public Map<String, Memory> memoriesStore() {
            return all(memories());
        }

        /** @return the whole profiles store, user key → profile, sorted */
        public Map<String, UserProfile> profilesStore() {
            return all(profiles());
        }

        private KeyValueStore<String, Memory> memories() {
            return driver.get().getKeyValueStore(memoriesStore);
        }

        private KeyValueStore<String, UserProfile> profiles() {
            return driver.get().getKeyValueStore(profilesStore);
        }

        private static <V> Map<String, V> all(final KeyValueStore<String, V> store) {
            final Map<String, V> out = new TreeMap<>();
            try (KeyValueIterator<String, V> it = store.all()) {
                it.forEachRemaining(kv -> out.put(kv.key, kv.value));
            }
            return out;
        }
    }

    @Override
    public void close() {
        if (extraction != null) {
            extraction.driver.close();
        }
        consolidation.close();
        if (retrieval != null) {
            retrieval.driver.close();
        }
        try (var files = Files.walk(stateDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: the directory is under the build's temp dir
        }
    }
}
