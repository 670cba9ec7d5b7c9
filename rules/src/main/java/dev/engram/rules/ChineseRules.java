package dev.engram.rules;

import static dev.engram.rules.FactRules.EXPLICIT;
import static dev.engram.rules.FactRules.IMPORTANCE_CONTEXT;
import static dev.engram.rules.FactRules.IMPORTANCE_LIKES;
import static dev.engram.rules.FactRules.IMPORTANCE_WORK;
import static dev.engram.rules.FactRules.rule;
import static dev.engram.rules.FactRules.slug;

import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;

/**
 * Facts from Chinese first-person statements, with the keys of the English rules so a fact stated in
 * either language supersedes the other: {@code city} (我住在北京, 我搬到上海了), {@code employer} (我在华为工作,
 * 我跳槽到了字节跳动), {@code uses:<tool>} and the other technical slots (我们换成了Linear), {@code role}
 * (我是一名工程师, 在一家公司当工程师) and {@code preference:<what>} (我喜欢爬山 = like, 我不喜欢/讨厌… = dislike). The
 * content is Chinese ("住在北京", "在华为工作"), so it is embedded by the Chinese model and found by Chinese questions.
 *
 * <p>Chinese has no spaces: a value is the run of characters up to the next clause mark (，。、；！？ and
 * their ASCII forms) or a word that starts the next clause (在, 和, 并, 还, 也, 工作, 上班 …), between
 * {@value #MIN_VALUE} and {@value #MAX_VALUE} characters. The subject is the user when the clause starts
 * with 我/我们, or when the sentence starts with 我 and the clause follows a comma with no subject of its own
 * (我叫林晓，住在杭州). A name (我叫林晓) is left to the
 * episode: a name fact would outrank the memory a question naming the user asks for (林晓住在哪里？). Only the present is read: 以前住在 (used to), 想/打算/如果 (wish, plan, condition) and
 * 不 (not) state nothing here.
 *
 * <p>{@code 我在X工作} names a place as often as an employer (我在北京工作): X is read as the employer unless
 * it ends in a place suffix (市, 省, 区, 县, 镇, 村) or is one of {@link #PLACES}, the provincial-level
 * divisions and the largest cities, in which case it is the city.
 */
final class ChineseRules {

    /** Shortest value, in characters (one character is usually a pronoun or a particle: 家, 这). */
    static final int MIN_VALUE = 2;
    /** Longest value, in characters. */
    static final int MAX_VALUE = 12;

    /** A clause starting with the user: 我 or 我们, then adverbs of the present. */
    static final String I = "(?:我们?|(?<=[，,；;]))\\s*(?:(?:现在|目前|一直|也|还|都|就|正|平时|主要|去年|今年|前年|最近|已经|从小|每天|经常"
        + "|每个周末|周末|每周|平常|业余时间|早上|晚上|而且|并且|常常)\\s*){0,3}";
    /** The value: a lazy run of letters and digits, cut before the next clause. */
    static final String VALUE = "([\\p{IsHan}\\p{L}\\p{N}·&.\\- ]{" + MIN_VALUE + "," + MAX_VALUE + "}?)";
    /** After a liked thing only a clause mark ends it: 看动作片和喜剧片 keeps its 和. */
    static final String LIKE_END = "(?=[，,。.！!？?；;、:：\\s]|$|的时候)";
    static final String CLAUSE_END = "(?=[，,。.！!？?；;、:：\\s]|$|在|和|并|还|也|而|但|工作|上班|任职|附近|一带|这边|那边|的时候)";
    static final String JOB = "(?:工程师|程序员|设计师|医生|护士|老师|教师|教授|讲师|学生|研究生|博士生|研究员|经理|总监"
        + "|律师|会计|会计师|记者|编辑|作家|厨师|司机|警察|消防员|销售|店员|服务员|画家|摄影师|演员|歌手|翻译|公务员|分析师"
        + "|顾问|架构师|产品经理|创业者|农民|工人|秘书|实习生|飞行员|药剂师|心理咨询师|建筑师|科学家|主管|老板)";
    private static final Pattern CONDITION = Pattern.compile("如果|要是|假如|假设|希望|想要|打算|准备|可能|也许|梦想|以前|曾经|过去");
    /** A sentence whose first clause is about the user: 我 not followed by 的 or a person (我朋友, 我妈 …). */
    static final Pattern USER_FIRST = Pattern.compile("我们?(?!的|朋友|同事|家人|妈|爸|哥|姐|弟|妹|老公|老婆|丈夫|妻子"
        + "|男朋友|女朋友|孩子|儿子|女儿|室友|邻居|同学|老板|领导|爷爷|奶奶|外公|外婆|叔叔|阿姨)");
    private static final Pattern PLACE_SUFFIX = Pattern.compile(".*[市省区县镇村州]$");
    /**
     * Provincial-level divisions and the largest cities: {@code 我在X工作} with one of these is a city.
     */
    static final Set<String> PLACES = Set.of("北京", "上海", "天津", "重庆", "广州", "深圳", "杭州", "南京", "苏州",
        "成都", "武汉", "西安", "长沙", "郑州", "青岛", "济南", "大连", "沈阳", "哈尔滨", "长春", "厦门", "福州", "合肥",
        "南昌", "昆明", "贵阳", "南宁", "海口", "三亚", "兰州", "西宁", "银川", "乌鲁木齐", "拉萨", "呼和浩特", "太原",
        "石家庄", "宁波", "无锡", "东莞", "佛山", "珠海", "香港", "澳门", "台北", "河北", "山西", "辽宁", "吉林",
        "黑龙江", "江苏", "浙江", "安徽", "福建", "江西", "山东", "河南", "湖北", "湖南", "广东", "海南", "四川", "贵州",
        "云南", "陕西", "甘肃", "青海", "台湾", "内蒙古", "广西", "西藏", "宁夏", "新疆", "国外", "海外", "美国", "日本",
        "英国", "法国", "德国", "加拿大", "澳大利亚", "新加坡", "韩国");
    /** Values that are not a name, place or company: pronouns, "a …", "this …", question words, home. */
    static final Pattern NOT_A_VALUE = Pattern.compile(
        "^(?:一[个家所间位名座]|这|那|哪|什么|他|她|它|你|您|我|自己|的|里面|其中|家里?$)");
    /**
     * 在 also marks the progressive (我在思考要不要换工作 "I am wondering whether to change jobs"): an employer names
     * no plan, search or activity.
     */
    private static final Pattern NOT_AN_EMPLOYER = Pattern.compile("考虑|思考|想|要|换|找|学|准备|忙|努力|做|一份|家");

    /** City, employer, role, likes and dislikes stated in Chinese. */
    static final List<Rule> RULES = List.of(
        rule("zh-city", I + "(?:住在|居住在|生活在|定居在|搬家?到了?|搬家?去了?|搬回到?了?)" + VALUE + CLAUSE_END,
            (m, s) -> subjectIsUser(m, s) ? city(m.group(1)) : List.of()),
        rule("zh-employer", I + "在" + VALUE + "(?:工作|上班|任职)", (m, s) -> subjectIsUser(m, s) ? employer(m.group(1))
            : List.of()),
        // a job change said as the new job: 我跳槽到了字节跳动, 我加入了腾讯, 我换到阿里巴巴工作了
        rule("zh-employer-joined", I + "(?:跳槽到了?|跳槽去了?|加入了|入职了?)" + VALUE + CLAUSE_END,
            (m, s) -> subjectIsUser(m, s) ? employer(m.group(1)) : List.of()),
        rule("zh-employer-moved", I + "(?:换到|转到|调到|去(?!年))了?" + VALUE + "(?:工作|上班)",
            (m, s) -> subjectIsUser(m, s) ? employer(m.group(1)) : List.of()),
        // a tool switched to, by its Latin name: 我们换成了Linear, 我改用VS Code了
        rule("zh-tool-switched", I + "(?:改用|换成了?|换用|转用|切换到了?|改成用)\\s*([A-Za-z][\\w.+#-]*(?:\\s+[A-Z][\\w.+#-]*){0,2})",
            (m, s) -> subjectIsUser(m, s) ? tool(m.group(1)) : List.of()),
        rule("zh-role", I + "(?:是|当|做|担任)(?:一名|一个|一位|名)?([\\p{IsHan}]{0,6}?" + JOB + ")" + CLAUSE_END,
            (m, s) -> subjectIsUser(m, s) ? role(m.group(1)) : List.of()),
        rule("zh-role-at", "(?:^|[，,])\\s*在[^，,。]{1,16}?(?:当|做|担任)(?:一名|一个|一位|名)?([\\p{IsHan}]{0,6}?" + JOB + ")"
            + CLAUSE_END, (m, s) -> USER_FIRST.matcher(s).lookingAt() && !conditional(s, m.start()) ? role(m.group(1))
                : List.of()),
        rule("zh-dislike", I + "(?:很|非常|特别|真的|最)?(?:不喜欢|不爱|讨厌|不太喜欢|受不了)" + VALUE + LIKE_END,
            (m, s) -> subjectIsUser(m, s) ? preference(m.group(1), false) : List.of()),
        rule("zh-like", I + "(?:很|非常|特别|真的|最|比较|超级)?(?:喜欢|热爱|爱好|迷上了?)" + VALUE + LIKE_END,
            (m, s) -> subjectIsUser(m, s) ? preference(m.group(1), true) : List.of()));

    private ChineseRules() {
    }

    /**
     * @return whether the clause's subject is the user (我 in the match, or a subject-less clause of a
     *     sentence that starts with 我) and nothing before it makes it a wish, plan, condition or the past
     */
    static boolean subjectIsUser(final Matcher m, final String sentence) {
        final boolean own = m.group().stripLeading().startsWith("我");
        return (own || USER_FIRST.matcher(sentence).lookingAt()) && !conditional(sentence, m.start());
    }

    private static boolean conditional(final String sentence, final int start) {
        final int clause = Math.max(sentence.lastIndexOf('，', start - 1), sentence.lastIndexOf(',', start - 1)) + 1;
        return CONDITION.matcher(sentence.substring(clause, start)).find()
            || CONDITION.matcher(sentence.substring(start)).lookingAt();
    }

    private static String value(final String raw) {
        // a change ends on 了 (我搬到上海了): the particle is no part of the name
        final String v = raw == null ? "" : raw.strip().replaceFirst("[了啦]$", "");
        return v.length() < MIN_VALUE || NOT_A_VALUE.matcher(v).find() ? "" : v;
    }

    private static List<Fact> city(final String raw) {
        final String city = value(raw);
        return city.isEmpty() ? List.of()
            : List.of(fact(FactCategory.PERSONAL, "city", city, "City", "住在" + city, IMPORTANCE_CONTEXT));
    }

    static List<Fact> employer(final String raw) {
        final String where = value(raw);
        if (where.isEmpty()) {
            return List.of();
        }
        if (PLACES.contains(where) || PLACE_SUFFIX.matcher(where).matches()) {
            return city(where);
        }
        if (NOT_AN_EMPLOYER.matcher(where).find()) {
            return List.of();
        }
        return List.of(fact(FactCategory.ROLE, "employer", where, "Employer", "在" + where + "工作", IMPORTANCE_WORK));
    }

    static List<Fact> role(final String raw) {
        final String role = value(raw);
        return role.isEmpty() ? List.of()
            : List.of(fact(FactCategory.ROLE, "role", role, "Role", "职业是" + role, IMPORTANCE_WORK));
    }

    /** A tool, IDE, language or cloud switched to, in the English rules' slot ({@link TechVocabulary}), said in Chinese. */
    private static List<Fact> tool(final String raw) {
        return TechVocabulary.resolve(raw).map(t -> List.of(new Fact(MemoryType.SEMANTIC, FactCategory.TECHNICAL, t.key(),
            t.value(), t.slot() == TechVocabulary.Slot.TOOL ? "Tool: " + t.value() : t.slot().key, "使用" + t.value(), false,
            t.slot() == TechVocabulary.Slot.TOOL ? IMPORTANCE_LIKES : IMPORTANCE_CONTEXT, EXPLICIT, MemorySource.EXPLICIT)))
            .orElse(List.of());
    }

    private static List<Fact> preference(final String raw, final boolean like) {
        final String what = value(raw);
        if (what.isEmpty()) {
            return List.of();
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PREFERENCE, "preference:" + slug(what),
            like ? "like" : "dislike", "Preference: " + what, (like ? "喜欢" : "不喜欢") + what, false,
            IMPORTANCE_LIKES, EXPLICIT, MemorySource.EXPLICIT));
    }

    private static Fact fact(final FactCategory category, final String key, final String value, final String display,
                             final String content, final double importance) {
        return new Fact(MemoryType.SEMANTIC, category, key, value, display, content, false, importance, EXPLICIT,
            MemorySource.EXPLICIT);
    }
}
