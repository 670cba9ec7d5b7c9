package dev.engram.retriever;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A fresh user's trial (session 15) on the real pipeline: conversations through the rule-based extractor, the default
 * embedding models, the consolidator and the retriever's read model ({@link PipelineHarness}), and the context block as
 * {@code GET .../context} builds it ({@link ContextBlock}). Each test is one of the trial's reproductions of a change
 * that left the old value current (or made a false one), and asserts what the bot is served afterwards.
 */
class StaleFactReproductionsTest {

    private static final String T = "t15";
    private static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");
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

    /** The lines of the context block for a message that are not told as past. */
    private static String current(final PipelineHarness pipeline, final String userKey, final String message) {
        return KnowledgeUpdateReproductionsTest.current(PipelineContext.of(embedder, pipeline, userKey, message, 512).text());
    }

    /** @return the ACTIVE keyed facts, as {@code key=value} */
    private static List<String> active(final PipelineHarness pipeline, final String userKey) {
        return pipeline.consolidator().active(userKey).stream().filter(m -> m.getKey() != null)
            .map(m -> m.getKey() + "=" + m.getValue()).toList();
    }

    private static void say(final PipelineHarness pipeline, final String user, final int day, final String text) {
        pipeline.publish(conversation(T, user, "c-" + day, user(text, day(day))));
    }

    /**
     * F8: "我的医生说我对花生不过敏了" created the allergy {@code 花生不} beside the still-active peanut allergy, and
     * "我不再在华为工作了，现在在腾讯" left Huawei the employer.
     */
    @Test
    void shouldWithdrawAChineseAllergyAndChangeTheEmployerWhenTheUserSaysTheyEnded() {
        final String u = T + "/zh";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            say(pipeline, "zh", 0, "我住在上海，在华为工作。");
            say(pipeline, "zh", 1, "我对花生过敏。");
            assertThat(active(pipeline, u)).contains("allergy:花生=花生", "employer=华为");

            say(pipeline, "zh", 2, "我的医生说我对花生不过敏了。");
            say(pipeline, "zh", 3, "我不再在华为工作了，现在在腾讯。");

            assertThat(active(pipeline, u)).noneMatch(f -> f.startsWith("allergy:")).contains("employer=腾讯")
                .doesNotContain("employer=华为");
            assertThat(pipeline.consolidator().active(u)).extracting(Memory::getContent)
                .doesNotContain("对花生过敏", "对花生不过敏");
            assertThat(current(pipeline, u, "晚饭吃什么？我可以吃花生酱吗？")).doesNotContain("- 对花生过敏");
        }
    }

    /**
     * F9: "I switched from metformin to insulin last week" left metformin a current constraint and stored no insulin;
     * "I outgrew my shellfish allergy" left the allergy current.
     */
    @Test
    void shouldSwitchTheMedicationAndWithdrawTheAllergyTheUserOutgrew() {
        final String u = T + "/med";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            say(pipeline, "med", 0, "I take metformin for my diabetes. I'm allergic to shellfish. I have a cat named Luna.");
            assertThat(active(pipeline, u)).contains("medication:metformin=metformin", "allergy:shellfish=shellfish");

            say(pipeline, "med", 9, "I switched from metformin to insulin last week.");
            say(pipeline, "med", 12, "I outgrew my shellfish allergy, I can eat shrimp now.");

            assertThat(active(pipeline, u)).contains("medication:insulin=insulin")
                .doesNotContain("medication:metformin=metformin", "allergy:shellfish=shellfish");
            assertThat(current(pipeline, u, "Plan a dinner for me with shrimp. Anything about my health I should consider?"))
                .doesNotContain("Takes metformin", "Is allergic to shellfish");
        }
    }

    /**
     * F4: "My boss said I live in Ottawa now, lol he is confused" and "我朋友说：我住在上海。" each became the user's city;
     * the user still lives in Toronto.
     */
    @Test
    void shouldKeepTheUsersCityWhenSomeoneElseSaysWhereTheUserLives() {
        final String u = T + "/mix";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            say(pipeline, "mix", 0, "I live in Toronto and work at Shopify.");
            say(pipeline, "mix", 2, "My boss said I live in Ottawa now, lol he is confused.");
            say(pipeline, "mix", 3, "我朋友说：我住在上海。");

            assertThat(active(pipeline, u)).contains("city=Toronto").noneMatch(f -> f.startsWith("city=") && !f.equals("city=Toronto"));
            assertThat(current(pipeline, u, "Where do I live?")).contains("Lives in Toronto").doesNotContain("- 住在上海", "- Lives in Ottawa");
        }
    }

    /**
     * F18: "I got promoted to senior engineer!", "Our team ditched Slack for Discord." and "Just started a new gig at
     * Revolut." each left the old role, tool and employer current.
     */
    @Test
    void shouldServeTheNewRoleToolAndEmployerAfterAChangeSaidInEverydayWords() {
        final String u = T + "/ind2";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            say(pipeline, "ind2", 0, "I live in London. I work at Monzo as a junior engineer. I use Slack.");
            say(pipeline, "ind2", 4, "I got promoted to senior engineer!");
            say(pipeline, "ind2", 7, "Our team ditched Slack for Discord.");
            say(pipeline, "ind2", 8, "Just started a new gig at Revolut.");

            assertThat(active(pipeline, u)).contains("role=senior engineer", "uses:discord=Discord", "employer=Revolut")
                .doesNotContain("role=junior engineer", "uses:slack=Slack", "employer=Monzo");
            assertThat(current(pipeline, u, "Where do I work and which chat app does my team use?"))
                .doesNotContain("- Works at Monzo", "- Uses Slack");
        }
    }

    /**
     * F6: "I switched from nvim to VS Code" (the old editor by its alias) and "switched from notion to obsidian" (lower
     * case) left the old tool current.
     */
    @Test
    void shouldServeTheNewToolWhenTheOldOneIsNamedByAnAliasOrInLowerCase() {
        final String u = T + "/ing";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            say(pipeline, "ing", 0, "I live in Lyon and I use Neovim. I use Notion for notes.");
            say(pipeline, "ing", 1, "I switched from nvim to VS Code.");
            say(pipeline, "ing", 2, "switched from notion to obsidian");

            assertThat(active(pipeline, u)).contains("ide=VS Code", "uses:obsidian=Obsidian")
                .doesNotContain("ide=Neovim", "uses:notion=Notion");
            assertThat(current(pipeline, u, "Which editor should I set up?")).doesNotContain("- Uses Neovim as IDE");
        }
    }
}
