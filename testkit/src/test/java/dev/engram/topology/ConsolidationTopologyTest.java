package dev.engram.topology;

import static dev.engram.topology.FedCandidates.episodic;
import static dev.engram.topology.FedCandidates.fact;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.store.EmbeddedVectorIndexFactory;
import dev.engram.rules.KeyValueContradictionJudge;
import dev.engram.scoring.Vectors;
import dev.engram.testing.PipelineHarness;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * {@link ConsolidationTopology} on TopologyTestDriver with the embedded judge and index and the real
 * MiniLM model: naming, thresholds, dead letters, negation, the judge band, read-your-own-writes,
 * metrics. Candidates are FED (built as the extractor would emit them).
 */
class ConsolidationTopologyTest {

    private static final String MIRA = "t1/u-mira";

    @Test
    void shouldPinNodeStoreAndInternalTopicNamesWhenDescribed() {
        final TopologyDescription description = ConsolidationTopology.build(EngramConfig.plain(),
            new KeyValueContradictionJudge(), new EmbeddedVectorIndexFactory(), new SimpleMeterRegistry()).describe();
        final Set<String> nodes = new TreeSet<>();
        final Set<String> stores = new TreeSet<>();
        final Set<String> sinkTopics = new TreeSet<>();
        final Set<String> sourceTopics = new TreeSet<>();
        for (final TopologyDescription.Subtopology sub : description.subtopologies()) {
            for (final TopologyDescription.Node node : sub.nodes()) {
                nodes.add(node.name());
                if (node instanceof TopologyDescription.Processor processor) {
                    stores.addAll(processor.stores());
                } else if (node instanceof TopologyDescription.Sink sink) {
                    sinkTopics.add(sink.topic());
                } else if (node instanceof TopologyDescription.Source source) {
                    sourceTopics.addAll(source.topicSet());
                }
            }
        }
        assertThat(description.subtopologies()).hasSize(1);
        assertThat(nodes).containsExactlyInAnyOrder("read-memory-candidates", "read-memory-commands",
            "consolidate-memories", "write-memory-updated", "write-memory-contradictions", "write-memory-archived",
            "write-memory-audit", "write-dead-letters", "write-user-profiles", "read-memory-access",
            "maintain-memory-lifecycle");
        assertThat(stores).containsExactlyInAnyOrder("memories-by-user-store", "profiles-store", "erasures-store",
            "memory-access-store", "observation-pending-store");
        assertThat(sourceTopics).containsExactlyInAnyOrder("memory-candidates", "memory-commands", "memory-access");
        assertThat(sinkTopics).containsExactlyInAnyOrder("memory-updated", "memory-contradictions", "memory-archived",
            "memory-audit", "engram-consolidator-dlq", "user-profiles");

        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(fact(MIRA, "c-1", "2025-02-03T09:12:00Z", "preferred_language", "Kotlin", "I write Kotlin."));
            assertThat(driver.consolidationDriver().producedTopicNames()).contains(
                "engram-consolidator-memories-by-user-store-changelog",
                "engram-consolidator-profiles-store-changelog",
                "memory-updated");
        }
    }

    @Test
    void shouldNotStoreCandidatesWhenImportanceOrConfidenceBelowThreshold() {
        final MemoryCandidate base = fact(MIRA, "c-1", "2025-02-03T09:12:00Z", "preferred_language", "Kotlin",
            "I write Kotlin.");
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(MemoryCandidate.newBuilder(base).setImportance(0.2).build());
            driver.pipe(MemoryCandidate.newBuilder(base).setConfidence(0.4).build());
            assertThat(driver.consolidator().memories(MIRA)).isEmpty();
            assertThat(driver.updated()).isEmpty();
            assertThat(driver.deadLetters()).isEmpty();
            assertThat(driver.consolidatorMeters().get("engram.candidates.skipped").tag("reason", "below_threshold").counter().count())
                .isEqualTo(2.0);

            // The minimums themselves are stored (importance 0.3, confidence 0.5).
            driver.pipe(MemoryCandidate.newBuilder(base).setImportance(0.3).setConfidence(0.5).build());
            assertThat(driver.consolidator().active(MIRA)).hasSize(1);
        }
    }

    @Test
    void shouldSendInvalidCandidatesToDeadLetterTopicWithReasonAndGoOn() {
        final MemoryCandidate valid = fact(MIRA, "c-1", "2025-02-03T09:12:00Z", "preferred_language", "Kotlin",
            "I write Kotlin.");
        final List<Float> nan = new ArrayList<>(valid.getEmbedding());
        nan.set(7, Float.NaN);
        final Instant t = Instant.parse("2025-02-03T09:12:00Z");
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe("no-slash", valid, t);
            driver.pipe("t1/someone-else", valid, t);
            driver.pipe(MIRA, MemoryCandidate.newBuilder(valid).setEmbedding(List.of(0.1f, 0.2f, 0.3f)).build(), t);
            driver.pipe(MIRA, MemoryCandidate.newBuilder(valid).setEmbedding(nan).build(), t);
            driver.pipe(MIRA, MemoryCandidate.newBuilder(valid).setImportance(1.5).build(), t);
            driver.pipe(MIRA, MemoryCandidate.newBuilder(valid).setContent("  ").build(), t);
            driver.pipe(MIRA, MemoryCandidate.newBuilder(valid).setValue(null).build(), t);
            driver.pipe(MIRA, null, t);
            driver.pipe(valid);

            final List<TestRecord<String, byte[]>> dead = driver.deadLetters();
            assertThat(dead).hasSize(8);
            assertThat(dead).extracting(r -> header(r, "__streams.errors.message")).containsExactly(
                "invalid user key: user key must be <tenant>/<user>: no-slash",
                "record key does not match the candidate's tenantId/userId",
                "embedding of model bge-small-en-v15-q has 3 dimensions, expected 384",
                "embedding contains a NaN or infinite value",
                "importance and confidence must be numbers within 0..1",
                "content is missing or blank",
                "key and value go together and must not be blank",
                "empty value: a memory candidate is required");
            assertThat(dead).allSatisfy(r -> {
                assertThat(header(r, "__streams.errors.exception")).isEqualTo("dev.engram.InvalidMemoryCandidate");
                assertThat(header(r, "__streams.errors.topic")).isEqualTo("memory-candidates");
                assertThat(r.timestamp()).isEqualTo(t.toEpochMilli());
            });
            // The stream went on: the valid candidate after them is stored.
            assertThat(driver.consolidator().active(MIRA)).singleElement()
                .satisfies(m -> assertThat(m.getMemoryId()).isEqualTo(valid.getCandidateId()));
            assertThat(driver.consolidatorMeters().get("engram.candidates.invalid").counter().count()).isEqualTo(8.0);
        }
    }

    /**
     * During a switch to a model of another size ({@code bin/engram reembed}), candidates of the old and the new
     * model both arrive: each built-in model's candidates are checked against that model's own size, not
     * against {@code embedding.dimensions}, and a wrong size names the model.
     */
    @Test
    void shouldCheckEachBuiltInModelsCandidatesAgainstThatModelsOwnSize() {
        final MemoryCandidate english = fact(MIRA, "c-1", "2025-02-03T09:12:00Z", "preferred_language", "Kotlin",
            "I write Kotlin.");
        final List<Float> wide = new ArrayList<>(english.getEmbedding());
        wide.addAll(english.getEmbedding().subList(0, 128));
        final Instant t = Instant.parse("2025-02-03T09:12:00Z");
        try (PipelineHarness driver = PipelineHarness.builder()
            .config(Map.of("embedding.dimensions", 512)).build()) {
            driver.pipe(MIRA, english, t);
            driver.pipe(MIRA, MemoryCandidate.newBuilder(english).setCandidateId(english.getCandidateId() + "-wide").setEmbedding(wide).build(), t);
            assertThat(driver.deadLetters()).extracting(r -> header(r, "__streams.errors.message"))
                .containsExactly("embedding of model bge-small-en-v15-q has 512 dimensions, expected 384");
            assertThat(driver.consolidator().active(MIRA)).extracting(m -> m.getMemoryId())
                .containsExactly(english.getCandidateId());
        }
    }

    /**
     * Undeserializable bytes are Streams' business (KIP-1034 handler configured in StreamsSettings):
     * TopologyTestDriver skips them without producing the dead-letter record, so here we only check
     * that the stream goes on; the dead-letter write itself needs a real broker (an IT).
     */
    @Test
    void shouldSkipUndeserializableBytesAndGoOnWhenPipedToTestDriver() {
        final MemoryCandidate valid = fact(MIRA, "c-1", "2025-02-03T09:12:00Z", "preferred_language", "Kotlin",
            "I write Kotlin.");
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipeBytes(MIRA, "not avro at all".getBytes(StandardCharsets.UTF_8), valid.getEventTime());
            driver.pipe(valid);
            assertThat(driver.consolidator().active(MIRA)).singleElement()
                .satisfies(m -> assertThat(m.getMemoryId()).isEqualTo(valid.getCandidateId()));
            assertThat(driver.updated()).hasSize(1);
        }
    }

    @Test
    void shouldSeeMemoryOfPreviousCandidateWhenNextArrivesOneMillisecondLater() {
        final MemoryCandidate first = episodic(MIRA, "c-1", "2025-02-03T09:12:00.000Z",
            "Is preparing a talk about Kafka Streams for the Berlin meetup.");
        final MemoryCandidate second = episodic(MIRA, "c-2", "2025-02-03T09:12:00.001Z",
            "Is preparing a talk about Kafka Streams for the Berlin meetup!");
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(first, second);
            assertThat(driver.consolidator().active(MIRA)).singleElement()
                .satisfies(m -> assertThat(m.getReinforcementCount()).isEqualTo(2));
        }
    }

    @Test
    void shouldAddTheCitedMessagesWithoutCountingAConfirmationWhenTheSameConversationRestatesAMemory() {
        final MemoryCandidate said = MemoryCandidate.newBuilder(episodic(MIRA, "c-1", "2025-02-03T09:12:00Z",
            "Is preparing a talk about Kafka Streams for the Berlin meetup.")).setSourceMessageIndexes(List.of(2)).build();
        final MemoryCandidate restated = MemoryCandidate.newBuilder(episodic(MIRA, "c-1", "2025-02-03T09:12:00Z",
            "Is preparing a talk on Kafka Streams for the Berlin meetup.")).setSourceMessageIndexes(List.of(7)).build();
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(said, restated);
            assertThat(driver.consolidator().active(MIRA)).singleElement().satisfies(m -> {
                assertThat(m.getReinforcementCount()).as("one conversation, one confirmation").isEqualTo(1);
                assertThat(m.getSources()).singleElement()
                    .satisfies(ref -> assertThat(ref.getMessageIndexes()).containsExactly(2, 7));
            });
            assertThat(driver.updated()).extracting(r -> r.value().getOperation())
                .containsExactly(UpdateOperation.CREATED, UpdateOperation.REINFORCED);

            // The same messages once more add nothing: no event.
            final MemoryCandidate again = MemoryCandidate.newBuilder(episodic(MIRA, "c-1", "2025-02-03T09:12:00Z",
                "Is preparing the talk about Kafka Streams for the Berlin meetup.")).setSourceMessageIndexes(List.of(7, 2)).build();
            assertThat(again.getCandidateId()).isNotIn(said.getCandidateId(), restated.getCandidateId());
            driver.pipe(again);
            assertThat(driver.updated()).hasSize(2);
        }
    }

    @Test
    void shouldReinforceStatementsNamingDifferentIdentifiersOnlyWhenTheJudgeCallsThemTheSame() {
        // "the 3rd of March" and "March 3": close embeddings, different number tokens. The rule judge never
        // calls unkeyed statements SAME, so they stay apart; a judge that reads them (an LLM) may join them.
        final MemoryCandidate first = MemoryCandidate.newBuilder(episodic(MIRA, "c-1", "2025-02-03T09:00:00Z",
            "Has her dentist appointment on the 3rd of March.")).setType(dev.engram.avro.MemoryType.SEMANTIC).build();
        final MemoryCandidate second = MemoryCandidate.newBuilder(episodic(MIRA, "c-2", "2025-02-10T09:00:00Z",
            "Has her dentist appointment on March 3.")).setType(dev.engram.avro.MemoryType.SEMANTIC).build();
        final double cosine = FedCandidates.cosine(first.getContent(), second.getContent());
        final Map<String, Object> band = Map.of(DomainConfig.JUDGE_THRESHOLD, Math.min(0.7, cosine - 0.01));
        try (PipelineHarness driver = new PipelineHarness(band)) {
            driver.pipe(first, second);
            assertThat(driver.consolidator().active(MIRA)).hasSize(2);
        }
        final List<String> asked = new ArrayList<>();
        try (PipelineHarness driver = PipelineHarness.builder().config(band).judge((existing, candidate, similarity) -> {
            asked.add(existing.getContent() + " | " + candidate.getContent());
            return dev.engram.port.ContradictionJudge.Verdict.SAME;
        }).build()) {
            driver.pipe(first, second);
            assertThat(asked).containsExactly(first.getContent() + " | " + second.getContent());
            assertThat(driver.consolidator().active(MIRA)).singleElement().satisfies(m -> {
                assertThat(m.getMemoryId()).isEqualTo(first.getCandidateId());
                assertThat(m.getReinforcementCount()).isEqualTo(2);
            });
        }
    }

    @Test
    void shouldKeepOneEditorFactWhenTheUserNamesItByAnotherOfItsNames() {
        final MemoryCandidate vscode = fact(MIRA, "c-1", "2025-02-03T09:00:00Z", "ide", "vscode", "I use vscode.");
        final MemoryCandidate full = fact(MIRA, "c-2", "2025-02-10T09:00:00Z", "ide", "Visual Studio Code",
            "Visual Studio Code is my editor.");
        final MemoryCandidate shortName = fact(MIRA, "c-3", "2025-02-17T09:00:00Z", "ide", "VS Code",
            "Uses VS Code as the editor.");
        final MemoryCandidate neovim = fact(MIRA, "c-4", "2025-03-01T09:00:00Z", "ide", "Neovim", "I use Neovim now.");
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(vscode, full, shortName);
            assertThat(driver.consolidator().active(MIRA)).as("one editor, three names").singleElement().satisfies(m -> {
                assertThat(m.getMemoryId()).isEqualTo(vscode.getCandidateId());
                assertThat(m.getValue()).isEqualTo("vscode");
                assertThat(m.getReinforcementCount()).isEqualTo(3);
            });
            assertThat(driver.contradictions()).isEmpty();

            driver.pipe(neovim);
            assertThat(driver.consolidator().active(MIRA)).as("another editor supersedes it").singleElement()
                .satisfies(m -> assertThat(m.getValue()).isEqualTo("Neovim"));
            assertThat(driver.contradictions()).hasSize(1);
        }
    }

    @Test
    void shouldArchiveFactAsNegatedWhenUserNoLongerUsesIt() {
        final MemoryCandidate uses = fact(MIRA, "c-1", "2025-02-03T09:00:00Z", "uses:jira", "Jira", "Uses Jira at work.");
        final MemoryCandidate noLonger = MemoryCandidate.newBuilder(
            fact(MIRA, "c-2", "2025-03-03T09:00:00Z", "uses:jira", "Jira", "I no longer use Jira.")).setNegated(true).build();
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(uses, noLonger);
            final Memory archived = driver.consolidator().memory(MIRA, uses.getCandidateId());
            assertThat(archived.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(archived.getArchiveReason()).isEqualTo(ArchiveReason.NEGATED);
            assertThat(archived.getValidTo()).isEqualTo(noLonger.getEventTime());
            assertThat(driver.consolidator().active(MIRA)).isEmpty();
            assertThat(driver.consolidator().profile(MIRA).getFacts()).doesNotContainKey("uses:jira");
            assertThat(driver.archived()).singleElement()
                .satisfies(r -> assertThat(r.value().getReason()).isEqualTo(ArchiveReason.NEGATED));
            assertThat(driver.contradictions()).singleElement()
                .satisfies(r -> assertThat(r.value().getReason()).isEqualTo("negation"));

            // Redelivered, it finds nothing left to retract.
            driver.pipe(noLonger);
            assertThat(driver.updated()).hasSize(2);
        }
    }

    @Test
    void shouldNotMergeFactsOfDifferentKeysWhenTheyEmbedClose() {
        final MemoryCandidate language = fact(MIRA, "c-1", "2025-02-03T09:00:00Z", "preferred_language", "Kotlin",
            "Writes Kotlin with IntelliJ.");
        final MemoryCandidate ide = fact(MIRA, "c-2", "2025-02-04T09:00:00Z", "ide", "IntelliJ",
            "Writes Kotlin in IntelliJ.");
        System.out.printf("different keys: cosine = %.3f%n", FedCandidates.cosine(language.getContent(), ide.getContent()));
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(language, ide);
            assertThat(driver.consolidator().active(MIRA)).hasSize(2);
            assertThat(driver.consolidator().profile(MIRA).getFacts()).containsOnlyKeys("preferred_language", "ide");
        }
    }

    @Test
    void shouldSupersedeUnkeyedStatementWhenJudgeFindsNegatedRestatement() {
        final String existing = "Loves hiking in the mountains on weekends.";
        final String restated = "Doesn't love hiking in the mountains on weekends anymore.";
        final double cosine = FedCandidates.cosine(existing, restated);
        System.out.printf("judge band: cosine = %.3f%n", cosine);
        // Unkeyed statements about the user (SEMANTIC): two episodes never contradict each other.
        final MemoryCandidate first = MemoryCandidate.newBuilder(episodic(MIRA, "c-1", "2025-02-03T09:00:00Z", existing))
            .setType(dev.engram.avro.MemoryType.SEMANTIC).build();
        final MemoryCandidate second = MemoryCandidate.newBuilder(episodic(MIRA, "c-2", "2025-04-03T09:00:00Z", restated))
            .setType(dev.engram.avro.MemoryType.SEMANTIC).build();
        // Pin the band with the thresholds so that the judge is asked whatever the model's exact score.
        final double judgeFrom = Math.min(0.7, cosine - 0.01);
        final double reinforceAbove = Math.max(0.9, cosine + 0.01);
        try (PipelineHarness driver = new PipelineHarness(Map.of(
            DomainConfig.JUDGE_THRESHOLD, judgeFrom, DomainConfig.REINFORCE_THRESHOLD, reinforceAbove))) {
            driver.pipe(first, second);
            assertThat(driver.consolidator().active(MIRA)).singleElement()
                .satisfies(m -> assertThat(m.getMemoryId()).isEqualTo(second.getCandidateId()));
            assertThat(driver.consolidator().memory(MIRA, first.getCandidateId()).getSupersededBy()).isEqualTo(second.getCandidateId());
            assertThat(driver.contradictions()).singleElement().satisfies(r -> {
                assertThat(r.value().getReason()).isEqualTo("judge");
                assertThat(r.value().getSimilarity()).isEqualTo(cosine, org.assertj.core.api.Assertions.within(1e-6));
            });
        }
    }

    @Test
    void shouldPickSameWinnerInBothOrdersWhenContradictingStatementsShareEventTime() {
        final MemoryCandidate lyon = fact(MIRA, "c-1", "2025-01-01T09:00:00Z", "city", "Lyon", "I live in Lyon.");
        final MemoryCandidate nantes = fact(MIRA, "c-2", "2025-01-01T09:00:00Z", "city", "Nantes", "I live in Nantes.");
        final String expectedWinner = lyon.getCandidateId().compareTo(nantes.getCandidateId()) > 0
            ? lyon.getCandidateId() : nantes.getCandidateId();
        for (final List<MemoryCandidate> order : List.of(List.of(lyon, nantes), List.of(nantes, lyon))) {
            try (PipelineHarness driver = new PipelineHarness()) {
                order.forEach(driver::pipe);
                assertThat(driver.consolidator().active(MIRA)).singleElement()
                    .satisfies(m -> assertThat(m.getMemoryId()).isEqualTo(expectedWinner));
            }
        }
    }

    @Test
    void shouldKeepTheRestatedValueWhenAContradictionOrNegationSaidBeforeTheRestatementArrivesLate() {
        final MemoryCandidate lyon = fact(MIRA, "c-1", "2025-01-01T09:00:00Z", "city", "Lyon", "I live in Lyon.");
        final MemoryCandidate again = fact(MIRA, "c-3", "2025-01-03T09:00:00Z", "city", "Lyon", "I still live in Lyon.");
        final MemoryCandidate nantes = fact(MIRA, "c-2", "2025-01-02T09:00:00Z", "city", "Nantes", "I live in Nantes.");
        final MemoryCandidate notLyon = MemoryCandidate.newBuilder(
            fact(MIRA, "c-2b", "2025-01-02T10:00:00Z", "city", "Lyon", "I don't live in Lyon.")).setNegated(true).build();
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(lyon, again, nantes, notLyon);
            assertThat(driver.consolidator().active(MIRA)).singleElement().satisfies(m -> {
                assertThat(m.getMemoryId()).as("said last on the 3rd").isEqualTo(lyon.getCandidateId());
                assertThat(m.getValue()).isEqualTo("Lyon");
            });
            final Memory late = driver.consolidator().memory(MIRA, nantes.getCandidateId());
            assertThat(late.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(late.getSupersededBy()).isEqualTo(lyon.getCandidateId());
            assertThat(late.getValidFrom()).isEqualTo(nantes.getEventTime());
            assertThat(late.getValidTo()).as("until Lyon was said again").isEqualTo(again.getEventTime());
            assertThat(driver.consolidator().profile(MIRA).getFacts().get("city").getValue()).isEqualTo("Lyon");
        }
    }

    @Test
    void shouldCountCreatedReinforcedSupersededAndContradictionsWithApplicationTag() {
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(
                fact(MIRA, "c-1", "2025-01-01T09:00:00Z", "city", "Lyon", "I live in Lyon."),
                fact(MIRA, "c-2", "2025-01-02T09:00:00Z", "city", "Lyon", "Still living in Lyon."),
                fact(MIRA, "c-3", "2025-01-03T09:00:00Z", "city", "Nantes", "We moved to Nantes."));
            assertThat(count(driver, "engram.memories.added")).isEqualTo(2.0);
            assertThat(count(driver, "engram.memories.reinforced")).isEqualTo(1.0);
            assertThat(count(driver, "engram.memories.superseded")).isEqualTo(1.0);
            assertThat(count(driver, "engram.contradictions")).isEqualTo(1.0);
        }
    }

    @Test
    void shouldStampOutputsWithEventTimeAndKeyThemByUser() {
        final MemoryCandidate candidate = fact(MIRA, "c-1", "2025-02-03T09:12:00Z", "preferred_language", "Kotlin",
            "I write Kotlin.");
        try (PipelineHarness driver = new PipelineHarness()) {
            // Arrival (record) time differs from event time on purpose.
            driver.pipe(MIRA, candidate, Instant.parse("2026-01-01T00:00:00Z"));
            assertThat(driver.updated()).singleElement().satisfies(r -> {
                assertThat(r.key()).isEqualTo(MIRA);
                assertThat(r.timestamp()).isEqualTo(candidate.getEventTime().toEpochMilli());
                assertThat(r.value().getOperation()).isEqualTo(UpdateOperation.CREATED);
                final Memory m = r.value().getMemory();
                assertThat(List.of(m.getCreatedAt(), m.getUpdatedAt(), m.getLastAccessedAt(), m.getLastConfirmedAt(),
                    m.getValidFrom())).containsOnly(candidate.getEventTime());
                assertThat(m.getReinforcementCount()).isEqualTo(1);
                assertThat(Vectors.toArray(m.getEmbedding())).containsExactly(Vectors.toArray(candidate.getEmbedding()));
            });
        }
    }

    private static double count(final PipelineHarness driver, final String name) {
        return driver.consolidatorMeters().get(name).tag("application", "engram-consolidator").counter().count();
    }

    /** @return a header of a dead letter as text, or null */
    static String header(final TestRecord<String, byte[]> record, final String name) {
        final Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
