package dev.engram.bench;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The fields LoCoMo does not record for an observation, derived from its text by fixed rules, for
 * {@link LoCoMoReplay}'s extraction answers (the rules are listed in its class comment): an evident key
 * and value, the memory type and category, importance, confidence and source.
 */
final class ReplayFacts {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PLACE = "([A-Z][\\w'-]*(?: (?:[A-Z][\\w'-]*|of|de|la))*)";
    private static final List<KeyRule> KEY_RULES = List.of(
        new KeyRule("city", "PERSONAL", Pattern.compile("\\b(?:moved|relocated|moving) (?:back )?to " + PLACE)),
        new KeyRule("city", "PERSONAL", Pattern.compile("\\blives in " + PLACE)),
        new KeyRule("employer", "ROLE", Pattern.compile("\\b(?:works|working|a job) (?:at|for) " + PLACE)),
        new KeyRule("role", "ROLE", Pattern.compile("\\b(?:works as|job as|working as) an? ([a-z][a-z ]{2,40}?)(?=[.,;]| at | for |$)")),
        new KeyRule("diet", "PERSONAL", Pattern.compile("\\b(?:is|became|went|is now) (vegan|vegetarian|pescatarian)\\b")));
    private static final Pattern EVENT = Pattern.compile("\\b(attended|went|visited|took|got|started|finished|lost|won|"
        + "made|bought|joined|met|ran|participated|organized|hosted|adopted|moved|travel(l)?ed|received|celebrated|"
        + "painted|wrote|signed|recently|yesterday|last (?:week|weekend|month|year|night|friday|saturday|sunday)|"
        + "\\w+ ago|this (?:week|weekend|month|morning))\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern PREFERENCE = Pattern.compile("\\b(likes?|loves?|enjoys?|prefers?|favou?rite|fan of|"
        + "passionate about)\\b", Pattern.CASE_INSENSITIVE);

    /** A rule for an evident fact key. */
    private record KeyRule(String key, String category, Pattern pattern) {
    }

    private ReplayFacts() {
    }

    /** @return one memory in the extractor's answer schema, the derived fields as the class comment says */
    static ObjectNode fact(final String text, final List<Integer> evidence) {
        final ObjectNode item = JSON.createObjectNode();
        final String[] keyed = evidentKey(text);
        if (keyed != null) {
            item.put("type", "SEMANTIC").put("category", keyed[2]).put("key", keyed[0]).put("value", keyed[1])
                .put("displayName", keyed[0].replace('_', ' '));
        } else if (EVENT.matcher(text).find()) {
            item.put("type", "EPISODIC").putNull("category").putNull("key").putNull("value").putNull("displayName");
        } else {
            item.put("type", "SEMANTIC").put("category", PREFERENCE.matcher(text).find() ? "PREFERENCE" : "PERSONAL")
                .putNull("key").putNull("value").putNull("displayName");
        }
        item.put("content", text);
        item.put("importance", keyed != null ? 0.8 : "EPISODIC".equals(item.path("type").asText()) ? 0.6 : 0.7);
        item.put("confidence", 0.9).put("source", "EXPLICIT").put("negated", false);
        final ArrayNode ev = item.putArray("evidence");
        evidence.forEach(ev::add);
        return item;
    }

    /** @return {key, value, category} of the first evident key rule that matches, or null */
    static String[] evidentKey(final String text) {
        for (final KeyRule rule : KEY_RULES) {
            final Matcher m = rule.pattern().matcher(text);
            if (m.find()) {
                return new String[] {rule.key(), m.group(1).strip(), rule.category()};
            }
        }
        return null;
    }
}
