package dev.engram.topology;

import static dev.engram.topology.FedCandidates.episodic;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.consolidation.Observations;
import dev.engram.domain.DomainConfig;
import dev.engram.port.ExtractedMemory;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * Observations do not depend on when the consolidator regroups them ({@link ObservationRegroups}), on
 * TopologyTestDriver with the real default embedder and the default settings (observations on): a user whose
 * statements changed is regrouped on the wall clock without stream time advancing; the records of a live run and
 * of a replay, interleaved differently with a later-stamped access record (the failure of the clean-clone CI's
 * {@code OpsStackIT} before this), end with identical memories, every field; a hit on an observation is kept
 * whichever schedule wrote it; the text is the statements as sentences, without the questions they answered and
 * without small talk.
 */
class ObservationReplayTest {

    private static final String MIRA = "t1/u-mira";
    private static final Instant T0 = Instant.parse("2025-03-01T09:00:00Z");
    private static final Duration TICK =
        Duration.ofMillis(EngramConfig.defaults().getLong(DomainConfig.OBSERVE_INTERVAL_MS));
    private static final List<String> SAID = List.of(
        "Mira went camping at the beach with her kids.",
        "Mira camped in the mountains with her family last summer.",
        "Mira loves camping in the forest and sleeping in a tent.",
        "Mira works as a nurse at the city hospital.",
        "Mira is learning to bake sourdough bread.");

    private static PipelineHarness harness() {
        return PipelineHarness.builder().observations(ScriptRoutedEmbedder.defaults()).build();
    }

    private static String hour(final int hours) {
        return T0.plus(Duration.ofHours(hours)).toString();
    }

    /** One statement per conversation, an hour apart. */
    private static List<MemoryCandidate> said() {
        final List<MemoryCandidate> out = new ArrayList<>();
        for (int i = 0; i < SAID.size(); i++) {
            out.add(episodic(MIRA, "c-" + i, hour(i), SAID.get(i)));
        }
        return out;
    }

    /** A grouped observation: not a topic list, which the same pass writes from the same statements (TopicLists). */
    private static boolean grouped(final Memory m) {
        return m != null && Observations.isObservation(m) && !ExtractedMemory.isTopicList(m.getType(), m.getDisplayName());
    }

    private static List<Memory> observations(final PipelineHarness driver) {
        return driver.consolidator().memories(MIRA).stream().filter(ObservationReplayTest::grouped).toList();
    }

    /**
     * Every memory of the user in the consolidator's store, by id (what {@code bin/engram verify} hashes), joined with
     * its retrieval hits (the access store: what the lifecycle pass and the retriever read).
     */
    private static List<Memory> state(final PipelineHarness driver) {
        return driver.consolidator().memories(MIRA).stream().sorted(Comparator.comparing(Memory::getMemoryId))
            .map(m -> driver.consolidator().joined(MIRA, m.getMemoryId())).toList();
    }

    private static String observationId(final PipelineHarness driver, final MemoryCandidate first) {
        return Observations.idOf(driver.consolidator().memory(MIRA, first.getCandidateId()));
    }

    @Test
    void shouldRegroupAPendingUserOnTheWallClockWithoutAnotherDayOfStreamTime() {
        try (PipelineHarness driver = harness()) {
            driver.pipe(said().toArray(MemoryCandidate[]::new));
            assertThat(observations(driver)).as("pending, not regrouped inside the candidate's processing").isEmpty();

            driver.advanceWallClock(TICK);

            assertThat(observations(driver)).singleElement().satisfies(o -> {
                assertThat(o.getSources()).extracting(SourceRef::getConversationId).containsExactly("c-0", "c-1", "c-2");
                assertThat(o.getContent()).isEqualTo(String.join(" ", SAID.subList(0, 3)));
                assertThat(o.getUpdatedAt()).as("its statements' time, not the regrouping's")
                    .isEqualTo(Instant.parse(hour(2)));
            });
            assertThat(driver.updates()).filteredOn(u -> grouped(u.getMemory())).hasSize(1);

            driver.advanceWallClock(TICK);
            assertThat(driver.updates()).as("nothing pending: nothing written again")
                .filteredOn(u -> grouped(u.getMemory())).hasSize(1);
        }
    }

    @Test
    void shouldNotRewriteAnObservationWhenItsStatementsAreRestatedInOtherConversations() {
        try (PipelineHarness driver = harness()) {
            driver.pipe(said().toArray(MemoryCandidate[]::new));
            driver.advanceWallClock(TICK);
            final Memory observation = observations(driver).get(0);
            final int before = driver.updates().size();
            // the camping statements said again, ten times each, in conversations of their own, regrouped every time
            final List<MemoryCandidate> restated = new ArrayList<>();
            for (int round = 0; round < 10; round++) {
                for (int i = 0; i < 3; i++) {
                    final MemoryCandidate again = episodic(MIRA, "r-" + round + "-" + i, hour(10 + 3 * round + i), SAID.get(i));
                    restated.add(again);
                    driver.pipe(again);
                    driver.advanceWallClock(TICK);
                }
            }
            final List<MemoryUpdated> after = driver.updates().subList(before, driver.updates().size());
            assertThat(after).extracting(MemoryUpdated::getOperation).as("one record per restatement: the statement's")
                .hasSize(restated.size()).containsOnly(UpdateOperation.REINFORCED);
            assertThat(observations(driver)).singleElement().isEqualTo(observation);
            // the statements keep every conversation that said them
            assertThat(driver.consolidator().memory(MIRA, said().get(0).getCandidateId()).getSources()).hasSize(11);
        }
    }

    @Test
    void shouldEndWithIdenticalMemoriesWhenALaterStampedAccessRecordInterleavesDifferentlyWithTheCandidates() {
        try (PipelineHarness live = harness(); PipelineHarness replay = harness()) {
            final List<MemoryCandidate> said = said();
            final Instant accessed = T0.plus(Duration.ofDays(30)); // a query stamped with today's wall clock
            // live: the access record comes after two candidates; it moves stream time a month on, so the daily pass
            // runs before the other candidates are in, and stream time then stays where it is
            live.pipe(said.get(0), said.get(1));
            live.access(MIRA, accessed, said.get(0).getCandidateId());
            assertThat(observations(live)).as("the daily pass grouped the two it had").singleElement()
                .satisfies(o -> assertThat(o.getSources()).hasSize(2));
            live.pipe(said.subList(2, said.size()).toArray(MemoryCandidate[]::new));
            live.advanceWallClock(TICK);
            // replay: every candidate, then the access record
            replay.pipe(said.toArray(MemoryCandidate[]::new));
            replay.access(MIRA, accessed, said.get(0).getCandidateId());
            replay.advanceWallClock(TICK);

            assertThat(observations(replay)).singleElement().satisfies(o -> assertThat(o.getSources())
                .extracting(SourceRef::getConversationId).containsExactly("c-0", "c-1", "c-2"));
            assertThat(state(live)).as("every memory, every field").isEqualTo(state(replay));
        }
    }

    @Test
    void shouldKeepTheHitsOfAnObservationWhicheverScheduleWroteIt() {
        try (PipelineHarness live = harness(); PipelineHarness replay = harness()) {
            final List<MemoryCandidate> said = said();
            final MemoryCandidate lake = episodic(MIRA, "c-9", hour(7),
                "Mira went camping by the lake and cooked over a campfire.");
            for (final PipelineHarness driver : List.of(live, replay)) {
                driver.pipe(said.toArray(MemoryCandidate[]::new));
                if (driver == live) {
                    driver.advanceWallClock(TICK); // the live run regrouped before the retriever served it
                }
                // the observation was served: the replay regroups before it folds the hit, as the live run had
                driver.access(MIRA, Instant.parse(hour(5)), observationId(live, said.get(0)));
                driver.access(MIRA, Instant.parse(hour(6)));
                driver.pipe(lake);
                if (driver == live) {
                    driver.advanceWallClock(TICK);
                }
                driver.advanceTo(T0.plus(Duration.ofDays(7)));
            }

            assertThat(observations(replay)).singleElement()
                .extracting(o -> replay.consolidator().joined(MIRA, o.getMemoryId())).satisfies(o -> {
                assertThat(o.getAccessCount()).isEqualTo(1);
                // the later of its hit and its newest statement (the lake, after the hit)
                assertThat(o.getLastAccessedAt()).isEqualTo(Instant.parse(hour(7)));
                assertThat(o.getSources()).extracting(SourceRef::getConversationId).contains("c-9");
            });
            assertThat(state(live)).isEqualTo(state(replay));
        }
    }

    @Test
    void shouldStateEachStatementAsASentenceWithoutTheQuestionItAnsweredNorSmallTalk() {
        try (PipelineHarness driver = harness()) {
            final MemoryCandidate thanks = episodic(MIRA, "c-3", hour(3), "Wow, camping! Haha, nice!");
            driver.pipe(episodic(MIRA, "c-0", hour(0), "Mira went camping at the beach with her kids"),
                episodic(MIRA, "c-1", hour(1),
                    "Mira camped in the mountains with her family last summer (re: \"Where did you go camping?\")"),
                episodic(MIRA, "c-2", hour(2), "Mira went camping in the forest [image: a tent among pine trees]"),
                thanks);
            driver.advanceWallClock(TICK);

            assertThat(observations(driver)).singleElement().satisfies(o -> {
                assertThat(o.getContent()).isEqualTo("Mira went camping at the beach with her kids. Mira camped in the "
                    + "mountains with her family last summer. Mira went camping in the forest [image: a tent among "
                    + "pine trees].");
                assertThat(o.getSources()).extracting(SourceRef::getConversationId).containsExactly("c-0", "c-1", "c-2");
            });
            assertThat(Observations.saysSomething(driver.consolidator().memory(MIRA, thanks.getCandidateId())))
                .as("small talk is no topic").isFalse();
        }
    }
}
