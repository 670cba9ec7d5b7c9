package dev.engram.retriever;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A user trial (session 15) on the real pipeline (rule-based extractor, default embedding models, consolidator,
 * retriever's read model, {@link PipelineHarness}): a place restated in another form (an abbreviation, a typing error,
 * its Chinese name) was taken as a move, so the profile flipped between spellings and the history filled with false
 * changes. It is one value now ({@code ValueAliases}, {@code PlaceNames}); two places one letter apart stay two.
 */
class RestatedPlaceReproductionsTest {

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

    private static String day(final int day) {
        return T0.plus(Duration.ofDays(day)).toString();
    }

    private static List<Memory> cities(final PipelineHarness pipeline, final String userKey) {
        return pipeline.retriever().memories(userKey).stream().filter(m -> "city".equals(m.getKey())).toList();
    }

    /** The context block's lines told as current (before "Earlier, no longer current"). */
    private static String current(final PipelineHarness pipeline, final String userKey, final String message) {
        return KnowledgeUpdateReproductionsTest.current(PipelineContext.of(embedder, pipeline, userKey, message, 512).text());
    }

    @Test
    void shouldKeepOneReinforcedCityWhenItIsRestatedAbbreviatedMistypedOrInChinese() {
        final String u = T + "/u-sf";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-sf", "c-1", user("I live in San Francisco.", day(0))));
            pipeline.publish(conversation(T, "u-sf", "c-2", user("SF is great, I live in SF.", day(1))));
            pipeline.publish(conversation(T, "u-sf", "c-3", user("I live in San Fransisco.", day(2))));
            pipeline.publish(conversation(T, "u-sf", "c-4", user("我住在旧金山。", day(3))));

            final List<Memory> cities = cities(pipeline, u);
            assertThat(cities).as("one id, never superseded: " + cities).hasSize(1).allSatisfy(m -> {
                assertThat(m.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
                assertThat(m.getValue()).isEqualTo("San Francisco");
            });
            assertThat(pipeline.history(u, cities.get(0).getMemoryId())).extracting(e -> e.getOperation())
                .as("restated three times, no false change").containsExactly(UpdateOperation.CREATED,
                    UpdateOperation.REINFORCED, UpdateOperation.REINFORCED, UpdateOperation.REINFORCED);
            assertThat(pipeline.updates()).as("nothing superseded").noneMatch(e -> e.getOperation() == UpdateOperation.SUPERSEDED);

            pipeline.publish(conversation(T, "u-sf", "c-5", user("I moved to Berlin last month.", day(40))));

            assertThat(current(pipeline, u, "Where do I live?")).contains("Berlin")
                .doesNotContain("San Francisco").doesNotContain("San Fransisco").doesNotContain("旧金山");
        }
    }

    @ParameterizedTest(name = "{0} then {1} then {2}")
    @CsvSource(delimiter = '|', textBlock = """
        I live in New York.     | I live in NYC.      | I live in New York City.
        I live in Shanghai.     | 我住在上海。           | I live in Shanghai.
        我住在北京。               | I live in Beijing.  | I live in Peking.
        """)
    void shouldKeepOneCityWhenItIsNamedInItsOtherForms(final String first, final String second, final String third) {
        final String u = T + "/u-forms";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-forms", "c-1", user(first, day(0))));
            pipeline.publish(conversation(T, "u-forms", "c-2", user(second, day(1))));
            pipeline.publish(conversation(T, "u-forms", "c-3", user(third, day(2))));

            assertThat(cities(pipeline, u)).as("one id").hasSize(1)
                .allSatisfy(m -> assertThat(m.getStatus()).isEqualTo(MemoryStatus.ACTIVE));
        }
    }

    @ParameterizedTest(name = "{0} then {1}")
    @CsvSource(delimiter = '|', textBlock = """
        Sydney  | Sidney
        Austin  | Boston
        Boston  | Bolton
        Hamburg | Homburg
        Geneva  | Genoa
        """)
    void shouldTakeAPlaceOneLetterFromAnotherKnownPlaceAsAMove(final String from, final String to) {
        final String u = T + "/u-move";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-move", "c-1", user("I live in " + from + ".", day(0))));
            pipeline.publish(conversation(T, "u-move", "c-2", user("I live in " + to + " now.", day(1))));

            assertThat(cities(pipeline, u)).extracting(Memory::getValue, Memory::getStatus)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(from, MemoryStatus.ARCHIVED),
                    org.assertj.core.groups.Tuple.tuple(to, MemoryStatus.ACTIVE));
        }
    }
}
