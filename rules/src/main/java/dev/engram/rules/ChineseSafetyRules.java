package dev.engram.rules;

import static dev.engram.rules.ChineseRules.I;
import static dev.engram.rules.ChineseRules.subjectIsUser;
import static dev.engram.rules.FactRules.rule;

import java.util.List;
import java.util.Set;

import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;
import dev.engram.rules.SafetyRules.Slot;

/**
 * {@link SafetyRules}' facts stated in Chinese, with the same keys and a Chinese value and content:
 * {@code allergy:<X>} (我对X过敏), {@code intolerance:<X>} (我乳糖不耐受), {@code condition:<X>} (我有糖尿病, 我怀孕了: a
 * known condition), {@code medication:<X>} (我每天吃降压药, 我在吃二甲双胍: a known medication or a word ending in 药),
 * {@code avoids:<X>} (我不吃猪肉, 不能吃麸质), {@code accessibility:<X>} (我坐轮椅), and the vegetarian and vegan
 * {@code diet} (我吃素, 我是素食者). The subject is the user as {@link ChineseRules} reads it: 我 at the clause, or a
 * subject-less clause of a sentence that starts with 我 (我妹妹对花生过敏 is the sister's).
 */
final class ChineseSafetyRules {

    private static final String CONDITIONS = "(糖尿病|哮喘|高血压|低血压|高血脂|心脏病|冠心病|癫痫|乳糜泻|抑郁症|焦虑症|关节炎|偏头痛"
        + "|贫血|痛风|胃病|甲亢|甲减|过敏性鼻炎|湿疹|乙肝|肾病|癌症|自闭症|多动症|失眠症|帕金森)";
    private static final String MEDICATIONS = "(降压药|胰岛素|二甲双胍|阿司匹林|抗抑郁药|安眠药|降糖药|降脂药|他汀|激素|抗生素|布洛芬"
        + "|华法林|优甲乐|[\\p{IsHan}]{1,4}?药)";
    private static final String END = "(?=[，,。.！!？?；;、\\s]|$|了|的|和)";
    private static final Set<String> NOT_A_FOOD = Set.of("饭", "东西", "早饭", "早餐", "午饭", "晚饭", "太多", "多", "药", "这个",
        "那个", "零食");

    /** Safety facts and the vegetarian diet stated in Chinese. */
    static final List<Rule> RULES = List.of(
        rule("zh-allergy", I + "对([\\p{IsHan}A-Za-z]{1,8}?)(?<![不没再])(?:严重)?过敏",
            (m, s) -> subjectIsUser(m, s) ? each(Slot.ALLERGY, m.group(1)) : List.of()),
        rule("zh-intolerance", I + "(?:对|有)?([\\p{IsHan}]{1,4}?)不耐受?",
            (m, s) -> subjectIsUser(m, s) ? SafetyRules.one(Slot.INTOLERANCE, m.group(1)) : List.of()),
        rule("zh-condition", I + "(?:有|患有|得了|确诊了?|被确诊为?|查出了?)" + CONDITIONS,
            (m, s) -> subjectIsUser(m, s) ? SafetyRules.one(Slot.CONDITION, m.group(1)) : List.of()),
        rule("zh-pregnant", I + "(怀孕)了?", (m, s) -> subjectIsUser(m, s) ? SafetyRules.one(Slot.CONDITION, m.group(1))
            : List.of()),
        rule("zh-medication", I + "(?:要|在|需要|得|必须)?(?:吃|服用|打|注射|用)" + MEDICATIONS + END,
            (m, s) -> subjectIsUser(m, s) ? SafetyRules.one(Slot.MEDICATION, m.group(1)) : List.of()),
        rule("zh-diet-vegan", I + "(?:吃)?(?:全素|纯素)", (m, s) -> subjectIsUser(m, s)
            ? List.of(DietRules.stated("vegan")) : List.of()),
        rule("zh-diet-vegetarian", I + "(?:是(?:一名|一个)?素食(?:者|主义者)|吃素)", (m, s) -> subjectIsUser(m, s)
            ? List.of(DietRules.stated("vegetarian")) : List.of()),
        rule("zh-avoids", I + "(?:从来|从不|一般)?不(?:能|敢|可以)?(?:吃|喝|碰)([\\p{IsHan}]{1,6}?)" + END,
            (m, s) -> subjectIsUser(m, s) && !NOT_A_FOOD.contains(m.group(1))
                ? SafetyRules.one(Slot.AVOIDS, m.group(1)) : List.of()),
        rule("zh-accessibility", I + "(?:坐|用|需要|靠)(轮椅|助听器|拐杖|导盲犬|无障碍通道)|" + I + "是?(盲人|聋人|视障人士|听障人士)",
            (m, s) -> subjectIsUser(m, s) ? SafetyRules.one(Slot.ACCESSIBILITY, m.group(1) != null ? m.group(1)
                : m.group(2)) : List.<Fact>of()));

    private ChineseSafetyRules() {
    }

    /** @return one fact per item of 青霉素和花粉 (items joined by 和, 、 or 跟) */
    private static List<Fact> each(final Slot slot, final String items) {
        final List<Fact> out = new java.util.ArrayList<>();
        for (final String item : items.split("和|、|跟|以及")) {
            out.addAll(SafetyRules.one(slot, item));
        }
        return out;
    }
}
