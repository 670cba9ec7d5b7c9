package dev.engram.safety;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.text.CaselessPattern;

/**
 * Safety facts: what must not be forgotten or left out because ignoring it can harm the user — allergies,
 * intolerances, medical conditions, medication, foods avoided, diets and accessibility needs.
 *
 * <p>A memory is a safety fact when its category is one of {@link #categories()} (by default CONSTRAINT, the category
 * the rule-based extractor gives them) or its key is one of the safety slots ({@code allergy:},
 * {@code intolerance:}, {@code condition:}, {@code medication:}, {@code avoids:}, {@code accessibility:},
 * {@code diet}, and the spellings an LLM gives them: {@code allergies}, {@code medical_condition},
 * {@code dietary_restrictions} …), so one an LLM filed under another category still counts. Two rules follow from it:
 * <ul>
 *   <li>the lifecycle never archives a safety fact as stale, however long it goes unused (it is rarely asked for and
 *       always needed when it is: "Can I eat prawns?" a year after "I'm allergic to shellfish");</li>
 *   <li>a context block for a message about food, health, travel or plans ({@link #concerns}) carries the user's
 *       active safety facts first, whatever the ranking says (a question about prawns shares no word with shellfish).</li>
 * </ul>
 * The category set is a parameter so that categories a tenant defines can be safety categories too; the default
 * instance is {@link #DEFAULT}. Stateless and thread-safe.
 */
public final class SafetyFacts {

    /**
     * The slot names (a key up to its first colon) of safety facts: the rule-based extractor's and the spellings an LLM
     * gives them ("allergies", "medical_condition", "dietary_restrictions").
     */
    private static final Set<String> SLOTS = Set.of("allergy", "allergies", "intolerance", "intolerances", "condition",
        "conditions", "medical_condition", "medical_conditions", "health_condition", "medication", "medications",
        "avoids", "accessibility", "accessibility_need", "accessibility_needs", "diet", "dietary_restriction",
        "dietary_restrictions");

    /** CONSTRAINT is the safety category. */
    public static final SafetyFacts DEFAULT = new SafetyFacts(Set.of(FactCategory.CONSTRAINT.name()));

    /**
     * Words of messages about food and drink, health, travel or plans (English and Chinese): the topics where a
     * constraint changes the answer. A word matches at a word start ("eat" matches "eating", not "great").
     */
    private static final CaselessPattern TOPICS = CaselessPattern.compile("\\b(?:eat|ate|food|meal|dinner|lunch|breakfast|brunch|snack"
        + "|cook|recipe|restaurant|menu|dish|bake|baking|drink|cafe|café|bar\\b|takeaway|takeout|order|grocer|diet|hungry"
        + "|cuisine|dessert|cake|pizza|sushi|prawn|shrimp|shellfish|seafood|fish|nut|peanut|milk|dairy|cheese|egg|bread"
        + "|gluten|wine|beer|alcohol|coffee|tea\\b|chocolate|sugar|spicy|vegan|vegetarian|allerg|intoleran|health|doctor"
        + "|medic|pill|drug|prescription|pharmac|symptom|sick|ill\\b|pain|hospital|clinic|exercise|workout|gym|marathon"
        + "|vaccin|dose|treatment|surgery|pregnan|travel|trip|flight|fly|flying|hotel|vacation|holiday|abroad|airport"
        + "|book|tour|visit|cruise|hike|hiking|camp|itinerar|passport|venue|plan|weekend|tonight|tomorrow|next\\s+week"
        + "|party|event|birthday|wedding|picnic|bbq|barbecue|potluck|date\\b|invite|host|gift|outing|accessib|wheelchair"
        + "|stairs)|吃|喝|饭|菜|餐|食|厨|外卖|零食|蛋糕|酒|咖啡|茶|海鲜|虾|蟹|坚果|花生|牛奶|药|医|病|健康|过敏|疼|痛|体检|运动|健身|旅|游|机票"
        + "|酒店|出差|出行|航班|计划|打算|周末|明天|下周|聚会|派对|生日|婚礼|活动|安排|轮椅");

    private final Set<String> categories;

    /**
     * @param categories names of the categories whose facts are safety facts: built-in ones as spelled (CONSTRAINT),
     *     a tenant's own ({@code customCategory}) in lower case (medications)
     */
    public SafetyFacts(final Set<String> categories) {
        this.categories = Set.copyOf(categories);
    }

    /** @return the names of the safety categories */
    public Set<String> categories() {
        return categories;
    }

    /**
     * @param memory a memory
     * @return true when it is a safety fact (a fact in a safety category, or in a safety slot)
     */
    public boolean isSafety(final Memory memory) {
        final String key = memory.getKey();
        if (key == null) {
            return false;
        }
        if (memory.getCategory() != null && categories.contains(memory.getCategory().name())
            || memory.getCustomCategory() != null && categories.contains(memory.getCustomCategory().toLowerCase(Locale.ROOT))) {
            return true;
        }
        final String k = key.toLowerCase(Locale.ROOT);
        final int colon = k.indexOf(':');
        return SLOTS.contains(colon < 0 ? k : k.substring(0, colon));
    }

    /**
     * @param message a user's message (any language)
     * @return true when it is about food or drink, health, travel or plans
     */
    public static boolean concerns(final String message) {
        return message != null && TOPICS.matcher(message).find();
    }

    /**
     * @param memories a user's memories (any status)
     * @return the ACTIVE safety facts among them, most important first (then oldest, then by id: deterministic)
     */
    public List<Memory> pinned(final Collection<Memory> memories) {
        return memories.stream().filter(m -> m.getStatus() == MemoryStatus.ACTIVE && isSafety(m))
            .sorted(Comparator.comparingDouble(Memory::getImportance).reversed()
                .thenComparing(Memory::getCreatedAt).thenComparing(Memory::getMemoryId))
            .toList();
    }
}
