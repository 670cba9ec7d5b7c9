package dev.engram.consolidation;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A small English food vocabulary: which liked foods a diet or a food the user gave up rules out, so "I'm vegetarian
 * now" takes back "Likes steak" ({@link DietChanges}). Fixed word lists of common dishes and ingredients, by group
 * (meat: red meat and poultry; seafood: fish and shellfish; dairy; eggs; honey), matched in the singular on whole words
 * of a liked subject ("fried chicken", "pork ribs", "smoked salmon", "ice cream"); a subject naming a plant-based
 * stand-in ("veggie burger", "oat milk", "peanut butter", "vegan cheese") is never ruled out. Unknown words rule out
 * nothing: the vocabulary errs on keeping a like. Stateless; thread-safe.
 *
 * <p>What rules out what:
 * <ul>
 *   <li>a diet ({@code diet} = vegetarian: meat, seafood; vegan or plant-based: meat, seafood, dairy, eggs, honey;
 *       pescatarian: meat; dairy-free: dairy);</li>
 *   <li>a food avoided ({@code avoids:<food>}): a group by its name (meat, red meat, poultry, pork, beef, fish, seafood,
 *       shellfish, dairy, milk, lactose, eggs) or the food itself ("avoids:chocolate" rules out "Likes chocolate").</li>
 * </ul>
 */
public final class FoodGroups {

    private static final Set<String> BEEF = Set.of("beef", "steak", "burger", "hamburger", "cheeseburger", "brisket",
        "roast beef", "beef jerky", "meatloaf", "veal", "filet mignon", "ribeye", "sirloin", "t-bone");
    private static final Set<String> PORK = Set.of("pork", "bacon", "ham", "pulled pork", "pork chop", "prosciutto",
        "salami", "chorizo", "pepperoni", "pork belly", "spare rib");
    private static final Set<String> OTHER_RED_MEAT = Set.of("lamb", "mutton", "venison", "rib", "sausage", "hot dog",
        "meatball", "jerky", "lamb chop", "goat", "bratwurst", "bolognese", "carnitas");
    private static final Set<String> POULTRY = Set.of("chicken", "turkey", "duck", "goose", "fried chicken",
        "chicken wing", "buffalo wing", "chicken nugget", "rotisserie chicken");
    private static final Set<String> FISH = Set.of("fish", "salmon", "tuna", "cod", "trout", "halibut", "mackerel",
        "sardine", "anchovy", "sashimi", "fish and chip", "smoked salmon", "tilapia", "sea bass", "haddock",
        "herring", "caviar", "fish taco");
    private static final Set<String> SHELLFISH = Set.of("shellfish", "shrimp", "prawn", "lobster", "crab", "oyster",
        "mussel", "clam", "scallop", "crayfish", "crawfish", "calamari", "squid", "octopus");
    private static final Set<String> DAIRY = Set.of("dairy", "milk", "cheese", "butter", "yogurt", "yoghurt",
        "ice cream", "cream", "cheesecake", "milkshake", "mozzarella", "cheddar", "brie", "parmesan", "feta", "gelato",
        "custard", "mac and cheese", "camembert", "gouda");
    private static final Set<String> EGGS = Set.of("egg", "omelette", "omelet", "scrambled egg", "quiche", "frittata");
    private static final Set<String> HONEY = Set.of("honey");

    private static final Set<String> RED_MEAT = union(BEEF, PORK, OTHER_RED_MEAT, Set.of("red meat"));
    private static final Set<String> MEAT = union(RED_MEAT, POULTRY, Set.of("meat", "white meat"));
    private static final Set<String> SEAFOOD = union(FISH, SHELLFISH, Set.of("seafood"));

    /** The groups a diet rules out, by the diet's canonical value. */
    private static final Map<String, Set<String>> DIETS = Map.of(
        "vegetarian", union(MEAT, SEAFOOD),
        "vegan", union(MEAT, SEAFOOD, DAIRY, EGGS, HONEY),
        "plant-based", union(MEAT, SEAFOOD, DAIRY, EGGS, HONEY),
        "pescatarian", MEAT,
        "pescetarian", MEAT,
        "dairy-free", DAIRY);

    /** The groups a food avoided rules out, by the food's name. */
    private static final Map<String, Set<String>> AVOIDED = Map.ofEntries(Map.entry("meat", MEAT),
        Map.entry("red meat", RED_MEAT), Map.entry("poultry", POULTRY), Map.entry("pork", PORK), Map.entry("beef", BEEF),
        Map.entry("fish", SEAFOOD), Map.entry("seafood", SEAFOOD), Map.entry("shellfish", SHELLFISH),
        Map.entry("dairy", DAIRY), Map.entry("milk", DAIRY), Map.entry("lactose", DAIRY), Map.entry("egg", EGGS),
        Map.entry("animal product", union(MEAT, SEAFOOD, DAIRY, EGGS, HONEY)));

    /** Words that make a dish plant-based whatever else it names ("veggie burger", "oat milk", "peanut butter"). */
    private static final Set<String> STAND_INS = Set.of("vegan", "vegetarian", "veggie", "plant", "plant-based",
        "tofu", "tempeh", "seitan", "impossible", "beyond", "mock", "faux", "fake", "imitation", "peanut", "almond",
        "oat", "soy", "coconut", "cocoa", "cashew", "shea", "dairy-free", "meatless");

    private FoodGroups() {
    }

    /**
     * The foods a fact rules out.
     *
     * @param key a fact's key ({@code diet}, {@code avoids:<food>})
     * @param value its value (the diet, the food)
     * @return the foods it rules out, in the singular and lower case; empty when it is no diet or food avoided, or
     *     names none of the vocabulary's diets
     */
    public static Set<String> ruledOutBy(final String key, final String value) {
        if (key == null || value == null) {
            return Set.of();
        }
        final String v = singular(value.strip().toLowerCase(Locale.ROOT).replaceAll("\\s+", " "));
        if (key.equals("diet")) {
            return DIETS.getOrDefault(v, Set.of());
        }
        if (key.startsWith("avoids:")) {
            return AVOIDED.getOrDefault(v, Set.of(v));
        }
        return Set.of();
    }

    /**
     * @param subject a liked thing in words ("fried chicken", "steaks", "oat milk lattes")
     * @param ruledOut foods from {@link #ruledOutBy}
     * @return whether the subject names one of them as a whole word or words (in the singular), and no plant-based
     *     stand-in
     */
    public static boolean rulesOut(final String subject, final Set<String> ruledOut) {
        if (subject == null || ruledOut.isEmpty()) {
            return false;
        }
        final List<String> words = List.of(subject.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}' -]+", " ")
            .strip().split("[\\s_]+")).stream().map(FoodGroups::singular).toList();
        if (words.stream().anyMatch(STAND_INS::contains)) {
            return false;
        }
        for (int n = 1; n <= 4; n++) {
            for (int i = 0; i + n <= words.size(); i++) {
                if (ruledOut.contains(String.join(" ", words.subList(i, i + n)))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The last word in the singular ("steaks" → "steak", "anchovies" → "anchovy"); short words and "-ss" stay. */
    private static String singular(final String words) {
        final int space = words.lastIndexOf(' ');
        final String last = words.substring(space + 1);
        if (last.length() <= 3 || last.endsWith("ss") || last.endsWith("us") || !last.endsWith("s")) {
            return words;
        }
        final String one = last.endsWith("ies") ? last.substring(0, last.length() - 3) + "y"
            : last.endsWith("ches") || last.endsWith("shes") ? last.substring(0, last.length() - 2)
            : last.substring(0, last.length() - 1);
        return words.substring(0, space + 1) + one;
    }

    @SafeVarargs
    private static Set<String> union(final Set<String>... sets) {
        final Set<String> out = new HashSet<>();
        for (final Set<String> s : sets) {
            out.addAll(s);
        }
        return Set.copyOf(out);
    }
}
