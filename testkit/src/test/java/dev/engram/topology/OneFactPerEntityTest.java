package dev.engram.topology;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.CommandKind;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.SourceRef;
import dev.engram.consolidation.Observations;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.scoring.Vectors;
import dev.engram.testing.PipelineHarness;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * One entity, one fact (README trial): a pet renamed by a correction keeps its first name in its key
 * ({@code pet:rex} = Max), so the new name said later ({@code pet:max}) reinforces that fact instead of making a second
 * ACTIVE fact about one dog (nor does its negation miss it); and an observation tells a fact and the user's turn saying it once. The whole pipeline on
 * TopologyTestDriver: the rule-based extractor, the default embedder, a CORRECT command as the retriever's
 * {@code PATCH} of the value alone sends it (the content rewritten to name the new value, {@code Corrections}).
 */
class OneFactPerEntityTest {

    private static final String TENANT = "t1";
    private static final String NINA = "u-nina";
    private static final String USER = TENANT + "/" + NINA;
    private static final Instant T0 = Instant.parse("2025-03-01T09:00:00Z");

    private static String day(final int days) {
        return T0.plus(Duration.ofDays(days)).toString();
    }

    private static void say(final PipelineHarness driver, final String conversationId, final String text, final int days) {
        driver.publish(conversation(TENANT, NINA, conversationId, user(text, day(days))));
    }

    private static List<Memory> facts(final List<Memory> memories, final String prefix) {
        return memories.stream().filter(m -> m.getKey() != null && m.getKey().startsWith(prefix)).toList();
    }

    /** The CORRECT command of {@code PATCH .../memories/{id}} with {@code {"value": value}}: content and value. */
    private static void correct(final PipelineHarness driver, final Memory fact, final String content, final String value,
                                final int days) {
        driver.command(MemoryCommand.newBuilder().setCommandId("correct-" + fact.getMemoryId()).setTenantId(TENANT)
            .setUserId(NINA).setKind(CommandKind.CORRECT).setMemoryId(fact.getMemoryId()).setContent(content)
            .setValue(value).setEmbedding(Vectors.toList(ScriptRoutedEmbedder.defaults().embed(content)))
            .setEmbeddingModel(ScriptRoutedEmbedder.defaults().modelFor(content)).setMemoryEnabled(null)
            .setActor("test").setIssuedAt(Instant.parse(day(days))).build());
    }

    @Test
    void shouldReinforceTheRenamedPetWhenTheUserSaysItsNewName() {
        try (PipelineHarness driver = new PipelineHarness()) {
            say(driver, "c-1", "I have a dog named Rex.", 0);
            final Memory rex = facts(driver.consolidator().active(USER), "pet:").get(0);
            assertThat(rex.getKey()).isEqualTo("pet:rex");
            correct(driver, rex, "Has a dog named Max", "Max", 1);

            say(driver, "c-2", "I have a dog named Max.", 10);

            for (final List<Memory> memories : List.of(driver.consolidator().active(USER), driver.retriever().active(USER))) {
                assertThat(facts(memories, "pet:")).as("one ACTIVE fact about one dog").singleElement().satisfies(m -> {
                    assertThat(m.getMemoryId()).isEqualTo(rex.getMemoryId());
                    assertThat(m.getValue()).isEqualTo("Max");
                    assertThat(m.getReinforcementCount()).isEqualTo(2);
                    assertThat(m.getSources()).extracting(SourceRef::getConversationId).containsExactly("c-1", "c-2");
                    assertThat(m.getLastConfirmedAt()).isEqualTo(Instant.parse(day(10)));
                });
            }
            assertThat(driver.consolidator().profile(USER).getFacts()).containsOnlyKeys("pet:rex");
        }
    }

    @Test
    void shouldKeepAnotherSlotOrAnotherNameApartFromTheRenamedPet() {
        try (PipelineHarness driver = new PipelineHarness()) {
            say(driver, "c-1", "I have a dog named Rex.", 0);
            correct(driver, facts(driver.consolidator().active(USER), "pet:").get(0), "Has a dog named Max", "Max", 1);

            say(driver, "c-2", "My friend Max is coming over tonight.", 5);
            say(driver, "c-3", "I have a cat named Luna.", 6);

            assertThat(facts(driver.consolidator().active(USER), "pet:")).extracting(Memory::getKey, Memory::getValue)
                .containsExactlyInAnyOrder(Tuple.tuple("pet:rex", "Max"),
                    Tuple.tuple("pet:luna", "Luna"));
            assertThat(facts(driver.consolidator().active(USER), "friend:")).extracting(Memory::getKey)
                .as("a friend named Max is another entity").containsExactly("friend:max");
        }
    }

    @Test
    void shouldRetractTheRenamedPetWhenTheUserNegatesItsNewName() {
        try (PipelineHarness driver = new PipelineHarness()) {
            say(driver, "c-1", "I have a dog named Rex.", 0);
            final Memory rex = facts(driver.consolidator().active(USER), "pet:").get(0);
            correct(driver, rex, "Has a dog named Max", "Max", 1);

            driver.pipe(MemoryCandidate.newBuilder(FedCandidates.fact(USER, "c-2", day(10), "pet:max", "Max",
                "I no longer have my dog Max.")).setNegated(true).build());

            assertThat(facts(driver.consolidator().active(USER), "pet:")).as("the renamed dog is retracted").isEmpty();
            assertThat(driver.consolidator().memory(USER, rex.getMemoryId()).getArchiveReason()).isEqualTo(ArchiveReason.NEGATED);
        }
    }

    @Test
    void shouldTellAFactOnceWhenTheUsersTurnSaysItInTheSameObservation() {
        try (PipelineHarness driver = PipelineHarness.builder().observations(ScriptRoutedEmbedder.defaults()).build()) {
            say(driver, "c-1", "I have a dog named Max.", 0);
            say(driver, "c-2", "My dog Max loves chasing tennis balls at the park.", 1);
            driver.advanceTo(T0.plus(Duration.ofDays(7)));

            final List<Memory> observations = driver.consolidator().active(USER).stream()
                .filter(m -> Observations.isObservation(m) && !ExtractedMemory.isTopicList(m.getType(), m.getDisplayName()))
                .toList();
            assertThat(observations).isNotEmpty().allSatisfy(o -> assertThat(o.getContent())
                .as("the fact is told by the turn that says it").doesNotContain("Has a dog named Max"));
            assertThat(observations).anySatisfy(o -> assertThat(o.getContent()).contains("I have a dog named Max."));
        }
    }
}
