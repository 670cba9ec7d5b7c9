package dev.engram.topology;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.SourceRef;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.scoring.ScoredMemory;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * A fresh user's trial: one message said three things ("I work at Siemens as a data analyst. I am vegetarian. My cat
 * is called Luna."), later messages told more about pets, and "Where do I work?" ranked the pet observation and the
 * pet topic list above "Works at Siemens", with its score: both cite the message, so the observation lift lent them
 * the statement's relevance and a list's kind prior for observations then put them above it. A derived memory that
 * cites a statement's message without stating it ranks below that statement; one that states what was asked still
 * ranks first. The whole pipeline on TopologyTestDriver: the rule-based extractor, the default embedder, the
 * consolidator's observation pass, the retriever's list ranking.
 */
class SharedMessageRankingTest {

    private static final String USER = "t1/u-nina";
    private static final Instant T0 = Instant.parse("2025-03-01T09:00:00Z");
    /** The trial's first message, then more about the pets, one conversation every two days. */
    private static final List<String> SAID = List.of(
        "I work at Siemens as a data analyst. I am vegetarian. My cat is called Luna.",
        "My cat Luna knocked my coffee off the desk again this morning.",
        "I adopted a dog named Rex from the shelter, he and my cat Luna get along.",
        "My cat Luna and my dog Rex sleep on the sofa together.");

    private static boolean derived(final Memory m) {
        return ExtractedMemory.isObservation(m.getType(), m.getDisplayName());
    }

    private static boolean cites(final Memory m, final String conversationId) {
        return m.getSources().stream().map(SourceRef::getConversationId).anyMatch(conversationId::equals);
    }

    private static PipelineHarness said() {
        final PipelineHarness driver = PipelineHarness.builder().observations(ScriptRoutedEmbedder.defaults()).build();
        for (int i = 0; i < SAID.size(); i++) {
            driver.publish(conversation("t1", "u-nina", "c-" + (i + 1),
                user(SAID.get(i), T0.plus(Duration.ofDays(2L * i)).toString())));
        }
        driver.advanceTo(T0.plus(Duration.ofDays(9)));
        return driver;
    }

    @Test
    void shouldRankWhereTheUserWorksFirstWhenAPetObservationCitesTheSameMessage() {
        try (PipelineHarness driver = said()) {
            final List<Memory> citing = driver.retriever().active(USER).stream()
                .filter(m -> derived(m) && cites(m, "c-1")).toList();
            assertThat(citing).as("an observation and a topic list cite the message that also says where the user works")
                .extracting(Memory::getDisplayName)
                .contains(ExtractedMemory.OBSERVATION_DISPLAY_NAME, ExtractedMemory.TOPIC_LIST_DISPLAY_NAME);

            final List<ScoredMemory> hits = driver.retrieve(USER, "Where do I work?", 5);

            assertThat(hits).isNotEmpty();
            assertThat(hits.get(0).memory().getContent()).as("the statement of where the user works, first")
                .contains("Siemens");
            assertThat(derived(hits.get(0).memory())).isFalse();
            for (final ScoredMemory hit : hits.subList(1, hits.size())) {
                if (derived(hit.memory()) && !hit.memory().getContent().contains("Siemens")) {
                    assertThat(hit.score()).as("%s ranks below the statement it only cites", hit.memory().getContent())
                        .isLessThan(hits.get(0).score());
                }
            }
        }
    }

    @Test
    void shouldStillRankAPetObservationOrListFirstWhenItStatesWhatIsAsked() {
        try (PipelineHarness driver = said()) {
            final List<ScoredMemory> hits = driver.retrieve(USER, "What pets do I have?", 5);

            assertThat(hits).isNotEmpty();
            assertThat(hits.get(0).memory().getDisplayName()).as("a derived memory that states the pets")
                .isIn(ExtractedMemory.OBSERVATION_DISPLAY_NAME, ExtractedMemory.TOPIC_LIST_DISPLAY_NAME);
            assertThat(hits.get(0).memory().getContent()).contains("Luna", "Rex");
        }
    }
}
