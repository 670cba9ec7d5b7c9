package dev.engram.rules;

import static dev.engram.rules.ChineseRules.I;
import static dev.engram.rules.ChineseRules.JOB;
import static dev.engram.rules.ChineseRules.CLAUSE_END;
import static dev.engram.rules.ChineseRules.subjectIsUser;
import static dev.engram.rules.FactRules.rule;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;

/**
 * The people, pets, places, pastimes and favourites of {@link LifeRules}, {@link HobbyRules} and {@link LikingRules}
 * stated in Chinese, with the same keys (the relation and the favourite's kind in English, so a fact stated in
 * either language is one slot): {@code family:<relation>:<name>} (我女儿叫小雨, 我有个弟弟叫阿杰), {@code friend:<name>}
 * (我的好朋友叫张伟), {@code pet:<name>} or {@code pet:<species>} (我养了一只猫，叫咪咪; 我养了两只兔子),
 * {@code hometown} (我老家是湖南的, 我是广东人, 我在青岛长大), {@code visited:<place>} (我去过日本和韩国),
 * {@code hobby:<activity>} (我每个周末都去爬山, 我会弹钢琴, 我的爱好是摄影), {@code favorite:<kind>} (我最喜欢的书是《红楼梦》),
 * and employer with role in one clause (我在腾讯当产品经理).
 */
final class ChineseLifeRules {

    private static final Map<String, String> RELATIONS = Map.ofEntries(Map.entry("女儿", "daughter"),
        Map.entry("儿子", "son"), Map.entry("老婆", "wife"), Map.entry("妻子", "wife"), Map.entry("太太", "wife"),
        Map.entry("丈夫", "husband"), Map.entry("老公", "husband"), Map.entry("妹妹", "sister"), Map.entry("姐姐", "sister"),
        Map.entry("哥哥", "brother"), Map.entry("弟弟", "brother"), Map.entry("妈妈", "mother"), Map.entry("母亲", "mother"),
        Map.entry("爸爸", "father"), Map.entry("父亲", "father"), Map.entry("男朋友", "boyfriend"),
        Map.entry("女朋友", "girlfriend"), Map.entry("孩子", "child"), Map.entry("爷爷", "grandfather"),
        Map.entry("奶奶", "grandmother"), Map.entry("好朋友", "friend"), Map.entry("朋友", "friend"));
    private static final String RELATION = "(女儿|儿子|老婆|妻子|太太|丈夫|老公|妹妹|姐姐|哥哥|弟弟|妈妈|母亲|爸爸|父亲|男朋友|女朋友|孩子"
        + "|爷爷|奶奶|好朋友|朋友)";
    private static final String PET = "(猫咪|小猫|猫|小狗|狗狗|狗|兔子|仓鼠|鹦鹉|金毛|柯基|泰迪|哈士奇|柴犬|边牧|乌龟|金鱼|八哥|荷兰猪"
        + "|龙猫|蜥蜴|蛇)";
    private static final String COUNT = "(?:一|两|三|四|几|\\d+)?(?:只|条|个|匹|头)?";
    private static final String NAME = "([\\p{IsHan}A-Za-z]{1,4}?)(?=[，,。.！!；;、\\s]|$|今年|是|也|在|特别|非常|很)";
    private static final String ACTIVITY = "(爬山|跑步|游泳|健身房|健身|瑜伽|徒步|骑车|骑行|钓鱼|滑雪|跳舞|唱歌|画画|摄影|露营|书法|冥想"
        + "|打(?:篮球|羽毛球|乒乓球|网球|排球|高尔夫|太极)|踢(?:足球|毽子)|弹(?:钢琴|吉他|古筝|琵琶)|下(?:围棋|象棋|棋)"
        + "|练(?:瑜伽|书法|太极|拳)|拉小提琴)";
    private static final Map<String, String> KINDS = Map.ofEntries(Map.entry("书", "book"), Map.entry("电影", "movie"),
        Map.entry("歌", "song"), Map.entry("歌曲", "song"), Map.entry("歌手", "singer"), Map.entry("颜色", "color"),
        Map.entry("作家", "author"), Map.entry("演员", "actor"), Map.entry("乐队", "band"), Map.entry("运动", "sport"),
        Map.entry("游戏", "game"), Map.entry("城市", "city"));
    private static final Pattern PLACE_SUFFIX = Pattern.compile(".*[市省区县镇村州]$");
    private static final Pattern SPLIT = Pattern.compile("和|、|跟");

    /** Family, friends, pets, hometown, places visited, hobbies, favourites, employer with role. */
    static final List<Rule> RULES = List.of(
        rule("zh-family", "我(?:的)?" + RELATION + "(?:[^，,。！!？?]{0,8}[，,]\\s*)?(?:的名字)?叫" + NAME,
            (m, s) -> relation(m.group(1), m.group(2))),
        rule("zh-family-have", I + "有(?:一)?个" + RELATION + "(?:[，,]\\s*)?(?:名字)?叫" + NAME,
            (m, s) -> subjectIsUser(m, s) ? relation(m.group(1), m.group(2)) : List.of()),
        rule("zh-pet-named", I + "(?:家)?(?:养了|养着|养|有)" + COUNT + PET + "(?:[，,]\\s*)?(?:名字)?叫" + NAME,
            (m, s) -> subjectIsUser(m, s) ? LifeRules.pet(m.group(2), m.group(1)) : List.of()),
        rule("zh-pet-named-before", I + "(?:家)?(?:养了|养着|养|有)" + COUNT + "(?:叫|名叫)([\\p{IsHan}]{1,4}?)的" + PET,
            (m, s) -> subjectIsUser(m, s) ? LifeRules.pet(m.group(1), m.group(2)) : List.of()),
        rule("zh-pet-mine", "我(?:家|的|家的)" + PET + "(?:的名字)?叫" + NAME, (m, s) -> LifeRules.pet(m.group(2), m.group(1))),
        rule("zh-pet", I + "(?:家)?(?:(?:养了|养着|养)" + COUNT + "|有(?:一|两|三|四|几|\\d+)(?:只|条|匹|头))" + PET, (m, s) -> subjectIsUser(m, s)
            ? LifeRules.pet(null, m.group(1)) : List.of()),
        rule("zh-hometown", I + "(?:老家(?:是|在)|出生在|出生于|生在|在)([\\p{IsHan}]{2,8}?)(?:的|长大|出生)?"
            + "(?=[，,。.！!；;、\\s]|$)|" + I + "是([\\p{IsHan}]{2,4}?)人" + "(?=[，,。.！!；;、\\s]|$)",
            (m, s) -> subjectIsUser(m, s) ? hometown(m.group(1) != null ? m.group(1) : m.group(2), m.group()) : List.of()),
        rule("zh-visited", I + "(?:去过|到过|去了|游览过)([\\p{IsHan}、和]{2,14}?)(旅游|旅行|玩|度假)?(?=[，,。.！!；;\\s]|$)",
            (m, s) -> subjectIsUser(m, s) ? visited(m.group(1), m.group(2) != null) : List.of()),
        rule("zh-hobby", I + "(?:都|会|常|爱|在学|学|在)?(?:去)?(?:[一两三四五\\d]+次)?" + ACTIVITY,
            (m, s) -> subjectIsUser(m, s) ? hobby(m.group(1)) : List.of()),
        rule("zh-hobby-is", "我的爱好是([\\p{IsHan}、和]{2,16}?)(?=[，,。.！!；;\\s]|$)", (m, s) -> hobbies(m.group(1))),
        rule("zh-favorite", "我(?:最)?喜欢的(书|电影|歌曲|歌手|歌|颜色|作家|演员|乐队|运动|游戏|城市)是《?([^》，,。.！!]{1,16}?)》?"
            + "(?=[，,。.！!；;\\s]|$)", (m, s) -> LikingRules.favorite(KINDS.get(m.group(1)), m.group(2))),
        rule("zh-employer-role", I + "在([\\p{IsHan}A-Za-z]{2,12}?)(?:当|做|担任)(?:一名|一个|一位|名)?([\\p{IsHan}]{0,6}?"
            + JOB + ")" + CLAUSE_END, (m, s) -> {
                if (!subjectIsUser(m, s)) {
                    return List.of();
                }
                final List<Fact> facts = new ArrayList<>(ChineseRules.employer(m.group(1)));
                facts.addAll(ChineseRules.role(m.group(2)));
                return facts;
            }));

    private ChineseLifeRules() {
    }

    private static List<Fact> relation(final String relation, final String name) {
        final String english = RELATIONS.get(relation);
        return "friend".equals(english) ? LifeRules.friend(name) : LifeRules.family(english, name);
    }

    private static boolean place(final String name) {
        return ChineseRules.PLACES.contains(name) || PLACE_SUFFIX.matcher(name).matches();
    }

    private static List<Fact> hometown(final String raw, final String said) {
        // 我在X长大 and 我是X人 need a known place: 我在忙 is no hometown, 我是好人 no origin
        final boolean explicit = said.contains("老家") || said.contains("出生") || said.contains("生在");
        if (raw == null || (!explicit && !place(raw)) || (said.contains("在") && !explicit && !said.contains("长大"))) {
            return List.of();
        }
        return LifeRules.hometown(raw);
    }

    private static List<Fact> visited(final String raw, final boolean trip) {
        final List<Fact> out = new ArrayList<>();
        for (final String place : SPLIT.split(raw)) {
            if (!place.isBlank() && (trip || place(place.strip()))) {
                out.addAll(LifeRules.visited(place.strip()));
            }
        }
        return out;
    }

    private static List<Fact> hobby(final String raw) {
        return HobbyRules.hobby("健身房".equals(raw) ? "健身" : raw);
    }

    private static List<Fact> hobbies(final String raw) {
        final List<Fact> out = new ArrayList<>();
        for (final String h : SPLIT.split(raw)) {
            if (!h.isBlank()) {
                out.addAll(HobbyRules.hobby(h.strip()));
            }
        }
        return out;
    }
}
