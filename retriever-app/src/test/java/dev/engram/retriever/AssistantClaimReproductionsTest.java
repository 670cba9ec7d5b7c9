package dev.engram.retriever;

import static dev.engram.testing.Conversations.assistant;
import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;

import dev.engram.config.EngramConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A user trial (session 14, A7) on the real pipeline (rule-based extractor, default embedding models, consolidator,
 * the retriever's read model and context block, {@link PipelineHarness}): the assistant's wrong guess of where the user
 * lives ("so you live in Hamburg now?") was served under "Relevant past conversations" in the exchange that held it,
 * though the user answered "No, I still live in Berlin" or let it pass. The claim is left out of the exchange; the rest
 * of the reply (the recommendation) is still served.
 */
class AssistantClaimReproductionsTest {

    private static final String T = "t1";
    private static final Instant T0 = Instant.parse("2024-03-04T09:00:00Z");
    private static Embedder embedder;

    @BeforeAll
    static void loadModel() {
        embedder = ScriptRoutedEmbedder.fromConfig(EngramConfig.defaults());
    }

    @AfterAll
    static void closeModel() throws Exception {
        embedder.close();
    }

    private static String at(final int day, final int seconds) {
        return T0.plus(Duration.ofDays(day)).plusSeconds(seconds).toString();
    }

    @ParameterizedTest(name = "{0} / {1}")
    @CsvSource(delimiter = '|', textBlock = """
        Oh nice, so you live in Hamburg now? You could try the Miniatur Wunderland, it is great on rainy days. | No, I still live in Berlin.
        Great that you're in Hamburg now! You could try the Miniatur Wunderland, it is great on rainy days.    | Thanks, I will look for something similar.
        """)
    void shouldNotServeTheAssistantsWrongGuessOfWhereTheUserLivesAsAStatementAboutTheUser(final String reply,
                                                                                         final String answer) {
        final String u = T + "/u-echo";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-echo", "c-1", user("I live in Berlin.", at(0, 0))));
            pipeline.publish(conversation(T, "u-echo", "c-2",
                user("Any ideas for a rainy weekend?", at(3, 0)),
                assistant(reply, at(3, 20)),
                user(answer, at(3, 40))));

            assertThat(pipeline.retriever().memories(u)).as("no memory tells the user lives in Hamburg")
                .noneMatch(m -> m.getContent().contains("live in Hamburg") || m.getContent().contains("re in Hamburg"));
            final String block = PipelineContext.of(embedder, pipeline, u, "Any ideas for a rainy weekend?", 512).text();
            assertThat(block).contains("Miniatur Wunderland");
            for (final String question : new String[] {"Any ideas for a rainy weekend?", "Where do I live?"}) {
                // the guess is told only as the question the user's own "No, I still live in Berlin" answered
                assertThat(PipelineContext.of(embedder, pipeline, u, question, 512).text().lines()
                    .filter(line -> line.contains("in Hamburg now"))).as(question)
                    .allMatch(line -> line.contains("No, I still live in Berlin") && line.contains("(re: "));
            }
        }
    }
}
