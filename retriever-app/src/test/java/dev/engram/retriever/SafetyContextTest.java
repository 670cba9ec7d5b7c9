package dev.engram.retriever;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.safety.SafetyFacts;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * Issue 27's allergy case on the whole pipeline (rule-based extractor, consolidator with its daily lifecycle pass,
 * read model; the default config): said once, never used, it outlives the stale time and is in the context block of
 * a food question that shares no word with it, packed as {@code GET .../context} packs it.
 */
class SafetyContextTest {

    private static final String NOOR = "t1/u-noor";
    private static final Instant T0 = Instant.parse("2025-01-05T12:00:00Z");

    private static String day(final int days) {
        return T0.plus(days, ChronoUnit.DAYS).toString();
    }

    @Test
    void shouldKeepAShellfishAllergyAndPinItInTheContextForPrawnsWhenItWasSaidOnceAHundredDaysBefore() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation("t1", "u-noor", "c-0", user("I'm allergic to shellfish.", day(0)),
                user("Had a sandwich at the station.", day(0))));
            final String[] later = {"The garage door broke again.", "Finished a 1000-piece puzzle of Lisbon.",
                "Our team shipped the billing dashboard.", "I repainted the fence blue.", "Watched the eclipse from the roof.",
                "The printer at work jammed twice.", "Sorted out the attic boxes.", "My car passed its inspection.",
                "Reorganized the bookshelf by colour.", "Replaced the bike chain.", "Cleaned the gutters before the storm."};
            for (int i = 0; i < later.length; i++) {
                pipeline.publish(conversation("t1", "u-noor", "c-" + (i + 1), user(later[i], day(10 * (i + 1)))));
            }

            final List<Memory> memories = pipeline.retriever().memories(NOOR);
            assertThat(memories).filteredOn(m -> m.getContent().contains("sandwich")).singleElement()
                .as("100 days of stream time ran the lifecycle: the unused remark is stale")
                .satisfies(m -> assertThat(m.getArchiveReason()).isEqualTo(ArchiveReason.STALE));
            assertThat(memories).filteredOn(m -> "allergy:shellfish".equals(m.getKey())).singleElement().satisfies(m -> {
                assertThat(m.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
                assertThat(m.getCategory()).isEqualTo(FactCategory.CONSTRAINT);
                assertThat(m.getImportance()).isGreaterThan(0.9);
            });

            final String question = "Can I eat prawns?";
            assertThat(SafetyFacts.concerns(question)).isTrue();
            final ContextBlock.Result block = ContextBlock.build(SafetyFacts.DEFAULT.pinned(memories), List.of(), 512);
            assertThat(block.text()).contains("allergic to shellfish");
        }
    }
}
