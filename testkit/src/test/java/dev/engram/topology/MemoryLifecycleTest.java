package dev.engram.topology;

import static dev.engram.topology.FedCandidates.episodic;
import static dev.engram.topology.FedCandidates.fact;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.CommandKind;
import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.scoring.AccessCounts;
import dev.engram.scoring.HybridScorer;
import dev.engram.serde.AvroSerdes;
import dev.engram.testing.PipelineHarness;
import dev.engram.testing.Stage;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import dev.engram.scoring.RankRequest;

/**
 * The lifecycle rules of the consolidator on TopologyTestDriver, with stream time advanced across
 * 30 / 90 / 120 / 365 days: TTL by category and source, staleness, merge, hard delete, access
 * events, history-relevant validity, and the replay identity of two fresh runs. Candidates are fed
 * (built as the extractor would, with real MiniLM embeddings).
 */
class MemoryLifecycleTest {

    private static final String MIRA = "t1/u-mira";
    private static final Instant T0 = Instant.parse("2025-01-01T09:00:00Z");

    private static Instant day(final int days) {
        return T0.plus(Duration.ofDays(days));
    }

    private static String at(final int days) {
        return day(days).toString();
    }

    private static MemoryCandidate with(final MemoryCandidate candidate, final Consumer<MemoryCandidate.Builder> change) {
        final MemoryCandidate.Builder builder = MemoryCandidate.newBuilder(candidate);
        change.accept(builder);
        return builder.build();
    }

    /**
     * The defect of the README trial: one candidate dated 9999 of a user of another tenant on the same partition (the
     * driver has one task: every user is co-partitioned) moved the task's stream time to 9999, and the pass at that time
     * expired, staled and hard-deleted the memories of every user of the partition; no later record moved stream time
     * again, so no pass ever ran after it. The lifecycle time ignores a record dated beyond input.max.future.ms.
     */
    @Test
    void shouldKeepAnotherTenantsMemoriesAndRunLaterPassesWhenACoPartitionedCandidateIsDatedInYear9999() {
        final String ann = "acme/u-ann";
        try (PipelineHarness driver = new PipelineHarness(Map.of(DomainConfig.MIN_IMPORTANCE, 0.1))) {
            final MemoryCandidate employer = fact(ann, "c-1", at(0), "employer", "Ferrovia Labs", "Works at Ferrovia Labs");
            final MemoryCandidate bees = with(episodic(ann, "c-2", at(0), "Watched a documentary about bees."),
                b -> b.setImportance(0.2));
            final MemoryCandidate lyon = fact(ann, "c-3", at(0), "city", "Lyon", "Lives in Lyon");
            driver.pipe(employer, bees, lyon, fact(ann, "c-4", at(1), "city", "Nantes", "Moved to Nantes"));
            assertThat(driver.consolidator().memory(ann, lyon.getCandidateId()).getStatus()).isEqualTo(MemoryStatus.ARCHIVED);

            driver.pipe(fact("evil/u-zed", "c-9", "9999-12-31T00:00:00Z", "city", "Paris", "Lives in Paris"));
            driver.advanceTo(day(10)); // a later legitimate record of the partition

            assertThat(driver.consolidator().memory(ann, employer.getCandidateId()).getStatus()).isEqualTo(MemoryStatus.ACTIVE);
            assertThat(driver.consolidator().memory(ann, bees.getCandidateId()).getStatus()).isEqualTo(MemoryStatus.ACTIVE);
            assertThat(driver.consolidator().memory(ann, lyon.getCandidateId()).getStatus())
                .as("superseded, not hard-deleted by the retention rule").isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(driver.archived()).extracting(r -> r.value().getReason()).containsOnly(ArchiveReason.SUPERSEDED);
            assertThat(driver.consolidator().memory("evil/u-zed", fact("evil/u-zed", "c-9", "9999-12-31T00:00:00Z",
                "city", "Paris", "Lives in Paris").getCandidateId()).getStatus()).as("its own memory is kept")
                .isEqualTo(MemoryStatus.ACTIVE);
            assertThat(driver.consolidatorMeters().get("engram.records.ahead").counter().count()).isEqualTo(1.0);

            driver.advanceTo(day(121)); // the passes go on at the legitimate records' times
            assertThat(driver.consolidator().memory(ann, employer.getCandidateId()).getArchiveReason())
                .isEqualTo(ArchiveReason.EXPIRED);
            assertThat(driver.consolidator().memory(ann, bees.getCandidateId()).getArchiveReason())
                .isEqualTo(ArchiveReason.STALE);
            assertThat(driver.archived()).allSatisfy(r -> assertThat(r.timestamp()).isLessThanOrEqualTo(day(121).toEpochMilli()));
        }
    }

    @Test
    void shouldExpireARoleFactAfter120DaysAndRestartTheClockWhenItIsRestated() {
        try (PipelineHarness driver = new PipelineHarness()) {
            final MemoryCandidate employer = fact(MIRA, "c-1", at(0), "employer", "Ferrovia Labs", "Works at Ferrovia Labs");
            driver.pipe(employer);
            driver.pipe(fact(MIRA, "c-2", at(100), "employer", "Ferrovia Labs", "Works at Ferrovia Labs"));
            driver.advanceTo(day(200));
            assertThat(driver.consolidator().memory(MIRA, employer.getCandidateId()).getStatus()).isEqualTo(MemoryStatus.ACTIVE);

            driver.advanceTo(day(221)); // 121 days after the restatement
            final Memory expired = driver.consolidator().memory(MIRA, employer.getCandidateId());
            assertThat(expired.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(expired.getArchiveReason()).isEqualTo(ArchiveReason.EXPIRED);
            assertThat(driver.archived()).extracting(r -> r.value().getReason()).containsExactly(ArchiveReason.EXPIRED);
            assertThat(driver.consolidator().profile(MIRA).getFacts()).doesNotContainKey("employer");
        }
    }

    @Test
    void shouldExpireContextAfter30DaysInferredAtHalfAndKeepPreferencesForever() {
        try (PipelineHarness driver = new PipelineHarness()) {
            final MemoryCandidate project = with(fact(MIRA, "c-1", at(0), "project", "Atlas", "Is working on project Atlas"),
                b -> b.setCategory(FactCategory.CONTEXT));
            final MemoryCandidate inferred = with(fact(MIRA, "c-2", at(0), "team", "payments", "Seems to be on the payments team"),
                b -> b.setCategory(FactCategory.CONTEXT).setSource(MemorySource.INFERRED).setConfidence(0.6));
            final MemoryCandidate likes = fact(MIRA, "c-3", at(0), "preference:sushi", "like", "Likes sushi");
            final MemoryCandidate language = fact(MIRA, "c-4", at(0), "preferred_language", "Kotlin", "Writes Kotlin");
            driver.pipe(project, inferred, likes, language);

            driver.advanceTo(day(16));
            assertThat(driver.consolidator().memory(MIRA, inferred.getCandidateId()).getArchiveReason()).isEqualTo(ArchiveReason.EXPIRED);
            assertThat(driver.consolidator().memory(MIRA, project.getCandidateId()).getStatus()).isEqualTo(MemoryStatus.ACTIVE);
            driver.advanceTo(day(31));
            assertThat(driver.consolidator().memory(MIRA, project.getCandidateId()).getArchiveReason()).isEqualTo(ArchiveReason.EXPIRED);
            driver.advanceTo(day(400));
            assertThat(driver.consolidator().active(MIRA)).extracting(Memory::getMemoryId)
                .containsExactlyInAnyOrder(likes.getCandidateId(), language.getCandidateId());
        }
    }

    @Test
    void shouldArchiveAnUnusedUnimportantMemoryAfter90DaysButNotOneThatIsUsed() {
        try (PipelineHarness driver = new PipelineHarness(Map.of(DomainConfig.MIN_IMPORTANCE, 0.1))) {
            final MemoryCandidate idle = with(episodic(MIRA, "c-1", at(0), "Watched a documentary about bees."),
                b -> b.setImportance(0.2));
            final MemoryCandidate used = with(episodic(MIRA, "c-2", at(0), "Bought a new bicycle helmet."),
                b -> b.setImportance(0.2));
            final MemoryCandidate restated = with(fact(MIRA, "c-3", at(0), "uses:strava", "Strava", "Uses Strava"),
                b -> b.setImportance(0.2));
            final MemoryCandidate important = episodic(MIRA, "c-4", at(0), "Ran the Berlin marathon in 3:45.");
            driver.pipe(idle, used, restated, important);
            driver.access(MIRA, day(10), used.getCandidateId());
            driver.access(MIRA, day(20), used.getCandidateId());
            driver.pipe(with(fact(MIRA, "c-5", at(60), "uses:strava", "Strava", "Uses Strava"), b -> b.setImportance(0.2)));

            driver.advanceTo(day(89));
            assertThat(driver.consolidator().active(MIRA)).hasSize(4);
            driver.advanceTo(day(91));
            assertThat(driver.consolidator().memory(MIRA, idle.getCandidateId()).getArchiveReason()).isEqualTo(ArchiveReason.STALE);
            assertThat(driver.consolidator().active(MIRA)).extracting(Memory::getMemoryId).containsExactlyInAnyOrder(
                used.getCandidateId(), restated.getCandidateId(), important.getCandidateId());
            driver.advanceTo(day(151)); // 91 days after the restatement: reinforcement counted as use until then
            assertThat(driver.consolidator().memory(MIRA, restated.getCandidateId()).getArchiveReason()).isEqualTo(ArchiveReason.STALE);
            assertThat(driver.consolidator().memory(MIRA, used.getCandidateId()).getStatus()).isEqualTo(MemoryStatus.ACTIVE);
        }
    }

    /** The importance the extractor gives a short remark with one signal ("Had a sandwich at the station."). */
    private static final double REMARK = 0.35;

    private static MemoryCandidate remark(final String conversationId, final int day, final String content) {
        return with(episodic(MIRA, conversationId, at(day), content), b -> b.setImportance(REMARK));
    }

    @Test
    void shouldFireStaleWithTheDefaultsAndCountReinforcementAsUse() {
        final EngramConfig defaults = EngramConfig.defaults();
        assertThat(REMARK).as("stored with the defaults").isGreaterThanOrEqualTo(defaults.getDouble(DomainConfig.MIN_IMPORTANCE))
            .as("and low enough to become stale").isLessThan(defaults.getDouble(DomainConfig.STALE_MAX_IMPORTANCE));
        try (PipelineHarness driver = new PipelineHarness()) { // no override: the default EngramConfig
            final MemoryCandidate idle = remark("c-1", 0, "Had a sandwich at the station.");
            final MemoryCandidate once = remark("c-2", 0, "Watered the tomato plants on the balcony.");
            final MemoryCandidate twice = remark("c-3", 0, "Fixed the squeaky hinge on the shed door.");
            final MemoryCandidate used = remark("c-4", 0, "Bought a new bicycle helmet.");
            final MemoryCandidate important = episodic(MIRA, "c-5", at(0), "Ran the Berlin marathon in 3:45.");
            driver.pipe(idle, once, twice, used, important);
            driver.pipe(remark("c-6", 60, "Watered the tomato plants on the balcony."),
                remark("c-7", 30, "Fixed the squeaky hinge on the shed door."),
                remark("c-8", 60, "Fixed the squeaky hinge on the shed door."));
            driver.access(MIRA, day(10), used.getCandidateId());
            driver.pipe(remark("c-9", 20, "Bought a new bicycle helmet."));
            assertThat(driver.consolidator().memory(MIRA, twice.getCandidateId()).getReinforcementCount()).isEqualTo(3);

            driver.advanceTo(day(89));
            assertThat(driver.consolidator().active(MIRA)).hasSize(5);
            driver.advanceTo(day(91));
            final Memory stale = driver.consolidator().memory(MIRA, idle.getCandidateId());
            assertThat(stale.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(stale.getArchiveReason()).isEqualTo(ArchiveReason.STALE);
            assertThat(driver.archived()).extracting(r -> r.value().getMemoryId(), r -> r.value().getReason())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(idle.getCandidateId(), ArchiveReason.STALE));
            assertThat(driver.consolidator().active(MIRA)).extracting(Memory::getMemoryId).containsExactlyInAnyOrder(
                once.getCandidateId(), twice.getCandidateId(), used.getCandidateId(), important.getCandidateId());

            driver.advanceTo(day(151)); // 91 days after the last restatement
            assertThat(driver.consolidator().memory(MIRA, once.getCandidateId()).getArchiveReason())
                .as("restated once: used once, the last use 91 days ago").isEqualTo(ArchiveReason.STALE);
            driver.advanceTo(day(300));
            assertThat(driver.consolidator().active(MIRA)).as("two uses (restatements, or an access and a restatement) keep a memory")
                .extracting(Memory::getMemoryId).containsExactlyInAnyOrder(
                    twice.getCandidateId(), used.getCandidateId(), important.getCandidateId());
        }
    }

    @Test
    void shouldNeverArchiveASafetyFactAsStaleWhenItGoesUnusedLongAfterTheStaleTime() {
        try (PipelineHarness driver = new PipelineHarness()) { // the default EngramConfig
            // rated as low as a remark (as an LLM may rate it): the safety category, not the number, keeps it
            final MemoryCandidate allergy = with(fact(MIRA, "c-1", at(0), "allergy:shellfish", "shellfish",
                "Is allergic to shellfish"), b -> b.setImportance(REMARK).setCategory(FactCategory.CONSTRAINT));
            // a safety slot filed under another category counts as well
            final MemoryCandidate insulin = with(fact(MIRA, "c-2", at(0), "medication:insulin", "insulin", "Takes insulin"),
                b -> b.setImportance(REMARK).setCategory(FactCategory.PERSONAL));
            final MemoryCandidate idle = remark("c-3", 0, "Had a sandwich at the station.");
            driver.pipe(allergy, insulin, idle);

            driver.advanceTo(day(100));
            assertThat(driver.consolidator().memory(MIRA, idle.getCandidateId()).getArchiveReason())
                .as("the remark, as unused and as unimportant, is stale").isEqualTo(ArchiveReason.STALE);
            driver.advanceTo(day(400));
            assertThat(driver.consolidator().active(MIRA)).extracting(Memory::getMemoryId)
                .containsExactlyInAnyOrder(allergy.getCandidateId(), insulin.getCandidateId());
            assertThat(driver.retriever().active(MIRA)).extracting(Memory::getKey)
                .containsExactlyInAnyOrder("allergy:shellfish", "medication:insulin");
        }
    }

    @Test
    void shouldReviveAStaleMemoryAndAnExpiredFactWhenRestatedInsteadOfCreatingACopy() {
        try (PipelineHarness driver = new PipelineHarness()) { // the defaults
            final MemoryCandidate sandwich = remark("c-1", 0, "Had a sandwich at the station.");
            final MemoryCandidate project = with(fact(MIRA, "c-2", at(0), "project", "Atlas", "Is working on project Atlas"),
                b -> b.setCategory(FactCategory.CONTEXT));
            final MemoryCandidate city = fact(MIRA, "c-3", at(0), "city", "Lyon", "Lives in Lyon");
            driver.pipe(sandwich, project, city);
            driver.pipe(fact(MIRA, "c-4", at(10), "city", "Nantes", "Moved to Nantes"));
            driver.advanceTo(day(100));
            assertThat(driver.consolidator().memory(MIRA, sandwich.getCandidateId()).getArchiveReason()).isEqualTo(ArchiveReason.STALE);
            assertThat(driver.consolidator().memory(MIRA, project.getCandidateId()).getArchiveReason()).isEqualTo(ArchiveReason.EXPIRED);
            final int before = driver.consolidator().memories(MIRA).size();

            driver.pipe(remark("c-5", 120, "Had a sandwich at the station again."),
                with(fact(MIRA, "c-6", at(121), "project", "Atlas", "Still working on project Atlas"),
                    b -> b.setCategory(FactCategory.CONTEXT)),
                fact(MIRA, "c-7", at(122), "city", "Lyon", "Lives in Lyon"));

            final Memory revived = driver.consolidator().memory(MIRA, sandwich.getCandidateId());
            assertThat(revived.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
            assertThat(revived.getArchiveReason()).isNull();
            assertThat(revived.getReinforcementCount()).isEqualTo(2);
            assertThat(revived.getLastConfirmedAt()).isEqualTo(day(120));
            assertThat(revived.getSources()).extracting(SourceRef::getConversationId).containsExactly("c-1", "c-5");
            final Memory fact = driver.consolidator().memory(MIRA, project.getCandidateId());
            assertThat(fact.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
            assertThat(fact.getReinforcementCount()).isEqualTo(2);
            assertThat(driver.consolidator().profile(MIRA).getFacts()).containsKey("project");
            assertThat(driver.operations()).filteredOn(kv -> kv.key.equals(sandwich.getCandidateId()))
                .extracting(kv -> kv.value).containsExactly("CREATED", "ARCHIVED", "REINFORCED");
            // Lyon was superseded (a statement about its truth): saying it again is a new statement, not a revival
            assertThat(driver.consolidator().memory(MIRA, city.getCandidateId()).getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(driver.consolidator().memories(MIRA)).as("only the new Lyon is new").hasSize(before + 1);

            driver.pipe(remark("c-5", 120, "Had a sandwich at the station again.")); // redelivered
            assertThat(driver.consolidator().memory(MIRA, sandwich.getCandidateId()).getReinforcementCount()).isEqualTo(2);
            driver.advanceTo(day(200));
            assertThat(driver.consolidator().memory(MIRA, sandwich.getCandidateId()).getStatus())
                .as("the restatement counts as use: not stale 80 days later").isEqualTo(MemoryStatus.ACTIVE);
        }
    }

    @Test
    void shouldMergeSimilarEpisodesIntoOneMemoryWithTheUnionOfTheirSources() {
        final String first = "We went hiking in the Alps last weekend.";
        final String second = "Last weekend we hiked in the Alps.";
        final double cosine = FedCandidates.cosine(first, second);
        assertThat(cosine).as("a near-duplicate pair").isGreaterThan(0.85);
        // Creation keeps both (reinforce threshold above their cosine); the daily pass merges them.
        try (PipelineHarness driver = new PipelineHarness(Map.of(DomainConfig.REINFORCE_THRESHOLD, 0.99,
            DomainConfig.JUDGE_THRESHOLD, 0.99))) {
            final MemoryCandidate a = episodic(MIRA, "c-1", at(0), first);
            final MemoryCandidate b = with(episodic(MIRA, "c-2", T0.plusSeconds(3600).toString(), second),
                x -> x.setImportance(0.8));
            driver.pipe(a, b);
            driver.access(MIRA, T0.plusSeconds(7200), a.getCandidateId());
            assertThat(driver.consolidator().active(MIRA)).hasSize(2);

            driver.advanceTo(day(3));
            final List<Memory> active = driver.consolidator().active(MIRA);
            assertThat(active).hasSize(1);
            final Memory merged = active.get(0);
            assertThat(merged.getContent()).isEqualTo(second + " " + first); // the most important member's first
            assertThat(merged.getImportance()).isEqualTo(0.8);
            assertThat(driver.consolidator().joined(MIRA, merged.getMemoryId()).getAccessCount())
                .as("the survivor's hit stays with its id").isEqualTo(1);
            assertThat(merged.getSources()).extracting(SourceRef::getConversationId).containsExactlyInAnyOrder("c-1", "c-2");
            assertThat(merged.getMemoryId()).as("the oldest member survives with its id").isEqualTo(a.getCandidateId());
            assertThat(merged.getSupersedes()).containsExactly(b.getCandidateId());
            final Memory archived = driver.consolidator().memory(MIRA, b.getCandidateId());
            assertThat(archived.getArchiveReason()).isEqualTo(ArchiveReason.MERGED);
            assertThat(archived.getSupersededBy()).isEqualTo(merged.getMemoryId());
            assertThat(driver.operations()).extracting(kv -> kv.value).contains("MERGED");
        }
    }

    @Test
    void shouldReinforceTheMergedMemoryWhenAMergedEpisodeIsSaidAgainAfterThePass() {
        final String first = "We went hiking in the Alps last weekend.";
        final String second = "Last weekend we hiked in the Alps.";
        try (PipelineHarness driver = new PipelineHarness(Map.of(DomainConfig.REINFORCE_THRESHOLD, 0.99,
            DomainConfig.JUDGE_THRESHOLD, 0.99))) {
            final MemoryCandidate a = episodic(MIRA, "c-1", at(0), first);
            final MemoryCandidate b = with(episodic(MIRA, "c-2", T0.plusSeconds(3600).toString(), second),
                x -> x.setImportance(0.8));
            driver.pipe(a, b); // the consolidator has read (and keeps) both members
            driver.advanceTo(day(3)); // the lifecycle processor of the same task merges them
            final Memory merged = driver.consolidator().active(MIRA).get(0);

            // The same words again: the candidate must meet the store as the merge left it (members archived,
            // the merged memory active), not the consolidator's earlier reading of it.
            driver.pipe(episodic(MIRA, "c-3", at(4), second));

            assertThat(driver.consolidator().active(MIRA)).extracting(Memory::getMemoryId).containsExactly(merged.getMemoryId());
            assertThat(driver.consolidator().memory(MIRA, merged.getMemoryId()).getReinforcementCount())
                .isEqualTo(merged.getReinforcementCount() + 1);
            assertThat(driver.consolidator().memory(MIRA, b.getCandidateId()).getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(driver.consolidator().memory(MIRA, b.getCandidateId()).getReinforcementCount()).isEqualTo(1);
        }
    }

    @Test
    void shouldHardDeleteAnArchivedMemory365DaysAfterItWasArchived() {
        try (PipelineHarness driver = new PipelineHarness()) {
            final MemoryCandidate lyon = fact(MIRA, "c-1", at(0), "city", "Lyon", "Lives in Lyon");
            final MemoryCandidate nantes = fact(MIRA, "c-2", at(10), "city", "Nantes", "Moved to Nantes");
            driver.pipe(lyon, nantes);
            driver.advanceTo(day(374));
            assertThat(driver.consolidator().memory(MIRA, lyon.getCandidateId()).getStatus()).isEqualTo(MemoryStatus.ARCHIVED);

            driver.advanceTo(day(375));
            assertThat(driver.consolidator().memory(MIRA, lyon.getCandidateId())).isNull();
            assertThat(driver.consolidator().memoriesStore()).doesNotContainKey(MIRA + "\u0000" + lyon.getCandidateId());
            assertThat(driver.updated()).filteredOn(r -> r.value().getOperation() == UpdateOperation.DELETED)
                .singleElement().satisfies(r -> assertThat(r.value().getMemoryId()).isEqualTo(lyon.getCandidateId()));
            assertThat(driver.consolidator().memory(MIRA, nantes.getCandidateId()).getStatus()).isEqualTo(MemoryStatus.ACTIVE);
            assertThat(driver.consolidator().profile(MIRA).getArchivedMemories()).isZero();
        }
    }

    @Test
    void shouldCountAccessesApartFromTheMemoryAndAnswerAsOfAPointInEventTime() {
        try (PipelineHarness driver = new PipelineHarness()) {
            final MemoryCandidate lyon = fact(MIRA, "c-1", at(0), "city", "Lyon", "Lives in Lyon");
            final MemoryCandidate nantes = fact(MIRA, "c-2", at(10), "city", "Nantes", "Moved to Nantes");
            driver.pipe(lyon);
            final int eventsBefore = driver.operations().size();
            driver.access(MIRA, day(5), lyon.getCandidateId()).access(MIRA, day(6), lyon.getCandidateId());
            // a read never rewrites the memory: no memory-updated record, the stored memory as it was
            assertThat(driver.operations()).hasSize(eventsBefore);
            assertThat(driver.consolidator().memory(MIRA, lyon.getCandidateId()).getAccessCount()).isZero();
            // both apps hold the hits, and join them with the memory
            for (final Stage stage : List.of(driver.consolidator(), driver.retriever())) {
                assertThat(stage.hits(MIRA, lyon.getCandidateId())).isEqualTo(new AccessCounts(2, day(6).toEpochMilli()));
                final Memory joined = stage.joined(MIRA, lyon.getCandidateId());
                assertThat(joined.getAccessCount()).isEqualTo(2);
                assertThat(joined.getLastAccessedAt()).isEqualTo(day(6));
            }

            driver.pipe(nantes);
            final Memory superseded = driver.consolidator().memory(MIRA, lyon.getCandidateId());
            assertThat(superseded.getValidTo()).isEqualTo(day(10));
            final HybridScorer scorer = new HybridScorer(ScriptRoutedEmbedder.defaults(), EngramConfig.defaults());
            final List<Memory> all = driver.consolidator().memories(MIRA);
            assertThat(scorer.rank(RankRequest.of("where does she live?", 5).memories(all))).extracting(h -> h.memory().getValue())
                .containsExactly("Nantes"); // archived memories are never returned by default
            assertThat(scorer.rank(RankRequest.of("where does she live?", 5).memories(all).asOf(day(7)))).extracting(h -> h.memory().getValue())
                .containsExactly("Lyon");
            assertThat(scorer.rank(RankRequest.of("where does she live?", 5).memories(all).asOf(day(11)))).extracting(h -> h.memory().getValue())
                .containsExactly("Nantes");
        }
    }

    @Test
    void shouldRaiseTheAccessCountOncePerListingWhenOneReportCarriesSeveralRequests() {
        try (PipelineHarness driver = new PipelineHarness()) {
            final MemoryCandidate lyon = fact(MIRA, "c-1", at(0), "city", "Lyon", "Lives in Lyon");
            final MemoryCandidate hike = episodic(MIRA, "c-2", at(0), "We went hiking in the Alps last weekend.");
            driver.pipe(lyon, hike);
            // three requests of one batch: Lyon returned by all three, the hike by one
            driver.access(MIRA, day(5), lyon.getCandidateId(), hike.getCandidateId(), lyon.getCandidateId(),
                lyon.getCandidateId());
            for (final Stage stage : List.of(driver.consolidator(), driver.retriever())) {
                assertThat(stage.hits(MIRA, lyon.getCandidateId()).hits()).isEqualTo(3);
                assertThat(stage.hits(MIRA, hike.getCandidateId()).hits()).isEqualTo(1);
            }
        }
    }

    @Test
    void shouldWriteNoMemoryUpdatedRecordForHitsAndServeThemAtOnceWhenQueriesComeInBursts() {
        try (PipelineHarness driver = new PipelineHarness()) {
            final MemoryCandidate lyon = fact(MIRA, "c-1", at(0), "city", "Lyon", "Lives in Lyon");
            final MemoryCandidate hike = episodic(MIRA, "c-2", at(0), "We went hiking in the Alps last weekend.");
            driver.pipe(lyon, hike);
            final int eventsBefore = driver.operations().size();
            final Instant t = day(5);
            driver.access(MIRA, t, lyon.getCandidateId());
            driver.access(MIRA, t.plusSeconds(5), lyon.getCandidateId(), hike.getCandidateId());
            driver.access(MIRA, t.plusSeconds(12), lyon.getCandidateId());
            // a record stamped earlier than one already folded (two retriever instances): the latest time stays
            driver.access(MIRA, t.plusSeconds(3), lyon.getCandidateId(), lyon.getCandidateId());
            driver.advanceTo(day(40)); // and a lifecycle pass in between
            assertThat(driver.operations()).as("no record for a read, in the stream of memory-updated").hasSize(eventsBefore);
            assertThat(driver.history(MIRA, lyon.getCandidateId())).extracting(MemoryUpdated::getOperation)
                .containsExactly(UpdateOperation.CREATED);
            // what a query sees, at once: the read model's memory joined with its hits, ranked with them
            final Memory served = driver.retriever().joined(MIRA, lyon.getCandidateId());
            assertThat(served.getAccessCount()).isEqualTo(5);
            assertThat(served.getLastAccessedAt()).isEqualTo(t.plusSeconds(12));
            assertThat(driver.retrieve(MIRA, "where does she live?", 1)).singleElement()
                .satisfies(hit -> assertThat(hit.memory().getAccessCount()).isEqualTo(5));
            assertThat(driver.consolidator().hits(MIRA, hike.getCandidateId()))
                .isEqualTo(driver.retriever().hits(MIRA, hike.getCandidateId()))
                .isEqualTo(new AccessCounts(1, t.plusSeconds(5).toEpochMilli()));
        }
    }

    @Test
    void shouldCountAHitJustBeforeTheLifecyclePassSoThatAMemoryAccessedThenIsNotStale() {
        try (PipelineHarness driver = new PipelineHarness(Map.of(DomainConfig.MIN_IMPORTANCE, 0.1))) {
            final MemoryCandidate used = with(episodic(MIRA, "c-1", at(0), "Bought a new bicycle helmet."),
                b -> b.setImportance(0.2));
            final MemoryCandidate idle = with(episodic(MIRA, "c-2", at(0), "Watched a documentary about bees."),
                b -> b.setImportance(0.2));
            driver.pipe(used, idle);
            // a pass runs when stream time crosses a midnight, at that stream time; day 89 is not 90 days unused yet
            driver.advanceTo(day(89));
            final Instant midnight = day(91).minus(Duration.ofHours(33));
            driver.advanceTo(midnight.minusSeconds(29));
            assertThat(driver.consolidator().active(MIRA)).hasSize(2);
            driver.access(MIRA, midnight.minusSeconds(15), used.getCandidateId());
            driver.advanceTo(day(91)); // the pass finds both unused for 91 days, but for the hit
            assertThat(driver.consolidator().memory(MIRA, used.getCandidateId())).satisfies(m -> {
                assertThat(m.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
                assertThat(m.getAccessCount()).as("the stored memory: never rewritten for a read").isZero();
            });
            assertThat(driver.consolidator().memory(MIRA, idle.getCandidateId()).getArchiveReason())
                .isEqualTo(ArchiveReason.STALE);
        }
    }

    @Test
    void shouldAddTheMembersHitsToAMergedMemoryAndForgetTheHitsOfDeletedMemoriesAndErasedUsers() {
        try (PipelineHarness driver = new PipelineHarness(Map.of(DomainConfig.REINFORCE_THRESHOLD, 0.99,
            DomainConfig.JUDGE_THRESHOLD, 0.99))) {
            final MemoryCandidate hike = episodic(MIRA, "c-1", at(0), "We went hiking in the Alps last weekend.");
            final MemoryCandidate again = episodic(MIRA, "c-2", at(3), "Last weekend we hiked in the Alps.");
            final MemoryCandidate lyon = fact(MIRA, "c-3", at(1), "city", "Lyon", "Lives in Lyon");
            driver.pipe(hike, lyon);
            driver.access(MIRA, day(2), hike.getCandidateId(), hike.getCandidateId());
            driver.pipe(again);
            driver.advanceTo(day(30)); // the daily pass merges the two hikes
            final Memory merged = driver.consolidator().active(MIRA).stream()
                .filter(m -> m.getSupersedes().contains(again.getCandidateId())).findFirst().orElseThrow();
            assertThat(merged.getMemoryId()).as("the oldest member survives with its id").isEqualTo(hike.getCandidateId());
            assertThat(merged.getLastAccessedAt()).as("the latest use of a member: the hit, or a later statement")
                .isEqualTo(again.getEventTime());
            for (final Stage stage : List.of(driver.consolidator(), driver.retriever())) {
                assertThat(stage.joined(MIRA, merged.getMemoryId()).getAccessCount())
                    .as("the survivor's hits, once, and the other members'").isEqualTo(2);
            }

            driver.access(MIRA, day(31), lyon.getCandidateId());
            driver.command(MemoryCommand.newBuilder().setCommandId("delete-lyon").setTenantId("t1").setUserId("u-mira")
                .setKind(CommandKind.DELETE).setMemoryId(lyon.getCandidateId()).setContent(null).setValue(null)
                .setMemoryEnabled(null).setActor("test").setIssuedAt(day(32)).build());
            for (final Stage stage : List.of(driver.consolidator(), driver.retriever())) {
                assertThat(stage.hits(MIRA, lyon.getCandidateId())).isEqualTo(AccessCounts.NONE);
            }

            driver.access(MIRA, day(33), merged.getMemoryId());
            driver.command(MemoryCommand.newBuilder().setCommandId("erase").setTenantId("t1").setUserId("u-mira")
                .setKind(CommandKind.ERASE).setMemoryId(null).setContent(null).setValue(null)
                .setMemoryEnabled(null).setActor("test").setIssuedAt(day(34)).build());
            // a hit from before the erasure, replayed or in flight, never brings counts back; a later one counts
            driver.access(MIRA, day(33).plusSeconds(1), merged.getMemoryId());
            for (final Stage stage : List.of(driver.consolidator(), driver.retriever())) {
                assertThat(stage.hits(MIRA, merged.getMemoryId())).isEqualTo(AccessCounts.NONE);
            }
            driver.access(MIRA, day(35), merged.getMemoryId());
            for (final Stage stage : List.of(driver.consolidator(), driver.retriever())) {
                assertThat(stage.hits(MIRA, merged.getMemoryId()).hits()).isEqualTo(1);
            }
        }
    }

    @Test
    void shouldRebuildIdenticalStoresAndEventsWhenTheSameTopicsAreReplayedIntoAFreshApplication() throws Exception {
        final String first = scenarioHash();
        final String second = scenarioHash();
        assertThat(second).isEqualTo(first);
    }

    /** Every rule fires once; returns a SHA-256 over both stores and every memory-updated record. */
    private static String scenarioHash() throws Exception {
        try (PipelineHarness driver = new PipelineHarness(Map.of(DomainConfig.MIN_IMPORTANCE, 0.1,
            DomainConfig.REINFORCE_THRESHOLD, 0.99, DomainConfig.JUDGE_THRESHOLD, 0.99))) {
            final MemoryCandidate hike = episodic(MIRA, "c-1", at(0), "We went hiking in the Alps last weekend.");
            driver.pipe(hike, fact(MIRA, "c-2", at(0), "employer", "Ferrovia Labs", "Works at Ferrovia Labs"),
                fact(MIRA, "c-3", at(1), "city", "Lyon", "Lives in Lyon"),
                with(episodic(MIRA, "c-4", at(2), "Watched a documentary about bees."), b -> b.setImportance(0.2)),
                episodic(MIRA, "c-5", at(3), "Last weekend we hiked in the Alps."),
                fact(MIRA, "c-6", at(20), "city", "Nantes", "Moved to Nantes"));
            driver.access(MIRA, day(4), hike.getCandidateId());
            for (final int d : List.of(30, 90, 120, 200, 390)) {
                driver.advanceTo(day(d));
            }
            assertThat(driver.operations()).extracting(kv -> kv.value)
                .contains("CREATED", "SUPERSEDED", "MERGED", "ARCHIVED", "DELETED").doesNotContain("ACCESSED");
            final MessageDigest sha = MessageDigest.getInstance("SHA-256");
            final var memorySerde = AvroSerdes.serde(Memory.class).serializer();
            driver.consolidator().memoriesStore().forEach((k, v) -> {
                sha.update(k.getBytes(StandardCharsets.UTF_8));
                sha.update(memorySerde.serialize("h", v));
            });
            final var profileSerde = AvroSerdes.serde(dev.engram.avro.UserProfile.class).serializer();
            driver.consolidator().profilesStore().forEach((k, v) -> {
                sha.update(k.getBytes(StandardCharsets.UTF_8));
                sha.update(profileSerde.serialize("h", v));
            });
            // the hits, kept apart from the memories
            sha.update(driver.consolidator().hits(MIRA, hike.getCandidateId()).toString().getBytes(StandardCharsets.UTF_8));
            final var updateSerde = AvroSerdes.serde(MemoryUpdated.class).serializer();
            for (final TestRecord<String, MemoryUpdated> r : driver.updated()) {
                sha.update(r.key().getBytes(StandardCharsets.UTF_8));
                sha.update(Long.toString(r.timestamp()).getBytes(StandardCharsets.UTF_8));
                sha.update(updateSerde.serialize("h", r.value()));
            }
            return HexFormat.of().formatHex(sha.digest());
        }
    }
}
