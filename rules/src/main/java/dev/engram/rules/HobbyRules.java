package dev.engram.rules;

import static dev.engram.rules.FactPatterns.ADVS;
import static dev.engram.rules.FactPatterns.LIST;
import static dev.engram.rules.FactPatterns.items;
import static dev.engram.rules.FactRules.EXPLICIT;
import static dev.engram.rules.FactRules.IMPORTANCE_LIKES;
import static dev.engram.rules.FactRules.rule;
import static dev.engram.rules.FactRules.slug;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.rules.FactRules.Fact;
import dev.engram.rules.FactRules.Rule;
import dev.engram.text.TurnHeuristics;

/**
 * What the user does in their free time: {@code hobby:<activity>} = the activity (PREFERENCE facts), one key per
 * activity so "What activities does she do?" finds every one. Stated in the present, as a habit: "I play chess",
 * "I play the guitar", "I'm learning to play the saxophone", "I do yoga" (a known practice), "I go hiking", "I knit",
 * "I swim three times a week" (a pastime verb, as its gerund: knitting, swimming), "My hobby is woodworking",
 * "Gardening is my hobby", "I'm into bouldering", "I collect vinyl records". What the user did once ("I played chess
 * yesterday") is an episode, not a hobby; a pastime verb with an object that makes it work ("I run a company", "I
 * draw the line") is no hobby.
 */
final class HobbyRules {

    /** Pastime verbs and their activity. */
    private static final Map<String, String> GERUNDS = Map.ofEntries(Map.entry("knit", "knitting"),
        Map.entry("garden", "gardening"), Map.entry("paint", "painting"), Map.entry("bake", "baking"),
        Map.entry("cook", "cooking"), Map.entry("swim", "swimming"), Map.entry("run", "running"),
        Map.entry("hike", "hiking"), Map.entry("surf", "surfing"), Map.entry("ski", "skiing"),
        Map.entry("dance", "dancing"), Map.entry("sing", "singing"), Map.entry("draw", "drawing"),
        Map.entry("fish", "fishing"), Map.entry("sew", "sewing"), Map.entry("climb", "climbing"),
        Map.entry("skate", "skating"), Map.entry("cycle", "cycling"), Map.entry("row", "rowing"),
        Map.entry("sail", "sailing"), Map.entry("crochet", "crocheting"), Map.entry("quilt", "quilting"),
        Map.entry("sculpt", "sculpting"), Map.entry("meditate", "meditating"), Map.entry("journal", "journaling"),
        Map.entry("golf", "golfing"), Map.entry("jog", "jogging"), Map.entry("kayak", "kayaking"),
        Map.entry("volunteer", "volunteering"), Map.entry("camp", "camping"), Map.entry("skateboard", "skateboarding"),
        Map.entry("snowboard", "snowboarding"), Map.entry("bike", "biking"));

    private static final String VERBS = "(knit|garden|paint|bake|cook|swim|run|hike|surf|ski|dance|sing|draw|fish|sew"
        + "|climb|skate|cycle|row|sail|crochet|quilt|sculpt|meditate|journal|golf|jog|kayak|volunteer|camp|skateboard"
        + "|snowboard|bike)";

    /** Practices one "does" ("I do yoga"); "I do research" is work, not a hobby. */
    private static final String PRACTICES = "(yoga|pilates|pottery|karate|judo|taekwondo|crossfit|ballet|tai\\s+chi"
        + "|martial\\s+arts|aikido|kickboxing|boxing|archery|fencing|gymnastics|parkour|triathlons?|marathons|crosswords"
        + "|jigsaw\\s+puzzles|puzzles|sudoku|woodworking|embroidery|calligraphy|origami|photography|improv|meditation"
        + "|zumba|aerobics|weightlifting|rock\\s+climbing|bouldering|kung\\s+fu|capoeira|muay\\s+thai|salsa|tango)";

    private static final String NOT_A_PASTIME_OBJECT = "(?!\\s+(?:a|an|the|my|our|his|her|their|this|that|it|them|out|into"
        + "|over|up|down|away|off|late|low|short|across|through|to|from|errands|things|for\\s+(?:a|the|office))\\b)";

    /** Hobbies in English. */
    static final List<Rule> RULES = List.of(
        rule("hobby-play", "\\b(?:i|we)(?:'m|\\s+am|'re|\\s+are|'ve|\\s+have)?\\s+" + ADVS + "(?:play|learning\\s+(?:to\\s+play|the)"
            + "|learned\\s+to\\s+play|been\\s+playing)\\s+(?:the\\s+)?(?!(?:a|an|my|his|her|our|their|your|this|that"
            + "|some|along|around|up|down|out|with|it|them|against|for|in|on|at|games?\\s+with)\\b)" + LIST,
            (m, s) -> listed(m.group(1), 2, UnaryOperator.identity())),
        rule("hobby-do", "\\b(?:i|we)\\s+" + ADVS + "(?:do|practi[cs]e|'ve\\s+been\\s+doing|have\\s+been\\s+doing)\\s+"
            + PRACTICES + "\\b", (m, s) -> hobby(m.group(1))),
        rule("hobby-go", "\\b(?:i|we)\\s+" + ADVS + "go\\s+(?!(?:going|nothing|something|anything|everything|king|bring|"
            + "sing|wing|ring|thing|string|spring|morning|evening|during|being|having|doing)\\b)(\\p{L}+ing)\\b",
            (m, s) -> hobby(m.group(1))),
        rule("hobby-verb", "\\b(?:i|we)\\s+" + ADVS + VERBS + "\\b" + NOT_A_PASTIME_OBJECT,
            (m, s) -> hobby(GERUNDS.get(m.group(1).toLowerCase(Locale.ROOT)))),
        rule("hobby-is", "\\bmy\\s+(?:main\\s+|favou?rite\\s+|big\\s+|new\\s+)?(?:hobby|hobbies|pastimes?)\\s+(?:is|are|include)"
            + "\\s+" + LIST, (m, s) -> listed(m.group(1), 3, UnaryOperator.identity())),
        rule("hobby-is-mine", "(?:^|[,;]\\s*)(\\p{L}+(?:\\s+\\p{L}+)?)\\s+is\\s+(?:a\\s+|one\\s+of\\s+)?my\\s+(?:main\\s+|favou?rite\\s+"
            + "|big\\s+|new\\s+)?(?:hobby|hobbies|pastime|passion)\\b", (m, s) -> listed(m.group(1), 2, UnaryOperator.identity())),
        rule("hobby-into", "\\bi(?:'m|\\s+am)\\s+" + ADVS + "(?:(?:really|very|big|super)\\s+)?into\\s+" + LIST,
            (m, s) -> listed(m.group(1), 2, UnaryOperator.identity())),
        rule("hobby-collect", "\\b(?:i|we)\\s+" + ADVS + "collect\\s+" + LIST,
            (m, s) -> listed(m.group(1), 3, item -> "collecting " + item)));

    private HobbyRules() {
    }

    /**
     * @param raw the activity as said ("chess", "video games", 爬山)
     * @return {@code hobby:<activity>} = the activity, lower case unless a name in capitals; empty for no activity
     */
    static List<Fact> hobby(final String raw) {
        if (raw == null || raw.isBlank()) {
            return List.of();
        }
        final String said = raw.strip().replaceAll("\\s+", " ");
        // a name in capitals keeps them (CS:GO, RPGs); a common noun said at a sentence start does not (Gardening)
        final String activity = said.codePoints().skip(1).anyMatch(Character::isUpperCase) ? said
            : said.toLowerCase(Locale.ROOT);
        final boolean chinese = activity.codePoints().anyMatch(TurnHeuristics::unspacedScript);
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PREFERENCE, "hobby:" + slug(activity), activity,
            "Hobby", (chinese ? "爱好是" : "Hobby: ") + activity, false, IMPORTANCE_LIKES, EXPLICIT, MemorySource.EXPLICIT));
    }

    private static List<Fact> listed(final String list, final int maxWords, final UnaryOperator<String> shape) {
        final List<Fact> out = new ArrayList<>();
        for (final String item : items(list, maxWords)) {
            // "I've been playing professionally": a manner, not a game
            if (!item.matches("(?i)\\p{L}+ly")) {
                out.addAll(hobby(shape.apply(item)));
            }
        }
        return out;
    }
}
