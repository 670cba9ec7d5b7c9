package dev.engram.testing;

import static dev.engram.testing.DriverTopics.input;
import static dev.engram.testing.DriverTopics.output;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import dev.engram.avro.AuditRecord;
import dev.engram.avro.ContradictionDetected;
import dev.engram.avro.MemoryAccessed;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.port.MemoryMerger;
import dev.engram.topics.AppIds;
import dev.engram.topics.Topic;
import dev.engram.topology.ConsolidationTopology;
import dev.engram.topology.StoreNames;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The consolidation topology of a {@link PipelineHarness} on its driver, with its topics and the logs of everything
 * it emitted: every input is followed by a drain of the outputs into the logs, and each {@code memory-updated} and
 * {@code user-profiles} record is handed on to the next stages.
 */
final class ConsolidationDriver implements AutoCloseable {

    /** Wall-clock punctuations {@link #regroupPending} fires at most to regroup the pending users' observations. */
    static final int MAX_REGROUP_ROUNDS = 100;

    private final TopologyTestDriver driver;
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
    private final List<TestRecord<String, MemoryUpdated>> updated = new ArrayList<>();
    private final List<TestRecord<String, ContradictionDetected>> contradictions = new ArrayList<>();
    private final List<TestRecord<String, MemoryArchived>> archived = new ArrayList<>();
    private final List<TestRecord<String, byte[]>> deadLetters = new ArrayList<>();
    private final List<AuditRecord> audits = new ArrayList<>();
    private final List<TestRecord<String, UserProfile>> profileLog = new ArrayList<>();
    private final Consumer<TestRecord<String, MemoryUpdated>> onUpdated;
    private final Consumer<TestRecord<String, UserProfile>> onProfile;

    ConsolidationDriver(final EngramConfig config, final PipelineHarnessBuilder b, final MeterRegistry meters,
                        final Consumer<TestRecord<String, MemoryUpdated>> onUpdated,
                        final Consumer<TestRecord<String, UserProfile>> onProfile) {
        this.onUpdated = onUpdated;
        this.onProfile = onProfile;
        driver = new TopologyTestDriver(
            ConsolidationTopology.build(config, b.judge, MemoryMerger.CONCATENATE, b.observationEmbedder, b.vectorIndex,
                meters),
            ConsolidationTopology.config(config));
        candidatesIn = input(driver, Topic.MEMORY_CANDIDATES, config);
        rawCandidatesIn = driver.createInputTopic(Topic.MEMORY_CANDIDATES.name(), new StringSerializer(),
            new ByteArraySerializer());
        commandsIn = input(driver, Topic.MEMORY_COMMANDS, config);
        accessIn = input(driver, Topic.MEMORY_ACCESS, config);
        updatedOut = output(driver, Topic.MEMORY_UPDATED, config);
        contradictionsOut = output(driver, Topic.MEMORY_CONTRADICTIONS, config);
        archivedOut = output(driver, Topic.MEMORY_ARCHIVED, config);
        auditOut = output(driver, Topic.MEMORY_AUDIT, config);
        deadLetterOut = driver.createOutputTopic(Topic.deadLetters(AppIds.CONSOLIDATOR).name(),
            new StringDeserializer(), new ByteArrayDeserializer());
        profilesOut = output(driver, Topic.USER_PROFILES, config);
    }

    /** The driver, for the consolidator's stores and what the harness does not wrap. */
    TopologyTestDriver driver() {
        return driver;
    }

    /** Pipes one candidate record on {@code memory-candidates}, then drains. */
    void candidate(final TestRecord<String, MemoryCandidate> record) {
        candidatesIn.pipeInput(record);
        flow();
    }

    /** Pipes raw bytes on {@code memory-candidates}, then drains. */
    void bytes(final TestRecord<String, byte[]> record) {
        rawCandidatesIn.pipeInput(record);
        flow();
    }

    /** Pipes one command on {@code memory-commands}, then drains. */
    void command(final TestRecord<String, MemoryCommand> record) {
        commandsIn.pipeInput(record);
        flow();
    }

    /** Pipes one retrieval hit report on {@code memory-access}, then drains. */
    void access(final TestRecord<String, MemoryAccessed> record) {
        accessIn.pipeInput(record);
        flow();
    }

    /**
     * Advances the driver's wall clock by {@code interval} at a time, as a running consolidator's would pass, until no
     * user's observations are pending in {@code observation-pending-store} (at most {@value #MAX_REGROUP_ROUNDS}
     * rounds: each punctuation regroups a bounded share); drains after each round.
     *
     * @param interval the regrouping punctuation's interval ({@code lifecycle.observe.interval.ms})
     */
    void regroupPending(final Duration interval) {
        final KeyValueStore<String, Long> pending = driver.getKeyValueStore(StoreNames.OBSERVATION_PENDING);
        for (int round = 0; round < MAX_REGROUP_ROUNDS; round++) {
            advanceWallClock(interval);
            try (KeyValueIterator<String, Long> left = pending.all()) {
                if (!left.hasNext()) {
                    break;
                }
            }
        }
    }

    /** Advances the driver's wall clock (firing due WALL_CLOCK punctuations), then drains. */
    void advanceWallClock(final Duration by) {
        driver.advanceWallClockTime(by);
        flow();
    }

    /** Drains the outputs into the logs, handing each update and profile record on, in order. */
    void flow() {
        for (final TestRecord<String, MemoryUpdated> u : updatedOut.readRecordsToList()) {
            updated.add(u);
            onUpdated.accept(u);
        }
        contradictions.addAll(contradictionsOut.readRecordsToList());
        archived.addAll(archivedOut.readRecordsToList());
        deadLetters.addAll(deadLetterOut.readRecordsToList());
        audits.addAll(auditOut.readValuesToList());
        for (final TestRecord<String, UserProfile> p : profilesOut.readRecordsToList()) {
            profileLog.add(p);
            onProfile.accept(p);
        }
    }

    /** Every {@code memory-updated} record drained so far, in order. */
    List<TestRecord<String, MemoryUpdated>> updated() {
        return List.copyOf(updated);
    }

    /** Every {@code memory-contradictions} record drained so far, in order. */
    List<TestRecord<String, ContradictionDetected>> contradictions() {
        return List.copyOf(contradictions);
    }

    /** Every {@code memory-archived} record drained so far, in order. */
    List<TestRecord<String, MemoryArchived>> archived() {
        return List.copyOf(archived);
    }

    /** Every dead-letter record drained so far, in order. */
    List<TestRecord<String, byte[]>> deadLetters() {
        return List.copyOf(deadLetters);
    }

    /** Every audit record drained so far, in order. */
    List<AuditRecord> audits() {
        return List.copyOf(audits);
    }

    /** Every {@code user-profiles} record drained so far, in order. */
    List<TestRecord<String, UserProfile>> profileLog() {
        return List.copyOf(profileLog);
    }

    @Override
    public void close() {
        driver.close();
    }
}
