package dev.engram.rules;

import static dev.engram.rules.ChineseRules.CLAUSE_END;
import static dev.engram.rules.ChineseRules.I;
import static dev.engram.rules.ChineseRules.VALUE;
import static dev.engram.rules.ChineseRules.subjectIsUser;
import static dev.engram.rules.FactRules.rule;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;

import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;
import dev.engram.rules.SafetyRules.Slot;

/**
 * Chinese statements that withdraw a fact, read as the retraction they are (a negated fact of the same key, as "I'm no
 * longer allergic to peanuts" is in English): an allergy that ended or is denied (我对花生不过敏了, 我对花生已经不过敏了,
 * 我不再对花生过敏) retracts {@code allergy:<X>}, and a job left (我不再在华为工作了, 我已经不在华为上班了, 我从华为离职了)
 * retracts {@code employer}; the new job said in the next clause (…，现在在腾讯) is the new employer, which supersedes the
 * old one downstream. Tried before {@link ChineseSafetyRules}, whose allergy pattern would otherwise read 花生不 (the
 * allergen with the negation) as a new allergy. The subject is the user as {@link ChineseRules} reads it.
 */
final class ChineseRetractions {

    /** An allergen: a short run of Han characters or Latin letters. */
    private static final String ALLERGEN = "([\\p{IsHan}A-Za-z]{1,8}?)";
    /** A negation of a present state: 不, 不再, 没(有), with an adverb before it (已经, 也, 并, 根本). */
    private static final String NOT = "(?:已经|也|并|根本|早就)?(?:不再|不|没有?)再?";
    /** The job now, said in the clause after the one left: ，现在在腾讯, ，目前在字节跳动工作. */
    private static final String NOW_AT = "(?:[，,]\\s*我?(?:现在|目前|如今|后来)(?:在|去了?|到了?|加入了?|跳槽到了?)" + VALUE
        + CLAUSE_END + ")?";

    /** Retractions of an allergy and of an employer, said in Chinese. */
    static final List<Rule> RULES = List.of(
        rule("zh-allergy-retracted", I + "(?:对" + ALLERGEN + NOT + "过敏|" + NOT + "对" + ALLERGEN + "过敏)",
            (m, s) -> subjectIsUser(m, s) ? allergy(m, s) : List.of()),
        rule("zh-employer-retracted", I + "(?:" + NOT + "在" + VALUE + "(?:工作|上班|任职)|(?:从|在)" + VALUE
            + "(?:离职|辞职)|(?:离开了|辞掉了|辞去了)" + VALUE + "(?:的工作)?" + CLAUSE_END + ")了?" + NOW_AT,
            (m, s) -> subjectIsUser(m, s) ? employer(FactRules.first(m, 1, 3), m.group(4)) : List.of()));

    private ChineseRetractions() {
    }

    /** @return the allergy as a retraction: 不再对花生过敏 when it ended (了, 不再, 已经), 对花生不过敏 when denied */
    private static List<Fact> allergy(final Matcher m, final String sentence) {
        final String allergen = m.group(1) != null ? m.group(1) : m.group(2);
        final String said = m.group();
        final boolean ended = said.contains("不再") || said.contains("已经") || said.contains("早就")
            || sentence.startsWith("了", m.end()) || sentence.startsWith("啦", m.end());
        return ChangeRules.withdrawn(SafetyRules.one(Slot.ALLERGY, allergen), ended ? "不再对%s过敏" : "对%s不过敏");
    }

    /** @return the employer left as a retraction (a place is no employer: nothing), and the employer now, if said */
    private static List<Fact> employer(final String left, final String now) {
        final List<Fact> out = new ArrayList<>(ChangeRules.withdrawn(ChineseRules.employer(left).stream()
            .filter(f -> "employer".equals(f.key())).toList(), "不再在%s工作"));
        if (out.isEmpty()) {
            return List.of();
        }
        if (now != null) {
            out.addAll(ChineseRules.employer(now).stream().filter(f -> "employer".equals(f.key())).toList());
        }
        return out;
    }
}
