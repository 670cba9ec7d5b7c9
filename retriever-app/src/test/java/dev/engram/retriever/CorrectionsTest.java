package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Instant;

import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.runtime.ApiProblem;
import dev.engram.testing.MemoryFixtures;
import org.junit.jupiter.api.Test;

/**
 * The hint a refused correction gives ({@code PUT .../memories/{id}}, {@link Corrections}): an example of the fact's own
 * kind, worded as the offline extractor words that kind (the README trial's {@code preferred_language} fact was shown
 * {@code {"content": "Lives in Braga", "value": "Braga"}}).
 */
class CorrectionsTest {

    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void shouldShowAProgrammingLanguageWhenTheContentOfAPreferredLanguageFactIsCorrectedWithoutItsValue() {
        final Memory kotlin = MemoryFixtures.fact("t", "u", "m-1", FactCategory.TECHNICAL, "preferred_language", "Python",
            "Main programming language is Python", AT);

        final Throwable refused = catchThrowable(() -> Corrections.resolve(kotlin, "These days I write Scala", null));

        assertThat(refused).isInstanceOf(ApiProblem.class).hasMessageContaining("\"preferred_language\"")
            .hasMessageEndingWith("e.g. {\"content\": \"Main programming language is Kotlin\", \"value\": \"Kotlin\"}")
            .hasMessageNotContaining("Lives in");
    }

    @Test
    void shouldShowAnExampleOfTheFactsKindWhenEachBuiltInKeyIsCorrected() {
        assertThat(Corrections.example("city")).isEqualTo("{\"content\": \"Lives in Braga\", \"value\": \"Braga\"}");
        assertThat(Corrections.example("employer")).contains("Works at Hooli");
        assertThat(Corrections.example("role")).contains("Works as a data engineer");
        assertThat(Corrections.example("ide")).contains("as IDE");
        assertThat(Corrections.example("cloud_provider")).contains("as cloud provider");
        assertThat(Corrections.example("uses:jira")).contains("\"Uses Linear\"");
        assertThat(Corrections.example("diet")).contains("vegetarian");
        assertThat(Corrections.example("name")).contains("Name is Mira");
        assertThat(Corrections.example("preference:hiking_trips"))
            .isEqualTo("{\"content\": \"Dislikes hiking trips\", \"value\": \"dislike\"}");
        assertThat(Corrections.example("response_style")).contains("step-by-step");
        assertThat(Corrections.example("medications:amlodipine")).as("a custom category's key")
            .isEqualTo("{\"content\": \"the corrected statement, naming the corrected value\", \"value\": \"the corrected value\"}");
        assertThat(Corrections.example(null)).as("an episode").isEqualTo("{\"content\": \"Went hiking in the Alps in May\"}");
    }

    @Test
    void shouldRefuseAValueForAnEpisodeTheSameWayWithOrWithoutContentInsteadOfDroppingIt() {
        // README trial: {"content": …, "value": "lake"} on an episode was a 202 and the value dropped; the value alone a 400
        final Memory episode = MemoryFixtures.memory("t", "u", "m-3", "We swam in the river", AT).build();

        final Throwable withContent = catchThrowable(() -> Corrections.resolve(episode, "We swam in the lake", "lake"));
        final Throwable alone = catchThrowable(() -> Corrections.resolve(episode, null, "lake"));

        assertThat(withContent).isInstanceOf(ApiProblem.class).hasMessageContaining("is not a keyed fact and has no value");
        assertThat(((ApiProblem) withContent).status()).isEqualTo(400);
        assertThat(alone).isInstanceOf(ApiProblem.class).hasMessage(withContent.getMessage());
        assertThat(Corrections.resolve(episode, "We swam in the lake", null).content()).isEqualTo("We swam in the lake");
    }

    @Test
    void shouldShowTheFactsKindWhenNeitherContentNorValueIsGiven() {
        final Memory employer = MemoryFixtures.fact("t", "u", "m-2", FactCategory.ROLE, "employer", "Initech",
            "Works at Initech", AT);

        assertThat(catchThrowable(() -> Corrections.resolve(employer, null, null)))
            .hasMessageContaining("Works at Hooli");
    }

    @Test
    void shouldRefuseAContentThatDoesNotNameTheValueAndTakeOneThatDoesWhateverTheCaseAndAccents() {
        final Memory city = MemoryFixtures.fact("t", "u", "m-3", FactCategory.PERSONAL, "city", "Lisbon", "Lives in Lisbon", AT);

        assertThat(catchThrowable(() -> Corrections.resolve(city, "Lives in Rome", "Paris")))
            .isInstanceOf(ApiProblem.class).hasMessageContaining("\"Lives in Rome\"").hasMessageContaining("\"Paris\"")
            .hasMessageContaining("Lives in Braga");
        assertThat(Corrections.resolve(city, "Moved to Sao Paulo.", "São Paulo"))
            .isEqualTo(new Corrections.Correction("Moved to Sao Paulo.", "São Paulo"));
        assertThat(Corrections.resolve(city, "Lives in PARIS", "paris").value()).isEqualTo("paris");
        final Memory stance = MemoryFixtures.fact("t", "u", "m-4", FactCategory.PREFERENCE, "preference:jazz", "like",
            "Likes jazz", AT);
        assertThat(Corrections.resolve(stance, "Can't stand jazz", "dislike").content()).as("a stance is not worded")
            .isEqualTo("Can't stand jazz");
    }
}
