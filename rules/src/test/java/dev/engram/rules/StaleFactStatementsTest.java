package dev.engram.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Changes a fresh user's trial (session 15) read wrongly, through the whole {@link RuleBasedExtractor}: a withdrawal
 * said in Chinese, a medication switched, an allergy outgrown, someone else's words, a job or pet that ended and a
 * change said in everyday words. Each case states the facts the turn gives ({@code key=value}, a retraction as
 * {@code !key=value}).
 */
class StaleFactStatementsTest {

    private static List<String> facts(final String text) {
        return TrialStatementsTest.facts(text);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        我的医生说我对花生不过敏了。          | !allergy:花生=花生
        我对花生已经不过敏了。                | !allergy:花生=花生
        我不再对青霉素过敏。                  | !allergy:青霉素=青霉素
        我对花生过敏。                        | allergy:花生=花生
        我不再在华为工作了，现在在腾讯。      | employer=腾讯
        我已经不在华为上班了。                | !employer=华为
        我从华为离职了。                      | !employer=华为
        我不在华为工作了。                    | !employer=华为
        我不再在华为工作了。                  | !employer=华为
        """)
    void shouldReadAChineseNegationAsTheWithdrawalItIs(final String text, final String expected) {
        assertThat(facts(text)).containsExactlyInAnyOrder(expected.split(",\\s*"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"我妹妹对花生不过敏了。", "我不在北京工作了。"})
    void shouldRetractNothingOfTheUsersWhenTheChineseNegationIsSomeoneElsesOrAPlace(final String text) {
        assertThat(facts(text)).noneMatch(f -> f.startsWith("!employer") || f.startsWith("!allergy"))
            .noneMatch(f -> f.contains("不"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I switched from metformin to insulin last week.      | medication:insulin=insulin, !medication:metformin=metformin
        I was switched from lisinopril to losartan.          | medication:losartan=losartan, !medication:lisinopril=lisinopril
        I outgrew my shellfish allergy, I can eat shrimp now. | !allergy:shellfish=shellfish
        I grew out of my peanut allergy.                     | !allergy:peanut=peanut
        My peanut allergy is gone.                           | !allergy:peanut=peanut
        """)
    void shouldReadAMedicationSwitchedAndAnAllergyOutgrownAsTheChangeTheyAre(final String text, final String expected) {
        assertThat(facts(text)).containsExactlyInAnyOrder(expected.split(",\\s*"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"我朋友说：我住在上海。", "我朋友说「我住在上海」。", "他告诉我：我是素食者。",
        "My boss said I live in Ottawa now, lol he is confused.", "She said that I'm vegan.", "Tom said I work at Google."})
    void shouldStateNoFactOfTheUserInSomeoneElsesWords(final String text) {
        assertThat(facts(text)).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        我说：我住在上海。                                 | city=上海
        我跟他说：我住在上海。                             | city=上海
        The doctor said I'm allergic to penicillin.       | allergy:penicillin=penicillin
        Like I said, I live in Rome.                      | city=Rome
        """)
    void shouldKeepTheUsersOwnAndTheCliniciansWords(final String text, final String fact) {
        assertThat(facts(text)).containsExactly(fact);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I got promoted to senior engineer!                          | role=senior engineer
        Just started a new gig at Revolut.                          | employer=Revolut
        I left Google in October, joined Meta as a product manager. | employer=Meta, role=product manager
        Our team ditched Slack for Discord.                         | uses:discord=Discord, !uses:slack=Slack
        """)
    void shouldReadAJobOrToolChangeSaidInEverydayWords(final String text, final String expected) {
        assertThat(facts(text)).containsExactlyInAnyOrder(expected.split(",\\s*"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I switched from nvim to VS Code.           | ide=VS Code
        switched from notion to obsidian           | uses:obsidian=Obsidian, !uses:notion=Notion
        we moved from jira to linear last month    | uses:linear=Linear, !uses:jira=Jira
        I use nvim every day.                      | ide=Neovim
        """)
    void shouldReadAToolSwitchNamedByAnAliasOrInLowerCase(final String text, final String expected) {
        assertThat(facts(text)).containsExactlyInAnyOrder(expected.split(",\\s*"));
    }
}
