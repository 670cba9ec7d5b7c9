package dev.engram.core;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The other names of well-known cities, and the rule that tells a mistyped place from another place. "SF", "San
 * Francisco" and "旧金山" are one city, as are "NYC", "New York City" and "New York", or "上海" and "Shanghai": a user
 * restating where they live in another form, or in Chinese, restates it ({@link ValueAliases#fold} folds these names
 * as it folds tool names), so the profile does not flip between spellings and the history holds no false changes.
 *
 * <p>A modest table, not a gazetteer: about sixty cities users name often (the largest and most visited, those of the
 * LoCoMo and MemoryBank conversations), each with its common English abbreviations, its endonym where users write it
 * ("München", "Lisboa", "Wien") and its Chinese name. A name that is a word or another place elsewhere is left out
 * ("Canton" is also Canton, Ohio; "Washington" is also the state). A few real places one typing error away from a
 * listed city have entries of their own ("Sidney" for Sydney, "Bolton" for Boston, "Homburg" for Hamburg, "Genova" is
 * Genoa for Geneva), so they are never read as its misspelling ({@link #mistyped}).
 */
public final class PlaceNames {

    /** Each entry: its canonical spelling first, then its other names. */
    static final List<List<String>> ENTRIES = List.of(
        List.of("New York", "New York City", "NYC", "New York, NY", "纽约", "紐約"),
        List.of("San Francisco", "SF", "San Fran", "旧金山", "舊金山", "三藩市"),
        List.of("Los Angeles", "LA", "L.A.", "洛杉矶", "洛杉磯"),
        List.of("Las Vegas", "Vegas", "拉斯维加斯"),
        List.of("Chicago", "芝加哥"),
        List.of("Boston", "波士顿", "波士頓"),
        List.of("Seattle", "西雅图", "西雅圖"),
        List.of("Washington, D.C.", "Washington DC", "Washington D.C.", "华盛顿特区"),
        List.of("Toronto", "多伦多", "多倫多"),
        List.of("Vancouver", "温哥华", "溫哥華"),
        List.of("London", "伦敦", "倫敦"),
        List.of("Paris", "巴黎"),
        List.of("Berlin", "柏林"),
        List.of("Munich", "München", "Muenchen", "慕尼黑"),
        List.of("Hamburg", "汉堡", "漢堡"),
        List.of("Cologne", "Köln", "Koeln", "科隆"),
        List.of("Vienna", "Wien", "维也纳", "維也納"),
        List.of("Zurich", "Zürich", "Zuerich", "苏黎世", "蘇黎世"),
        List.of("Geneva", "Genève", "Genf", "日内瓦", "日內瓦"),
        List.of("Genoa", "Genova", "热那亚"),
        List.of("Rome", "Roma", "罗马", "羅馬"),
        List.of("Milan", "Milano", "米兰", "米蘭"),
        List.of("Florence", "Firenze", "佛罗伦萨"),
        List.of("Venice", "Venezia", "威尼斯"),
        List.of("Naples", "Napoli", "那不勒斯"),
        List.of("Madrid", "马德里", "馬德里"),
        List.of("Barcelona", "巴塞罗那", "巴塞隆納"),
        List.of("Lisbon", "Lisboa", "里斯本"),
        List.of("Amsterdam", "阿姆斯特丹"),
        List.of("Brussels", "Bruxelles", "Brussel", "布鲁塞尔"),
        List.of("Copenhagen", "København", "哥本哈根"),
        List.of("Prague", "Praha", "布拉格"),
        List.of("Warsaw", "Warszawa", "华沙", "華沙"),
        List.of("Moscow", "Moskva", "莫斯科"),
        List.of("Athens", "Athina", "雅典"),
        List.of("Istanbul", "İstanbul", "伊斯坦布尔"),
        List.of("Dubai", "迪拜", "杜拜"),
        List.of("Mumbai", "Bombay", "孟买", "孟買"),
        List.of("Bengaluru", "Bangalore", "班加罗尔"),
        List.of("Kolkata", "Calcutta", "加尔各答"),
        List.of("Chennai", "Madras", "金奈"),
        List.of("Ho Chi Minh City", "Saigon", "HCMC", "胡志明市"),
        List.of("Bangkok", "曼谷"),
        List.of("Singapore", "新加坡"),
        List.of("Tokyo", "东京", "東京"),
        List.of("Osaka", "大阪"),
        List.of("Kyoto", "京都"),
        List.of("Seoul", "首尔", "首爾", "汉城"),
        List.of("Beijing", "Peking", "北京"),
        List.of("Shanghai", "上海"),
        List.of("Shenzhen", "深圳"),
        List.of("Guangzhou", "广州", "廣州"),
        List.of("Hong Kong", "HK", "香港"),
        List.of("Taipei", "台北", "臺北"),
        List.of("Chengdu", "成都"),
        List.of("Hangzhou", "杭州"),
        List.of("Nanjing", "Nanking", "南京"),
        List.of("Wuhan", "武汉", "武漢"),
        List.of("Xi'an", "Xian", "西安"),
        List.of("Chongqing", "Chungking", "重庆", "重慶"),
        List.of("Tianjin", "天津"),
        List.of("Suzhou", "苏州", "蘇州"),
        List.of("Sydney", "悉尼", "雪梨"),
        List.of("Melbourne", "墨尔本", "墨爾本"),
        // real places one typing error away from a listed city: never its misspelling
        List.of("Sidney"),
        List.of("Bolton"),
        List.of("Homburg", "Bad Homburg"));

    /** The shortest value, in letters, a typing error is told in: one edit from 6 letters, two from 10. */
    private static final int ONE_EDIT_LETTERS = 6;
    private static final int TWO_EDITS_LETTERS = 10;

    /** Folded canonical spellings of the table's places. */
    private static final Set<String> PLACES = new HashSet<>();

    static {
        // MemoryIds#fold, not ValueAliases#fold: ValueAliases reads ENTRIES while it initializes (its canonical is this)
        ENTRIES.forEach(entry -> PLACES.add(MemoryIds.fold(entry.get(0))));
    }

    private PlaceNames() {
    }

    /**
     * @param value a value, or null
     * @return whether it is one of the table's names of a place ({@link ValueAliases#fold})
     */
    public static boolean isKnown(final String value) {
        return PLACES.contains(ValueAliases.fold(value));
    }

    /**
     * Whether a place said is the current one mistyped ("San Fransisco" for "San Francisco", "Berln" for "Berlin"):
     * the two differ ({@link ValueAliases#fold}) by at most one edit ({@link EditDistance}: an insertion, deletion,
     * substitution or swap of neighbours) when both have at least 6 letters, two when both have at least 10, start with
     * the same letter, hold only letters, spaces, hyphens, apostrophes and dots, and are not two of the table's places
     * ("Sydney" and "Sidney", "Boston" and "Bolton" stay two places). "Austin" and "Boston" are three edits apart;
     * "Paris" and "Parus" are too short to tell a typing error from another name. No model and no gazetteer: what the
     * rule cannot know (two unlisted towns one letter apart) it takes as a typing error, which is why it starts at 6
     * letters and is asked only about the fact's current value.
     *
     * @param current the fact's current value
     * @param said the value said now
     * @return true when {@code said} is {@code current} mistyped (false when they are the same value or either is null)
     */
    public static boolean mistyped(final String current, final String said) {
        final String a = ValueAliases.fold(current);
        final String b = ValueAliases.fold(said);
        if (a.isEmpty() || b.isEmpty() || a.equals(b) || a.charAt(0) != b.charAt(0) || !spelt(a) || !spelt(b)
            || PLACES.contains(a) && PLACES.contains(b)) {
            return false;
        }
        final int letters = Math.min(letters(a), letters(b));
        final int allowed = letters >= TWO_EDITS_LETTERS ? 2 : letters >= ONE_EDIT_LETTERS ? 1 : 0;
        return allowed > 0 && EditDistance.of(a, b) <= allowed;
    }

    /** @return whether a folded value is a spelt name: Latin letters, spaces, hyphens, apostrophes and dots only */
    private static boolean spelt(final String folded) {
        return folded.chars().allMatch(c -> c >= 'a' && c <= 'z' || c == ' ' || c == '-' || c == '\'' || c == '.');
    }

    private static int letters(final String folded) {
        return (int) folded.chars().filter(Character::isLetter).count();
    }
}
