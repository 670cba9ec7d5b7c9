package dev.engram.topology;

import static dev.engram.topology.FedCandidates.episodic;
import static dev.engram.topology.FedCandidates.fact;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryUpdated;
import dev.engram.config.EngramConfig;
import dev.engram.rules.KeyValueContradictionJudge;
import dev.engram.serde.AvroSerdes;
import dev.engram.store.EmbeddedVectorIndexFactory;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.topics.AppIds;
import dev.engram.topics.Topic;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lifecycle clock of a real Kafka Streams consolidator across a restart, on the in-process broker (one per test): the stream time
 * Streams restores from the committed offsets is taken (it lies within {@code input.max.future.ms} of the wall clock),
 * so the restart adds no lifecycle pass a run without it would not have. The bound is checked in the lifecycle
 * processor's {@code init} against {@code ProcessorContext#currentSystemTimeMs}, which a real task sets before it
 * initializes its processors ({@code StreamTask#initializeTopology}); read as 0 there, every restored stream time
 * would look ahead of it and the next record would run an extra pass (this test fails so), which the
 * TopologyTestDriver, with its own wall clock, would not show.
 */
class LifecycleRestartIT {

    private static final Instant T0 = Instant.parse("2025-03-01T09:00:00Z");
    private EmbeddedKafka kafka;

    /** A broker per test: each test's consolidator reads its topics from the start. */
    @BeforeEach
    void startCluster() throws Exception {
        kafka = EmbeddedKafka.start();
        // as TopicSetup creates them: a topic takes any record timestamp (Kafka 4 refuses one over an hour ahead); given
        // at creation, not altered after it: a send right after an alteration met the old limit under load (CI, load 12)
        kafka.createTopics(1, Topic.allNames(), Map.of(
            org.apache.kafka.common.config.TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, String.valueOf(Long.MAX_VALUE)));
    }

    @AfterEach
    void stopCluster() throws Exception {
        kafka.close();
    }

    private static String at(final Duration after) {
        return T0.plus(after).toString();
    }

    private void send(final MemoryCandidate... candidates) {
        kafka.send(Topic.MEMORY_CANDIDATES.name(), new StringSerializer(), AvroSerdes.serde(MemoryCandidate.class).serializer(),
            java.util.Arrays.stream(candidates).map(c -> new EmbeddedKafka.Record<>(c.getTenantId() + "/" + c.getUserId(), c,
                c.getEventTime())).toList());
    }

    private void runUntilConsumed(final EngramConfig config) {
        final KafkaStreams streams = new KafkaStreams(ConsolidationTopology.build(config, new KeyValueContradictionJudge(),
            new EmbeddedVectorIndexFactory(), new SimpleMeterRegistry()), ConsolidationTopology.config(config));
        try {
            streams.start();
            EmbeddedKafka.waitUntil(() -> kafka.consumed(AppIds.CONSOLIDATOR, List.of(Topic.MEMORY_CANDIDATES.name()), 1),
                Duration.ofSeconds(120), "the consolidator to commit every candidate");
        } finally {
            streams.close(Duration.ofSeconds(60));
        }
    }

    /** The operations on {@code memory-updated} of the given users, in order ({@code expected} of them at least). */
    private List<String> operations(final int expected, final String... users) {
        final List<String> keys = List.of(users);
        final List<String> out = new java.util.ArrayList<>();
        final List<String> all = new java.util.ArrayList<>();
        try {
            EmbeddedKafka.waitUntil(() -> {
                out.clear();
                all.clear();
                kafka.read(Topic.MEMORY_UPDATED.name(), new StringDeserializer(),
                    AvroSerdes.serde(MemoryUpdated.class).deserializer(), expected, Duration.ofSeconds(30)).forEach(r -> {
                        final String change = r.key() + " " + r.value().getOperation() + " " + r.value().getMemory().getKey();
                        all.add(change);
                        if (keys.contains(r.key())) {
                            out.add(change);
                        }
                    });
                return out.size() >= expected;
            }, Duration.ofSeconds(60), expected + " changes of " + keys + " on " + Topic.MEMORY_UPDATED.name());
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError(e.getMessage() + "; read: " + all, e);
        }
        return out;
    }

    @Test
    void shouldRunNoExtraPassWhenTheConsolidatorRestartsWithinTheDayOfItsRestoredStreamTime() {
        final EngramConfig config = kafka.engramConfig(Map.of()); // one state directory for both runs
        final MemoryCandidate project = MemoryCandidate.newBuilder(
            fact("acme/u-ann", "c-1", at(Duration.ZERO), "project", "Atlas", "Is working on project Atlas"))
            .setCategory(FactCategory.CONTEXT).build(); // expires 30 days after it was said
        // a pass at 29 days 23 hours: the project is still current
        send(project, episodic("acme/u-bob", "c-2", at(Duration.ofDays(30).minusHours(1)), "Bought a new bicycle helmet."));
        runUntilConsumed(config);

        // after the restart, a record of the same day 2 hours later: no day crossed, so no pass (one would expire it)
        send(episodic("acme/u-bob", "c-3", at(Duration.ofDays(30).plusHours(1)), "Went to the Atlas offices."));
        runUntilConsumed(config);

        assertThat(operations(3, "acme/u-ann", "acme/u-bob")).containsExactly("acme/u-ann CREATED project",
            "acme/u-bob CREATED null", "acme/u-bob CREATED null");
    }

    /**
     * A partition whose stream time a record dated 9999 moved (Streams' own stream time takes every record; written
     * before the edges refused such dates, or by a producer that bypasses them): restored, it lies beyond the bound, so
     * the restarted task starts its lifecycle time afresh. No pass runs at 9999 (the role fact, 120 days, stays), and
     * the next legitimate record runs the pass of its own time (the context fact, 31 days old, expires).
     */
    @Test
    void shouldResumeThePassesAtLegitimateTimesWhenTheRestoredStreamTimeIsYear9999() {
        final EngramConfig config = kafka.engramConfig(Map.of());
        final MemoryCandidate project = MemoryCandidate.newBuilder(
            fact("acme/u-cid", "c-1", at(Duration.ZERO), "project", "Atlas", "Is working on project Atlas"))
            .setCategory(FactCategory.CONTEXT).build();
        send(project, fact("acme/u-cid", "c-2", at(Duration.ZERO), "employer", "Ferrovia Labs", "Works at Ferrovia Labs"),
            fact("evil/u-zed", "c-9", "9999-12-31T00:00:00Z", "city", "Paris", "Lives in Paris"));
        runUntilConsumed(config);

        send(episodic("acme/u-dan", "c-3", at(Duration.ofDays(31)), "Bought a new bicycle helmet."));
        runUntilConsumed(config);

        assertThat(operations(5, "acme/u-cid", "evil/u-zed", "acme/u-dan")).containsExactly("acme/u-cid CREATED project",
            "acme/u-cid CREATED employer", "evil/u-zed CREATED city", "acme/u-dan CREATED null",
            "acme/u-cid ARCHIVED project");
    }
}
