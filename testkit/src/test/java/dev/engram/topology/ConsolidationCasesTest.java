package dev.engram.topology;

import static dev.engram.topology.FedCandidates.episodic;
import static dev.engram.topology.FedCandidates.fact;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.avro.UserProfile;
import dev.engram.serde.AvroSerdes;
import dev.engram.testing.PipelineHarness;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import dev.engram.topics.Topic;

/**
 * The consolidation side of the cases in {@code ../shared/cases}: each test FEEDS the candidates
 * the extractor would emit for the case's conversations (deterministic ids, real MiniLM
 * embeddings, the contract's fact keys) into {@code memory-candidates} and checks the stores and
 * the output topics. The extractor side of these cases is tested with the extractor.
 */
class ConsolidationCasesTest {

    // ---- case-01: re-stating a fact must reinforce it, never delete it ----

    @Test
    void shouldReinforceRestatedFactWhenCandidatesFed_case01() {
        final String mira = "t1/u-mira";
        final MemoryCandidate first = fact(mira, "c-101", "2025-02-03T09:12:00Z", "preferred_language", "Kotlin",
            "These days I write almost everything in Kotlin.");
        final MemoryCandidate second = MemoryCandidate.newBuilder(fact(mira, "c-102", "2025-02-10T17:40:00Z",
            "preferred_language", "Kotlin", "As I said before, Kotlin is my main language.")).setConfidence(0.8).build();
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(first);
            final double confidenceAfterFirst = driver.consolidator().active(mira).get(0).getConfidence();
            driver.pipe(second);

            assertThat(driver.consolidator().active(mira)).singleElement().satisfies(memory -> {
                assertThat(memory.getKey()).isEqualTo("preferred_language");
                assertThat(memory.getValue()).isEqualTo("Kotlin");
                assertThat(memory.getMemoryId()).isEqualTo(first.getCandidateId());
                assertThat(memory.getReinforcementCount()).isEqualTo(2);
                assertThat(memory.getSources()).extracting(SourceRef::getConversationId).containsExactly("c-101", "c-102");
                assertThat(memory.getLastConfirmedAt()).isEqualTo(Instant.parse("2025-02-10T17:40:00Z"));
                assertThat(memory.getConfidence()).isGreaterThanOrEqualTo(confidenceAfterFirst);
            });
            assertThat(driver.consolidator().memories(mira)).hasSize(1)
                .allSatisfy(m -> assertThat(m.getStatus()).isEqualTo(MemoryStatus.ACTIVE));
            assertThat(driver.updated()).extracting(r -> r.value().getOperation())
                .containsExactly(UpdateOperation.CREATED, UpdateOperation.REINFORCED);
            assertThat(driver.archived()).isEmpty();
            assertThat(driver.contradictions()).isEmpty();
            assertThat(driver.consolidator().profile(mira).getFacts().get("preferred_language").getValue()).isEqualTo("Kotlin");
        }
    }

    // ---- case-02: a changed value that embeds as a near-duplicate must update, not reinforce ----

    @Test
    void shouldSupersedeTenureWhenNumberChangesAndCandidatesFed_case02() {
        final String omar = "t1/u-omar";
        final MemoryCandidate three = fact(omar, "c-110", "2025-01-10T08:00:00Z", "employer", "Ferrovia Labs",
            "I've been at Ferrovia Labs for three years now.");
        final MemoryCandidate threeAgain = fact(omar, "c-111", "2025-01-11T08:00:00Z", "employer", "Ferrovia Labs",
            "Three years at Ferrovia Labs, like I mentioned.");
        final MemoryCandidate four = fact(omar, "c-140", "2026-01-14T08:00:00Z", "employer", "Ferrovia Labs",
            "Four years at Ferrovia Labs as of this month.");
        System.out.printf("case-02: cosine(3 years, 3 years again) = %.3f, cosine(3 years again, 4 years) = %.3f%n",
            FedCandidates.cosine(three.getContent(), threeAgain.getContent()),
            FedCandidates.cosine(threeAgain.getContent(), four.getContent()));
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(three, threeAgain);
            assertThat(driver.consolidator().active(omar)).singleElement().satisfies(m -> {
                assertThat(m.getMemoryId()).isEqualTo(three.getCandidateId());
                assertThat(m.getReinforcementCount()).isEqualTo(2);
            });

            driver.pipe(four);

            assertThat(driver.consolidator().active(omar)).singleElement().satisfies(m -> {
                assertThat(m.getMemoryId()).isEqualTo(four.getCandidateId());
                assertThat(m.getContent()).contains("Four years");
                assertThat(m.getKey()).isEqualTo("employer");
                assertThat(m.getSupersedes()).containsExactly(three.getCandidateId());
                assertThat(m.getReinforcementCount()).isEqualTo(1);
            });
            final Memory old = driver.consolidator().memory(omar, three.getCandidateId());
            assertThat(old.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(old.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
            assertThat(old.getSupersededBy()).isEqualTo(four.getCandidateId());
            assertThat(old.getValidTo()).isEqualTo(Instant.parse("2026-01-14T08:00:00Z"));
            assertThat(driver.contradictions()).singleElement().satisfies(c -> {
                assertThat(c.value().getOldMemoryId()).isEqualTo(three.getCandidateId());
                assertThat(c.value().getNewMemoryId()).isEqualTo(four.getCandidateId());
                assertThat(c.value().getReason()).isEqualTo("same-key");
            });
            assertThat(driver.archived()).extracting(r -> r.value().getMemoryId()).containsExactly(three.getCandidateId());
            assertThat(driver.operations()).extracting(kv -> kv.value)
                .containsExactly("CREATED", "REINFORCED", "SUPERSEDED", "CREATED");
        }
    }

    // ---- case-03: contradiction: the old fact is archived and the new one kept ----

    @Test
    void shouldSupersedeLikeByDislikeAndKeepHistoryWhenCandidatesFed_case03() {
        final String rosa = "t1/u-rosa";
        final MemoryCandidate like = fact(rosa, "c-301", "2025-03-01T19:00:00Z", "preference:sushi", "like",
            "Sushi is my all-time favourite food.");
        final MemoryCandidate dislike = fact(rosa, "c-302", "2025-03-20T19:00:00Z", "preference:sushi", "dislike",
            "I've totally gone off sushi, can't stand it anymore.");
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(like, dislike);

            assertThat(driver.consolidator().active(rosa)).singleElement().satisfies(m -> {
                assertThat(m.getMemoryId()).isEqualTo(dislike.getCandidateId());
                assertThat(m.getValue()).isEqualTo("dislike");
            });
            // History: the liked memory is still in the store, archived and linked, never deleted.
            assertThat(driver.consolidator().memories(rosa)).hasSize(2);
            final Memory old = driver.consolidator().memory(rosa, like.getCandidateId());
            assertThat(old.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(old.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
            assertThat(old.getSupersededBy()).isEqualTo(dislike.getCandidateId());
            assertThat(driver.updated()).extracting(r -> r.value().getOperation())
                .doesNotContain(UpdateOperation.DELETED)
                .containsExactly(UpdateOperation.CREATED, UpdateOperation.SUPERSEDED, UpdateOperation.CREATED);
            assertThat(driver.consolidator().profile(rosa).getFacts().get("preference:sushi").getValue()).isEqualTo("dislike");
        }
    }

    // ---- case-04: low cosine, heavily reinforced old fact; recency must win ----

    @Test
    void shouldSupersedeReinforcedVeganByPescatarianThroughSharedKeyWhenCandidatesFed_case04() {
        final String sam = "t1/u-sam";
        final MemoryCandidate vegan = fact(sam, "c-401", "2025-04-02T12:00:00Z", "diet", "vegan",
            "I've been vegan for two years.");
        final MemoryCandidate pescatarian = fact(sam, "c-420", "2025-09-15T12:00:00Z", "diet", "pescatarian",
            "Started eating fish again; being vegan wasn't working for me.");
        final double cosine = FedCandidates.cosine(vegan.getContent(), pescatarian.getContent());
        System.out.printf("case-04: cosine(vegan, pescatarian) = %.3f%n", cosine);
        // The shared key decides, not the similarity band.
        assertThat(cosine).isLessThan(0.9);
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(vegan,
                fact(sam, "c-402", "2025-05-10T12:00:00Z", "diet", "vegan", "still vegan, going strong"),
                fact(sam, "c-403", "2025-06-15T12:00:00Z", "diet", "vegan", "vegan potluck was great"));
            assertThat(driver.consolidator().active(sam)).singleElement()
                .satisfies(m -> assertThat(m.getReinforcementCount()).isEqualTo(3));

            driver.pipe(pescatarian);

            assertThat(driver.consolidator().active(sam)).singleElement().satisfies(m -> {
                assertThat(m.getKey()).isEqualTo("diet");
                assertThat(m.getValue()).isEqualTo("pescatarian");
            });
            final Memory old = driver.consolidator().memory(sam, vegan.getCandidateId());
            assertThat(old.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(old.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
            assertThat(old.getReinforcementCount()).isEqualTo(3);
            assertThat(driver.consolidator().memories(sam)).filteredOn(m -> m.getStatus() == MemoryStatus.ACTIVE)
                .noneMatch(m -> "vegan".equals(m.getValue()));
            final UserProfile profile = driver.consolidator().profile(sam);
            assertThat(profile.getFacts()).containsOnlyKeys("diet");
            assertThat(profile.getFacts().get("diet").getValue()).isEqualTo("pescatarian");
            assertThat(profile.getActiveMemories()).isEqualTo(1);
            assertThat(profile.getArchivedMemories()).isEqualTo(1);
        }
    }

    // ---- case-10: replay and redelivery are idempotent ----

    private static final String GUS = "t1/u-gus";

    /** Ten events on 2025-12-01…10: new facts, one restated fact (Kotlin), one contradiction (Lyon → Nantes). */
    private static List<MemoryCandidate> gusEvents() {
        return List.of(
            fact(GUS, "c-1", "2025-12-01T09:00:00Z", "city", "Lyon", "I live in Lyon."),
            fact(GUS, "c-2", "2025-12-02T09:00:00Z", "preferred_language", "Kotlin", "I mostly write Kotlin these days."),
            episodic(GUS, "c-3", "2025-12-03T09:00:00Z", "Planned a hiking trip to the Alps with his sister."),
            fact(GUS, "c-4", "2025-12-04T09:00:00Z", "ide", "IntelliJ", "I use IntelliJ for everything."),
            fact(GUS, "c-5", "2025-12-05T09:00:00Z", "preferred_language", "Kotlin", "Kotlin is still my main language."),
            fact(GUS, "c-6", "2025-12-06T09:00:00Z", "diet", "vegetarian", "I'm vegetarian."),
            fact(GUS, "c-7", "2025-12-07T09:00:00Z", "city", "Nantes", "We moved to Nantes last week."),
            episodic(GUS, "c-8", "2025-12-08T09:00:00Z", "Asked for help debugging consumer lag in a Kafka pipeline."),
            fact(GUS, "c-9", "2025-12-09T09:00:00Z", "employer", "Ferrovia Labs", "I work at Ferrovia Labs."),
            fact(GUS, "c-10", "2025-12-10T09:00:00Z", "preference:coffee", "like", "I love strong black coffee."));
    }

    private static List<byte[]> serialized(final List<MemoryCandidate> events) {
        final List<byte[]> out = new ArrayList<>();
        for (final MemoryCandidate event : events) {
            out.add(AvroSerdes.serde(MemoryCandidate.class).serializer().serialize(Topic.MEMORY_CANDIDATES.name(), event));
        }
        return out;
    }

    private static void pipeAll(final PipelineHarness driver, final List<MemoryCandidate> events,
                                final List<byte[]> bytes) {
        for (int i = 0; i < events.size(); i++) {
            driver.pipeBytes(GUS, bytes.get(i), events.get(i).getEventTime());
        }
    }

    @Test
    void shouldKeepIdenticalStateWhenEventRedeliveredOrAllReplayedAndCandidatesFed_case10() {
        final List<MemoryCandidate> events = gusEvents();
        final List<byte[]> bytes = serialized(events);
        final Map<String, Memory> s1;
        final Map<String, UserProfile> p1;
        final List<TestRecord<String, MemoryUpdated>> firstRun;
        try (PipelineHarness driver = new PipelineHarness()) {
            pipeAll(driver, events, bytes);
            s1 = driver.consolidator().memoriesStore();
            p1 = driver.consolidator().profilesStore();
            firstRun = driver.updated();

            // S1: 9 memories, 8 active; Kotlin stated twice; Nantes won over Lyon.
            assertThat(s1).hasSize(9);
            assertThat(driver.consolidator().active(GUS)).hasSize(8);
            assertThat(driver.consolidator().memory(GUS, events.get(1).getCandidateId()).getReinforcementCount()).isEqualTo(2);
            assertThat(driver.consolidator().memory(GUS, events.get(0).getCandidateId()).getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(p1.get(GUS).getFacts().get("city").getValue()).isEqualTo("Nantes");

            // (a) event 5 redelivered byte-for-byte, as if its offset commit had been lost
            driver.pipeBytes(GUS, bytes.get(4), events.get(4).getEventTime());
            assertThat(driver.consolidator().memoriesStore()).isEqualTo(s1);
            assertThat(driver.consolidator().profilesStore()).isEqualTo(p1);
            assertThat(driver.updated()).hasSameSizeAs(firstRun);

            // (b) the consumer group reset to earliest: all ten again
            pipeAll(driver, events, bytes);
            assertThat(driver.consolidator().memoriesStore()).isEqualTo(s1);
            assertThat(driver.consolidator().profilesStore()).isEqualTo(p1);
            assertThat(driver.updated()).hasSameSizeAs(firstRun);
            assertThat(driver.contradictions()).hasSize(1);
            assertThat(driver.archived()).hasSize(1);
        }
        // A fresh deployment replaying the topic from scratch rebuilds the same state and events.
        try (PipelineHarness replay = new PipelineHarness()) {
            pipeAll(replay, events, bytes);
            assertThat(replay.consolidator().memoriesStore()).isEqualTo(s1);
            assertThat(replay.consolidator().profilesStore()).isEqualTo(p1);
            assertThat(replay.updated()).isEqualTo(firstRun);
        }
    }

    @Test
    void shouldKeepNantesWhenNantesCandidateProcessedFirstAndCandidatesFed_case10() {
        final List<MemoryCandidate> events = new ArrayList<>(gusEvents());
        java.util.Collections.reverse(events);
        final MemoryCandidate lyon = gusEvents().get(0);
        final MemoryCandidate nantes = gusEvents().get(6);
        try (PipelineHarness driver = new PipelineHarness()) {
            for (final MemoryCandidate event : events) {
                driver.pipe(event);
            }
            assertThat(driver.consolidator().active(GUS)).filteredOn(m -> "city".equals(m.getKey())).singleElement()
                .satisfies(m -> assertThat(m.getValue()).isEqualTo("Nantes"));
            final Memory archivedLyon = driver.consolidator().memory(GUS, lyon.getCandidateId());
            assertThat(archivedLyon.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(archivedLyon.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
            assertThat(archivedLyon.getSupersededBy()).isEqualTo(nantes.getCandidateId());
            assertThat(archivedLyon.getValidTo()).isEqualTo(nantes.getEventTime());
            assertThat(driver.consolidator().profile(GUS).getFacts().get("city").getValue()).isEqualTo("Nantes");
            assertThat(driver.consolidator().memory(GUS, events.get(5).getCandidateId()).getReinforcementCount()).isEqualTo(2);
            assertThat(driver.consolidator().active(GUS)).hasSize(8);
        }
    }

    // ---- case-11: two updates for the same user at the same moment ----

    @Test
    void shouldKeepOneIntelliJMemoryWhenTwoStatementsTenMillisApartAndCandidatesFed_case11() {
        final String jon = "t1/u-jon";
        final MemoryCandidate a = fact(jon, "c-a", "2025-07-07T10:00:00.000Z", "ide", "IntelliJ", "I use IntelliJ for everything.");
        final MemoryCandidate b = fact(jon, "c-b", "2025-07-07T10:00:00.010Z", "ide", "IntelliJ", "I use IntelliJ for everything.");
        for (int run = 0; run < 100; run++) {
            try (PipelineHarness driver = new PipelineHarness()) {
                driver.pipe(a, b);
                assertThat(driver.consolidator().active(jon)).as("run %d", run).singleElement().satisfies(m -> {
                    assertThat(m.getValue()).isEqualTo("IntelliJ");
                    assertThat(m.getReinforcementCount()).isEqualTo(2);
                });
                assertThat(driver.consolidator().memories(jon)).as("run %d", run).hasSize(1);
            }
        }
    }

    @Test
    void shouldKeepTrondheimAndArchiveBergenOnceInBothArrivalOrdersWhenCandidatesFed_case11() {
        final String jon = "t1/u-jon";
        final MemoryCandidate bergen = fact(jon, "c-bergen", "2025-07-01T10:00:00Z", "city", "Bergen", "I live in Bergen.");
        final MemoryCandidate oslo = fact(jon, "c-oslo", "2025-07-07T10:00:00.000Z", "city", "Oslo", "We relocated to Oslo.");
        final MemoryCandidate trondheim = fact(jon, "c-trondheim", "2025-07-07T10:00:00.050Z", "city", "Trondheim",
            "Now living in Trondheim.");
        for (int run = 0; run < 100; run++) {
            for (final List<MemoryCandidate> order : List.of(List.of(oslo, trondheim), List.of(trondheim, oslo))) {
                try (PipelineHarness driver = new PipelineHarness()) {
                    driver.pipe(bergen);
                    order.forEach(driver::pipe);
                    final String label = "run " + run + ", " + order.get(0).getValue() + " first";

                    assertThat(driver.consolidator().active(jon)).as(label).singleElement()
                        .satisfies(m -> assertThat(m.getValue()).isEqualTo("Trondheim"));
                    for (final MemoryCandidate loser : List.of(bergen, oslo)) {
                        final Memory memory = driver.consolidator().memory(jon, loser.getCandidateId());
                        assertThat(memory.getStatus()).as(label).isEqualTo(MemoryStatus.ARCHIVED);
                        assertThat(memory.getArchiveReason()).as(label).isEqualTo(ArchiveReason.SUPERSEDED);
                    }
                    assertThat(driver.archived()).as(label).extracting(r -> r.value().getMemoryId())
                        .filteredOn(bergen.getCandidateId()::equals).hasSize(1);
                    // the chain a time-ordered replay gives, in both arrival orders: Bergen until Oslo, Oslo until
                    // Trondheim. Trondheim first superseded Bergen; the late Oslo, said inside Bergen's interval, then
                    // ends Bergen at its own time (a second SUPERSEDED update of Bergen, no second archive: Timeline)
                    final Memory bergenAfter = driver.consolidator().memory(jon, bergen.getCandidateId());
                    final Memory osloAfter = driver.consolidator().memory(jon, oslo.getCandidateId());
                    assertThat(bergenAfter.getSupersededBy()).as(label).isEqualTo(oslo.getCandidateId());
                    assertThat(bergenAfter.getValidTo()).as(label).isEqualTo(oslo.getEventTime());
                    assertThat(osloAfter.getSupersededBy()).as(label).isEqualTo(trondheim.getCandidateId());
                    assertThat(osloAfter.getValidTo()).as(label).isEqualTo(trondheim.getEventTime());
                    assertThat(driver.updated()).as(label)
                        .filteredOn(r -> r.value().getMemoryId().equals(bergen.getCandidateId())
                            && r.value().getOperation() == UpdateOperation.SUPERSEDED)
                        .hasSize(order.get(0) == oslo ? 1 : 2);
                    assertThat(driver.consolidator().profile(jon).getFacts().get("city").getValue()).as(label).isEqualTo("Trondheim");
                }
            }
        }
    }

    @Test
    void shouldArchiveEachLoserWithReasonWhenCitiesFedInReverse_case11() {
        final String jon = "t1/u-jon";
        final MemoryCandidate bergen = fact(jon, "c-bergen", "2025-07-01T10:00:00Z", "city", "Bergen", "I live in Bergen.");
        final MemoryCandidate oslo = fact(jon, "c-oslo", "2025-07-07T10:00:00.000Z", "city", "Oslo", "We relocated to Oslo.");
        final MemoryCandidate trondheim = fact(jon, "c-trondheim", "2025-07-07T10:00:00.050Z", "city", "Trondheim",
            "Now living in Trondheim.");
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.pipe(bergen, trondheim, oslo);
            final Memory late = driver.consolidator().memory(jon, oslo.getCandidateId());
            assertThat(late.getSupersededBy()).isEqualTo(trondheim.getCandidateId());
            assertThat(late.getValidTo()).isEqualTo(trondheim.getEventTime());
            assertThat(driver.archived()).extracting(TestRecord::value).extracting(MemoryArchived::getMemoryId)
                .containsExactly(bergen.getCandidateId(), oslo.getCandidateId());
            assertThat(driver.contradictions()).hasSize(2);
        }
    }
}
