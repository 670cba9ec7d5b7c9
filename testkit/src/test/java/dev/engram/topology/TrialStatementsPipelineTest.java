package dev.engram.topology;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryType;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * A fresh user's trial (session 12), each message a user turn posted after the one before it, through the whole
 * pipeline on TopologyTestDriver (the rule-based extractor, the default embedder, the consolidator, the retriever's read
 * model): which facts are ACTIVE afterwards. Someone else's quoted words supersede nothing; a tool switch said by what it
 * replaced retracts the old tool; a rename with both names renames; a denial retracts; "still" with an old IDE leaves
 * the new one current; a fact said beside more keeps the more.
 */
class TrialStatementsPipelineTest {

    static final String TENANT = "t12";
    static final String ANA = "u-ana";
    private static final String USER = TENANT + "/" + ANA;
    private static final Instant T0 = Instant.parse("2025-03-01T09:00:00Z");

    /** Each text a user turn of its own conversation, a day after the one before. */
    static PipelineHarness said(final String... texts) {
        final PipelineHarness driver = new PipelineHarness();
        for (int i = 0; i < texts.length; i++) {
            driver.publish(conversation(TENANT, ANA, "c-" + i, user(texts[i], T0.plus(Duration.ofDays(i)).toString())));
        }
        return driver;
    }

    /** The ACTIVE facts, {@code key=value}, in the consolidator and in the retriever's read model (asserted equal). */
    static List<String> activeFacts(final PipelineHarness driver) {
        final List<String> consolidator = facts(driver.consolidator().active(USER));
        assertThat(facts(driver.retriever().active(USER))).containsExactlyInAnyOrderElementsOf(consolidator);
        return consolidator;
    }

    private static List<String> facts(final List<Memory> memories) {
        return memories.stream().filter(m -> m.getKey() != null).map(m -> m.getKey() + "=" + m.getValue()).toList();
    }

    private static List<String> episodes(final PipelineHarness driver) {
        return driver.consolidator().active(USER).stream().filter(m -> m.getType() == MemoryType.EPISODIC)
            .map(Memory::getContent).toList();
    }

    @Test
    void shouldKeepTheUsersCityWhenAFriendIsQuotedSayingWhereTheyLive() {
        try (PipelineHarness driver = new PipelineHarness()) {
            driver.publish(conversation(TENANT, ANA, "c-1", user("I moved from Paris to London.", T0.toString()),
                user("My friend told me: I live in Rome.", T0.plusSeconds(60).toString())));
            assertThat(activeFacts(driver)).contains("city=London").noneMatch(f -> f.contains("Rome"));
            assertThat(episodes(driver)).anyMatch(e -> e.contains("My friend told me: I live in Rome."));
        }
    }

    @Test
    void shouldRetractTheOldToolWhenTheUserSaysWhatTheNewOneReplaced() {
        for (final String change : List.of("I use Obsidian now instead of Notion.", "I replaced Notion with Obsidian.",
            "I switched from Notion to Obsidian.")) {
            try (PipelineHarness driver = said("I use Notion for notes.", change)) {
                assertThat(activeFacts(driver)).as(change).contains("uses:obsidian=Obsidian")
                    .doesNotContain("uses:notion=Notion");
            }
        }
    }

    @Test
    void shouldRenameTheDogWhenTheRenameSaysBothNames() {
        try (PipelineHarness driver = said("I have a dog named Rex.", "I renamed my dog from Rex to Max.")) {
            assertThat(activeFacts(driver)).filteredOn(f -> f.startsWith("pet:")).as("one dog, named Max")
                .singleElement().satisfies(f -> assertThat(f).endsWith("=Max"));
        }
    }

    @Test
    void shouldRetractTheAllergyWhenTheUserDeniesIt() {
        try (PipelineHarness driver = said("I'm allergic to peanuts.",
            "Actually I'm not allergic to peanuts, the test was wrong.")) {
            assertThat(activeFacts(driver)).noneMatch(f -> f.startsWith("allergy:"));
        }
    }

    @Test
    void shouldKeepTheNewIdeWhenTheUserStillUsesTheOldOneForSomething() {
        try (PipelineHarness driver = said("I use vim.", "I switched from vim to VS Code.",
            "I still use vim for quick edits though.")) {
            assertThat(activeFacts(driver)).filteredOn(f -> f.startsWith("ide=")).containsExactly("ide=VS Code");
            assertThat(episodes(driver)).anyMatch(e -> e.contains("quick edits"));
        }
    }

    @Test
    void shouldKeepTheBakeryAndTheSisterWhenTheCityIsSaidBesideThem() {
        try (PipelineHarness driver = said("I live in Lisbon, where I run a small bakery with my sister.")) {
            assertThat(activeFacts(driver)).contains("city=Lisbon");
            assertThat(episodes(driver)).anyMatch(e -> e.contains("bakery") && e.contains("sister"));
        }
    }
}
