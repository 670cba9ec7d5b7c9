package dev.engram.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.engram.port.ExtractedMemory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Changes a user trial (session 15) said in words the rules did not read as one, through the whole
 * {@link RuleBasedExtractor}: a drink given up for another, a medication's dose changed, the tool work is tracked in, a name asked of one
 * agent. Each case states the facts the turn gives
 * ({@code key=value}, a retraction as {@code !key=value}).
 */
class ChangeStatementsTest {

    private static List<String> facts(final String text) {
        return TrialStatementsTest.facts(text);
    }

    private static List<String> contents(final String text) {
        return TrialStatementsTest.said(text).stream().filter(ExtractedMemory::isFact).map(ExtractedMemory::content).toList();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I drink coffee every morning.              | preference:coffee=like
        I have a cup of green tea every day.       | preference:green_tea=like
        I only drink tea now.                      | preference:tea=like
        I quit coffee, only tea now.               | avoids:coffee=coffee, preference:tea=like
        I gave up coffee and switched to tea.      | avoids:coffee=coffee, preference:tea=like
        I've quit alcohol.                         | avoids:alcohol=alcohol
        I quit drinking soda, just water now.      | avoids:soda=soda
        """)
    void shouldReadADrinkGivenUpAndTheDrinkTakenUpInItsPlace(final String text, final String expected) {
        assertThat(facts(text)).containsExactlyInAnyOrder(expected.split(",\\s*"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"My wife switched to tea.", "I quit smoking.", "I had a coffee with Tom.",
        "Only tea now, she says.", "I switched to Linear."})
    void shouldStateNoDrinkOfTheUserWhenSomeoneElseDrinksOrNoDrinkIsNamed(final String text) {
        assertThat(facts(text)).noneMatch(f -> f.startsWith("preference:") || f.startsWith("avoids:"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I drink coffee every morning. | Drinks coffee
        I quit coffee, only tea now.  | Drinks tea now
        """)
    void shouldWordADrinkAsTheHabitItIs(final String text, final String content) {
        assertThat(contents(text)).contains(content);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I take amlodipine 5 mg.                        | Takes amlodipine 5 mg (medication)
        I'm on amlodipine 5mg and it's fine.           | Takes amlodipine 5 mg (medication)
        I take 20 mg of atorvastatin at night.         | Takes atorvastatin 20 mg (medication)
        I raised my amlodipine to 10 mg.               | Takes amlodipine 10 mg (medication)
        My doctor increased my lisinopril to 20mg.     | Takes lisinopril 20 mg (medication)
        My metformin dose was lowered to 500 mg.       | Takes metformin 500 mg (medication)
        I take metformin.                              | Takes metformin (medication)
        """)
    void shouldWordTheDoseInTheMedicationFactWhoseValueStaysTheDrug(final String text, final String content) {
        assertThat(contents(text)).containsExactly(content);
        assertThat(facts(text)).singleElement().asString().startsWith("medication:").doesNotContain("mg");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"My dose went up to 20 mg.", "They raised my dose to 10 mg.", "I upped my coffee to 3 cups."})
    void shouldStateNoMedicationWhenTheDoseNamesNoKnownDrug(final String text) {
        assertThat(facts(text)).isEmpty();
    }

    @org.junit.jupiter.api.Test
    void shouldGiveADoseSaidWithoutItsDrugTheDrugNamedBeforeIt() {
        final java.time.Instant t0 = java.time.Instant.parse("2025-02-03T09:12:00Z");
        final dev.engram.avro.ConversationCompleted conversation = dev.engram.avro.ConversationCompleted.newBuilder()
            .setTenantId("t1").setUserId("u1").setConversationId("c1").setCompletedAt(t0.plusSeconds(60))
            .setMessages(List.of(new dev.engram.avro.Message(0, "user", "I take amlodipine 5 mg.", t0),
                new dev.engram.avro.Message(1, "user", "My dose went up to 20 mg.", t0.plusSeconds(5))))
            .build();
        assertThat(new RuleBasedExtractor().extract(conversation, null).stream().filter(ExtractedMemory::isFact)
            .map(ExtractedMemory::content)).containsExactly("Takes amlodipine 5 mg (medication)",
                "Takes amlodipine 20 mg (medication)");
    }

    @org.junit.jupiter.api.Test
    void shouldRetractTheMedicationWhateverItsDose() {
        assertThat(facts("I stopped taking amlodipine.")).containsExactly("!medication:amlodipine=amlodipine");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        We track work in Jira.                  | uses:jira=Jira
        I manage my tasks in Todoist.           | uses:todoist=Todoist
        We track tickets in Shortcut.           | uses:shortcut=Shortcut
        We keep our backlog in Notion.          | uses:notion=Notion
        We use Jira for tickets.                | uses:jira=Jira
        We switched from Jira to Linear.        | uses:linear=Linear, !uses:jira=Jira
        """)
    void shouldReadWhereWorkIsTrackedAsATool(final String text, final String expected) {
        assertThat(facts(text)).containsExactlyInAnyOrder(expected.split(",\\s*"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"We manage projects in London.", "We manage work in Monday.", "My team tracks work in Jira."})
    void shouldStateNoToolWhenWorkIsManagedInAPlaceOrBySomeoneElse(final String text) {
        assertThat(facts(text)).noneMatch(f -> f.startsWith("uses:"));
    }

    private static List<String> toAgent(final String agent, final String text) {
        final java.time.Instant t0 = java.time.Instant.parse("2025-02-03T09:12:00Z");
        final dev.engram.avro.ConversationCompleted conversation = dev.engram.avro.ConversationCompleted.newBuilder()
            .setTenantId("t1").setUserId("u1").setConversationId("c1").setCompletedAt(t0.plusSeconds(60)).setAgentId(agent)
            .setMessages(List.of(new dev.engram.avro.Message(0, "user", text, t0))).build();
        return new RuleBasedExtractor().extract(conversation, null).stream().filter(ExtractedMemory::isFact)
            .map(m -> m.key() + "=" + m.value()).toList();
    }

    @ParameterizedTest(name = "{0} / {1}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
        travel | Call me Captain.                 | nickname:travel=Captain
        travel | Please call me Cap.              | nickname:travel=Cap
        travel | My name is Dana.                 | name=Dana
        -      | Call me Captain.                 | name=Captain
        """)
    void shouldKeepANameAskedOfOneAgentAsThatAgentsOwn(final String agent, final String text, final String expected) {
        assertThat(toAgent(agent, text)).containsExactly(expected);
    }
}
