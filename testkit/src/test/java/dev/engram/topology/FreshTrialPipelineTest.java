package dev.engram.topology;

import static dev.engram.testing.Conversations.assistant;
import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryType;
import dev.engram.consolidation.OutdatedPart;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * A fresh user's trial (session 13), through the whole pipeline on TopologyTestDriver (the rule-based extractor, the
 * default embedder, the consolidator, the retriever's read model): which facts are ACTIVE afterwards. A tool switch
 * said with "moved" leaves the city alone; a job or medication that ended in other words is retracted; "Sorry, I meant
 * 42" corrects the age; mourning a dead pet makes no new one; "No, Ottawa now." to "Are you still living in Toronto?"
 * moves the user; an episode stating an old age is outdated for that clause.
 */
class FreshTrialPipelineTest {

    private static final String TENANT = TrialStatementsPipelineTest.TENANT;
    private static final String ANA = TrialStatementsPipelineTest.ANA;
    private static final String USER = TENANT + "/" + ANA;
    private static final Instant T0 = Instant.parse("2025-03-01T09:00:00Z");

    private static PipelineHarness said(final String... texts) {
        return TrialStatementsPipelineTest.said(texts);
    }

    private static List<String> activeFacts(final PipelineHarness driver) {
        return TrialStatementsPipelineTest.activeFacts(driver);
    }

    private static String day(final int day) {
        return T0.plus(Duration.ofDays(day)).toString();
    }

    @Test
    void shouldKeepTheCityAndSwitchToolsWhenTheUserMovedFromOneToolToAnother() {
        try (PipelineHarness driver = said("I live in Vienna.", "We use Jira and Slack at work.",
            "We moved from Jira to Linear.", "We moved from Slack to Teams last month.")) {
            assertThat(activeFacts(driver)).contains("city=Vienna", "uses:linear=Linear", "uses:teams=Teams")
                .doesNotContain("uses:jira=Jira", "uses:slack=Slack").noneMatch(f -> f.startsWith("city=") && !f.endsWith("Vienna"));
        }
    }

    @Test
    void shouldRetractTheEmployerAndTheMedicationWhenTheyEndedInOtherWords() {
        try (PipelineHarness driver = said("I work at Spotify.", "I take lisinopril and sertraline.",
            "I got laid off, I am no longer at Spotify.", "My doctor took me off lisinopril.",
            "My psychiatrist stopped the sertraline.")) {
            assertThat(activeFacts(driver)).noneMatch(f -> f.startsWith("employer=") || f.startsWith("medication:"));
        }
    }

    @Test
    void shouldCorrectTheAgeWhenTheUserSaysWhatNumberTheyMeant() {
        try (PipelineHarness driver = said("I'm 41. Sorry, I meant 42.")) {
            assertThat(activeFacts(driver)).contains("age=42").doesNotContain("age=41");
        }
    }

    @Test
    void shouldMakeNoNewPetWhenTheUserMournsADeadOne() {
        try (PipelineHarness driver = said("I have a dog named Rex.", "Rex died last month. I really miss my dog.")) {
            assertThat(activeFacts(driver)).noneMatch(f -> f.startsWith("pet:"));
        }
    }

    @Test
    void shouldMoveTheUserWhenTheyAnswerAQuestionAboutTheirCityWithANewOne() {
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.publish(conversation(TENANT, ANA, "c-0", user("I live in Toronto.", day(0))));
            driver.publish(conversation(TENANT, ANA, "c-1", assistant("Welcome back! Are you still living in Toronto?", day(1)),
                user("No, Ottawa now.", day(1))));
            assertThat(activeFacts(driver)).filteredOn(f -> f.startsWith("city=")).containsExactly("city=Ottawa");
        }
    }

    @Test
    void shouldTellTheOldAgeOfAnEpisodeAsPastWhenTheUserTurnsAYearOlder() {
        try (PipelineHarness driver = said("My dog Rex is 3 years old. I'm 29.", "I turned 30 today.")) {
            assertThat(activeFacts(driver)).contains("age=30").doesNotContain("age=29");
            final Memory episode = driver.retriever().active(USER).stream()
                .filter(m -> m.getType() == MemoryType.EPISODIC && m.getContent().contains("I'm 29")).findFirst()
                .orElseThrow();
            assertThat(episode.getValidTo()).as("outdated").isNotNull();
            assertThat(episode.getOutdatedValues()).containsExactly("29");
            assertThat(OutdatedPart.currentPart(episode)).contains("Rex is 3 years old").doesNotContain("29");
        }
    }
}
