package dev.engram.topology;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.testing.PipelineHarness;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * A pet or person renamed in conversation (a fresh user's trial): "Correction: my cat's name is Mia, not Luna" left
 * {@code pet:luna} = Luna and {@code pet:mia} = Mia both ACTIVE ("Pets: cat, cat Luna, cat Mia."), and "We renamed our
 * dog, he is called Max now" stored nothing. A renaming statement supersedes the fact of the same slot it names as
 * replaced, as a move supersedes the old city; a name it says is not replaced, or a rename of a kind the user has two
 * of, merges nothing. The whole pipeline on TopologyTestDriver: the rule-based extractor, the default embedder.
 */
class RenamedEntityTest {

    private static final String TENANT = "t1";
    private static final String NINA = "u-nina";
    private static final String USER = TENANT + "/" + NINA;
    private static final Instant T0 = Instant.parse("2025-03-01T09:00:00Z");

    private static void say(final PipelineHarness driver, final String conversationId, final String text, final int days) {
        driver.publish(conversation(TENANT, NINA, conversationId, user(text, T0.plus(Duration.ofDays(days)).toString())));
    }

    private static List<Memory> facts(final List<Memory> memories, final String prefix) {
        return memories.stream().filter(m -> m.getKey() != null && m.getKey().startsWith(prefix)).toList();
    }

    private static Memory only(final PipelineHarness driver, final String key) {
        return driver.consolidator().memories(USER).stream().filter(m -> key.equals(m.getKey())).findFirst().orElseThrow();
    }

    /** The new fact is the only ACTIVE pet in both stores, and it superseded the old one. */
    private static void assertRenamed(final PipelineHarness driver, final Memory old, final String key, final String value) {
        for (final List<Memory> memories : List.of(driver.consolidator().active(USER), driver.retriever().active(USER))) {
            assertThat(facts(memories, "pet:")).as("one ACTIVE fact about one pet").extracting(Memory::getKey, Memory::getValue)
                .containsExactly(Tuple.tuple(key, value));
        }
        final Memory renamed = driver.consolidator().memory(USER, old.getMemoryId());
        final Memory current = facts(driver.consolidator().active(USER), "pet:").get(0);
        assertThat(renamed.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
        assertThat(renamed.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
        assertThat(renamed.getSupersededBy()).isEqualTo(current.getMemoryId());
        assertThat(current.getSupersedes()).containsExactly(old.getMemoryId());
    }

    @Test
    void shouldSupersedeTheOldNameWhenTheUserCorrectsThePetsName() {
        try (PipelineHarness driver = new PipelineHarness()) {
            say(driver, "a1", "I work at Siemens as a data analyst. I am vegetarian. My cat is called Luna.", 0);
            final Memory luna = only(driver, "pet:luna");

            say(driver, "a2", "Correction: my cat's name is Mia, not Luna.", 3);

            assertRenamed(driver, luna, "pet:mia", "Mia");
            assertThat(driver.consolidator().active(USER)).as("the other facts stay")
                .extracting(Memory::getKey).contains("employer", "role", "diet");
            assertThat(driver.consolidator().profile(USER).getFacts()).containsKey("pet:mia").doesNotContainKey("pet:luna");
        }
    }

    @Test
    void shouldSupersedeTheOldNameWhenTheUserRenamesThePetOrSaysItIsActuallyCalledSomethingElse() {
        for (final String rename : List.of("Sorry, my dog is actually called Max, not Rex.",
                "We renamed our dog, he is called Max now.", "My dog is called Max now.", "We renamed our dog to Max.")) {
            try (PipelineHarness driver = new PipelineHarness()) {
                say(driver, "c-1", "I have a dog named Rex.", 0);
                final Memory rex = only(driver, "pet:rex");

                say(driver, "c-2", rename, 5);

                assertRenamed(driver, rex, "pet:max", "Max");
            }
        }
    }

    @Test
    void shouldMergeNothingWhenTheReplacedNameIsUnknownOrTheKindIsNotOne() {
        try (PipelineHarness driver = new PipelineHarness()) {
            say(driver, "c-1", "My cat Luna and my dog Max are best friends.", 0);
            say(driver, "c-2", "My cat's name is Mia, not Bella.", 2);
            assertThat(facts(driver.consolidator().active(USER), "pet:")).as("Bella names no pet: Mia is one more")
                .extracting(Memory::getKey).containsExactlyInAnyOrder("pet:luna", "pet:max", "pet:mia");
        }
        try (PipelineHarness driver = new PipelineHarness()) {
            say(driver, "c-1", "I have two dogs, Rex and Bruno.", 0);
            say(driver, "c-2", "We renamed our dog to Max.", 2);
            assertThat(facts(driver.consolidator().active(USER), "pet:")).as("which of two dogs is unsaid")
                .extracting(Memory::getKey).containsExactlyInAnyOrder("pet:rex", "pet:bruno", "pet:max");
        }
        try (PipelineHarness driver = new PipelineHarness()) {
            say(driver, "c-1", "I have a dog named Rex. My friend Luna visits often.", 0);
            say(driver, "c-2", "My cat's name is Mia, not Luna.", 2);
            assertThat(driver.consolidator().active(USER)).as("friend Luna is another slot").extracting(Memory::getKey)
                .contains("pet:rex", "friend:luna", "pet:mia");
        }
    }
}
