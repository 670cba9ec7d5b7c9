package dev.engram.cases;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Locale;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.UpdateOperation;
import dev.engram.scoring.ScoredMemory;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * Case 15 of ../shared/cases through the whole offline pipeline (rule-based extractor, MiniLM,
 * consolidation, read model, retrieval): statements that differ only in a number, a code or an
 * identifier stay separate memories — never reinforced, merged or judged duplicates by cosine alone —
 * and a query naming the identifier ranks its memory first.
 */
class IdentifierCasesTest {

    @Test
    void shouldKeepFiftyProjectsApartAndRankTheNamedOneFirstWhenTheyDifferOnlyByNumber() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            for (int i = 1; i <= 50; i++) {
                pipeline.publish(conversation("t1", "u-nora", "c-north-" + i,
                    user("I'm working on project North-" + i + ".", Instant.parse("2025-03-01T09:00:00Z").plusSeconds(3600L * i).toString())));
            }

            final List<Memory> all = pipeline.retriever().memories("t1/u-nora");
            for (int i = 1; i <= 50; i++) {
                final String name = "north-" + i;
                assertThat(all).as("a memory of %s", name)
                    .anyMatch(m -> m.getStatus() == MemoryStatus.ACTIVE && names(m, name));
            }
            assertThat(pipeline.updates()).extracting(u -> u.getOperation())
                .doesNotContain(UpdateOperation.REINFORCED, UpdateOperation.MERGED);

            final List<ScoredMemory> hits = pipeline.retrieve("t1/u-nora", "project North-17", 5);
            assertThat(hits).isNotEmpty();
            assertThat(names(hits.get(0).memory(), "north-17")).as("first hit %s", hits.get(0).memory().getContent()).isTrue();
        }
    }

    @Test
    void shouldKeepLockerFlightsAndRoomsApartAndSupersedeTheLockerByItsKey_case15() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(
                conversation("t1", "u-kai", "c-150", user("My locker at the gym is number 14.", "2025-04-01T08:00:00Z")),
                conversation("t1", "u-kai", "c-151", user("I booked flight LH 441 to Osaka.", "2025-04-02T08:00:00Z")),
                conversation("t1", "u-kai", "c-152", user("I booked flight LH 414 to Osaka.", "2025-04-03T08:00:00Z")),
                conversation("t1", "u-kai", "c-153", user("Our team room is B-207, the other team is in B-702.",
                    "2025-04-04T08:00:00Z")));

            final List<Memory> active = pipeline.retriever().active("t1/u-kai");
            assertThat(active).as("locker 14").anyMatch(m -> m.getContent().contains("14"));
            final Memory lh441 = active.stream().filter(m -> m.getContent().contains("441")).findFirst().orElseThrow();
            final Memory lh414 = active.stream().filter(m -> m.getContent().contains("414")).findFirst().orElseThrow();
            assertThat(lh441.getMemoryId()).isNotEqualTo(lh414.getMemoryId());
            assertThat(lh441.getReinforcementCount()).isEqualTo(1);
            assertThat(lh414.getReinforcementCount()).isEqualTo(1);
            assertThat(active).as("the rooms").anyMatch(m -> m.getContent().contains("B-207"));
            assertThat(pipeline.updates()).extracting(u -> u.getOperation()).doesNotContain(UpdateOperation.REINFORCED);

            final List<ScoredMemory> hits = pipeline.retrieve("t1/u-kai", "which flight is LH 414?", 5);
            assertThat(hits.get(0).memory().getMemoryId()).isEqualTo(lh414.getMemoryId());

            final Memory locker14 = active.stream().filter(m -> "locker_number".equals(m.getKey())).findFirst().orElseThrow();
            assertThat(locker14.getValue()).isEqualTo("14");
            pipeline.publish(conversation("t1", "u-kai", "c-154", user("My locker is number 41 now.", "2025-05-01T08:00:00Z")));

            final Memory old = pipeline.retriever().memories("t1/u-kai").stream()
                .filter(m -> m.getMemoryId().equals(locker14.getMemoryId())).findFirst().orElseThrow();
            assertThat(old.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(old.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
            assertThat(pipeline.retriever().active("t1/u-kai")).filteredOn(m -> "locker_number".equals(m.getKey()))
                .singleElement().satisfies(m -> {
                    assertThat(m.getValue()).isEqualTo("41");
                    assertThat(m.getMemoryId()).isEqualTo(old.getSupersededBy());
                });
        }
    }

    /** @return whether the content names {@code id} as a whole token ("north-1" is not in "north-17") */
    private static boolean names(final Memory m, final String id) {
        return java.util.regex.Pattern.compile("(?<![\\w-])" + java.util.regex.Pattern.quote(id) + "(?![\\w-])")
            .matcher(m.getContent().toLowerCase(Locale.ROOT)).find();
    }
}
