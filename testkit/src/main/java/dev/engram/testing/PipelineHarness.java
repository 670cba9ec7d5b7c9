package dev.engram.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.engram.avro.AuditRecord;
import dev.engram.avro.ContradictionDetected;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.LlmUsage;
import dev.engram.avro.MemoryAccessed;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.TenantSettings;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.domain.DomainConfig;
import dev.engram.scoring.ScoredMemory;
import dev.engram.streams.PipelineConfig;
import dev.engram.topology.StoreNames;
import dev.engram.topology.TenantSettingsTable;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

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

    private final StateDir stateDir;
    private final MeterRegistry consolidatorMeters = new SimpleMeterRegistry();
    private final EngramConfig config;
    private final PipelineHarnessBuilder parts;
    private final ConsolidationDriver consolidation;
    private final List<TestRecord<String, MemoryCandidate>> candidateLog = new ArrayList<>();
    private final List<LlmUsage> usageLog = new ArrayList<>();
    private final Stage consolidatorStage;
    private final RetrievalDriver retrieval;
    private ExtractionDriver extraction;

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

    /** The pipeline of a builder's parts ({@link PipelineHarnessBuilder#build()}). */
    PipelineHarness(final PipelineHarnessBuilder b) {
        stateDir = new StateDir("engram-pipeline-test");
        config = EngramConfig.plain().with(b.overrides).with(Map.of(PipelineConfig.STATE_DIR, stateDir.path().toString()));
        parts = b;
        retrieval = new RetrievalDriver(config);
        consolidation = new ConsolidationDriver(config, b, consolidatorMeters, retrieval::record, p -> {
            if (extraction != null) {
                extraction.profile(p);
            }
        });
        consolidatorStage = new Stage(consolidation::driver, StoreNames.MEMORIES, StoreNames.PROFILES, StoreNames.ACCESS);
    }

    /**
     * The extraction stage, started on first use: it is then given every {@code user-profiles} record
     * so far, in order, so its profiles table is the one it would have had from the start (a test that
     * feeds candidates only never pays for it).
     */
    private ExtractionDriver extraction() {
        if (extraction == null) {
            extraction = new ExtractionDriver(config, parts.extractor);
            consolidation.profileLog().forEach(extraction::profile);
        }
        return extraction;
    }

    /** @return a builder for a harness with another extractor, vector index or configuration */
    public static PipelineHarnessBuilder builder() {
        return new PipelineHarnessBuilder();
    }

    /**
     * Writes one version of a tenant's settings to {@code tenant-settings} (key {@link TenantSettingsTable#key}, record
     * time its version), as the admin route does; the extractor's global table has it before the next conversation.
     *
     * @param settings the version
     * @return this harness
     */
    public PipelineHarness settings(final TenantSettings settings) {
        extraction().settings(settings);
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
        final ExtractionDriver stage = extraction();
        final List<TestRecord<String, MemoryCandidate>> produced = stage.extract(c, at);
        candidateLog.addAll(produced);
        usageLog.addAll(stage.drainUsage());
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
            consolidation.candidate(r);
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
        consolidation.candidate(new TestRecord<>(key, value, timestamp));
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
        consolidation.bytes(new TestRecord<>(key, value, timestamp));
        return this;
    }

    /**
     * Pipes one command on memory-commands, keyed by its user, at its issuedAt.
     *
     * @param command the command
     */
    public void command(final MemoryCommand command) {
        consolidation.command(new TestRecord<>(new UserKey(command.getTenantId(), command.getUserId()).wire(), command,
            command.getIssuedAt()));
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
        consolidation.access(record);
        // the retriever reads its own hits too (after what the consolidator wrote before them)
        retrieval.record(record);
        return this;
    }

    /**
     * Advances the consolidator's stream time (and so runs the lifecycle pass when a day is crossed) without changing
     * any memory, an empty access report of an unrelated user at that time; then its wall clock by
     * {@code lifecycle.observe.interval.ms} at a time, as a running consolidator's would pass meanwhile, until no
     * user's observations are pending (at most {@value ConsolidationDriver#MAX_REGROUP_ROUNDS} rounds: each regroups a
     * bounded share; {@link ConsolidationDriver#regroupPending}).
     * {@link #access} alone moves stream time only.
     *
     * @param at the new stream time
     * @return this harness
     */
    public PipelineHarness advanceTo(final Instant at) {
        access("t1/u-clock", at);
        consolidation.regroupPending(Duration.ofMillis(config.getLong(DomainConfig.OBSERVE_INTERVAL_MS)));
        return this;
    }

    /**
     * Advances the consolidator's wall clock (and so fires due WALL_CLOCK punctuations, e.g. the regrouping of
     * pending observations) without any record: stream time stays where it is.
     *
     * @param by how far
     * @return this harness
     */
    public PipelineHarness advanceWallClock(final Duration by) {
        consolidation.advanceWallClock(by);
        return this;
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
        consolidation.flow();
        return consolidation.updated();
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
        consolidation.flow();
        return consolidation.contradictions();
    }

    /** @return every memory-archived record so far, in order */
    public List<TestRecord<String, MemoryArchived>> archived() {
        consolidation.flow();
        return consolidation.archived();
    }

    /** @return every record on the consolidator's dead-letter topic so far, in order */
    public List<TestRecord<String, byte[]>> deadLetters() {
        consolidation.flow();
        return consolidation.deadLetters();
    }

    /** @return every audit record the consolidator wrote so far, in order */
    public List<AuditRecord> audits() {
        consolidation.flow();
        return consolidation.audits();
    }

    /** @return every user-profiles record so far (a null value is a tombstone), in order */
    public List<TestRecord<String, UserProfile>> profileLog() {
        consolidation.flow();
        return consolidation.profileLog();
    }

    // ---------------------------------------------------------------- state

    /** @return the consolidator's stores ({@code memories-by-user-store}, {@code profiles-store}) */
    public Stage consolidator() {
        return consolidatorStage;
    }

    /** @return the retriever's read model ({@code retriever-memories-store}, {@code retriever-profiles-store}) */
    public Stage retriever() {
        return retrieval.stage();
    }

    /**
     * Ranks the user's read-model memories for a query as the retriever's API does
     * ({@link dev.engram.scoring.HybridScorer}).
     *
     * @param user {@code tenant/user}
     * @param query query text
     * @param k top k
     * @return hits, best first
     */
    public List<ScoredMemory> retrieve(final String user, final String query, final int k) {
        return retrieval.rank(user, query, k);
    }

    /** @return the consolidation topology's meters (the other stages have registries of their own) */
    public MeterRegistry consolidatorMeters() {
        return consolidatorMeters;
    }

    /** @return the consolidation topology's driver, for what the harness does not wrap */
    public TopologyTestDriver consolidationDriver() {
        return consolidation.driver();
    }

    /**
     * @param user {@code tenant/user}
     * @param memoryId memory id
     * @return the memory's versions in the retriever's {@code retriever-history-store}, in key order
     */
    public List<MemoryUpdated> history(final String user, final String memoryId) {
        return retrieval.history(user, memoryId);
    }

    @Override
    public void close() {
        if (extraction != null) {
            extraction.close();
        }
        consolidation.close();
        retrieval.close();
        stateDir.close();
    }
}