package dev.engram.consolidation;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import dev.engram.avro.Memory;
import dev.engram.core.MemoryIds;
import dev.engram.port.Embedder;
import dev.engram.text.MemoryText;

/**
 * Topic lists: per user and topic, the values the user's statements name ("Pets: cat Bailey, cat Luna, dog Max.",
 * "Activities and hobbies: pottery, camping, painting, swimming."), one memory citing every statement that names a
 * listed value, so a list question whose answer is spread over many conversations ("What pets does Nate have?",
 * "What activities does Melanie do?") finds its evidence in one short hit: a few tokens per value where the
 * statements themselves cost a sentence each. Zep keeps such per-entity facts as summaries, Hindsight as entity
 * observations; here the values are read from the statements by fixed English vocabularies (no model call), so a list
 * is a function of the statements like any observation ({@link Observations}: written, rewritten and removed by the
 * same pass, replay-deterministic, never a dedup, merge, TTL or staleness target).
 *
 * <p><b>Which statements.</b> Those an observation may hold ({@link Observations#statementOf}: ACTIVE, not a
 * summary, exchange or observation; of a memory with {@code validTo} only its clauses still current), so a value the
 * user took back (superseded, corrected, deleted, negated: an {@code Outdated} mark sets {@code validTo} and names the
 * old value) or an assistant's echo (never a statement: {@code Echoes}) is never listed. A sentence with a negation or aversion cue ({@link Facts#isNegative}: "I don't
 * swim", "I hate running") names no value.
 *
 * <p><b>Values</b>, per sentence of the statement's own words ({@link MemoryText#ownWords}; an image caption the user
 * shared counts): a fact's key names its topic ({@code hobby:…}, {@code pet:…}, {@code visited:…}, {@code family:…});
 * otherwise each topic's vocabulary: activities (hobbies, sports, crafts, as verb or noun: "camped" → camping), pets
 * (a species after a possessive, an adoption verb or before "named"; with the name when said, also as an appositive:
 * "Toby, my puppy", or a name introduced with a photo of the animal: "this is Max! [image: a photo of a dog …]"),
 * musical instruments
 * (with "play", "learn", "lessons" or a possessive), books (a quoted title in a sentence about books or reading),
 * places visited (a capitalised place after "visited", "trip to", "went to", "moved from", "was in", …, in a clause
 * telling the user's own stay: not a condition, wish, plan or future trip, "If I moved to Paris", "I would love to
 * visit Tokyo someday", nor someone else's, "my sister visited Oslo"; a move to a place is the city fact, no visit),
 * family (a relative
 * after "my" or "our", with the name when said, but not the first of an enumeration: "my girlfriend, Toby and I" names
 * no girlfriend Toby) and events (a determiner, up to two modifiers and an event noun
 * in a sentence with an attendance verb: "went to a pride parade"); read by {@link TopicValues}.
 *
 * <p><b>The list</b> of a topic: its distinct values (case-insensitive) in order of first mention (statements by
 * {@code createdAt}, then id), up to {@value #MAX_CHARS} characters of content; written when it holds at least
 * {@value #MIN_VALUES} values. Its statements are those naming a listed value, and only those: the memory's sources are
 * their first sources, so the turns it cites are exactly the turns whose value it states. Content: the topic's heading,
 * a colon and the values ({@code "Pets: cat Bailey, dog."}); no event dates (the list states none). Id: a name-based
 * UUID of tenant, user, embedding model and topic, so a list keeps its id while its values change.
 *
 * <p>Stateless, thread-safe; English vocabularies (other scripts give values only through fact keys).
 */
public final class TopicLists {

    /** Characters of a list's content at most (about {@value #MAX_CHARS} / 4 tokens): later values are left out. */
    public static final int MAX_CHARS = 480;
    /** Distinct values a list needs to be written. */
    public static final int MIN_VALUES = 2;

    /** A topic: the heading its list starts with. */
    public enum Topic {
        /** Activities, hobbies, sports and crafts. */
        ACTIVITIES("Activities and hobbies"),
        /** Pets, with their names when said. */
        PETS("Pets"),
        /** Musical instruments the user plays or learns. */
        INSTRUMENTS("Musical instruments"),
        /** Books by title. */
        BOOKS("Books"),
        /** Places the user says they were in: visited, travelled to, stayed in, moved from. */
        PLACES("Places visited"),
        /** Relatives, with their names when said. */
        FAMILY("Family"),
        /** Events the user went to or took part in. */
        EVENTS("Events attended");

        private final String heading;

        Topic(final String heading) {
            this.heading = heading;
        }

        /** @return the heading of its list ("Pets") */
        public String heading() {
            return heading;
        }
    }

    /**
     * One topic's list as a user's statements give it.
     *
     * @param topic the topic
     * @param content the list's text: heading, colon, values
     * @param values the listed values, in order
     * @param statements the statements naming a listed value, in order
     */
    public record TopicList(Topic topic, String content, List<String> values, List<Memory> statements) {
    }

    private TopicLists() {
    }

    /**
     * The lists one embedding model's statements give (see the class comment).
     *
     * @param statements statements of ONE user and ONE embedding model, in any order (read by {@code createdAt}, then
     *     id)
     * @return the lists with at least {@value #MIN_VALUES} values, in {@link Topic} order
     */
    public static List<TopicList> lists(final Collection<Memory> statements) {
        return lists(statements, TopicValues::of);
    }

    /**
     * {@link #lists(Collection)} with each statement's values read by {@code valuesOf}.
     *
     * @param statements as {@link #lists(Collection)}
     * @param valuesOf {@link #values} or a function giving the same values (a memo of their content's)
     * @return as {@link #lists(Collection)}
     */
    static List<TopicList> lists(final Collection<Memory> statements,
                                 final Function<Memory, Map<Topic, List<String>>> valuesOf) {
        final List<Memory> ordered = new ArrayList<>(statements);
        ordered.sort(Comparator.comparing(Memory::getCreatedAt).thenComparing(Memory::getMemoryId));
        final List<TopicList> out = new ArrayList<>();
        final List<Map<Topic, List<String>>> named = ordered.stream().map(valuesOf).toList();
        for (final Topic topic : Topic.values()) {
            final Map<String, String> listed = new LinkedHashMap<>();
            final StringBuilder content = new StringBuilder(topic.heading()).append(':');
            final List<Memory> members = new ArrayList<>();
            final Set<String> kindsNamed = namedKinds(named.stream()
                .flatMap(values -> values.getOrDefault(topic, List.of()).stream()).toList());
            for (int i = 0; i < ordered.size(); i++) {
                boolean member = false;
                for (final String value : named.get(i).getOrDefault(topic, List.of())) {
                    final String key = value.toLowerCase(Locale.ROOT);
                    if (listed.containsKey(key) || kindsNamed.contains(key)) {
                        member = true;
                    } else if (content.length() + value.length() + 3 <= MAX_CHARS) {
                        content.append(listed.isEmpty() ? " " : ", ").append(value);
                        listed.put(key, value);
                        member = true;
                    }
                }
                if (member) {
                    members.add(ordered.get(i));
                }
            }
            if (listed.size() >= MIN_VALUES) {
                out.add(new TopicList(topic, content.append('.').toString(), List.copyOf(listed.values()),
                    List.copyOf(members)));
            }
        }
        return out;
    }

    /**
     * The bare kinds a topic's values also name with a name: "dog" beside "dog Rex" (a pet said once as "my dog" and
     * once by name is one pet), so the list says "dog Rex" alone, not "dog, dog Rex" (a fresh user's trial read
     * "Pets: dog, dog Rex." for one dog). A statement naming only the kind still belongs to the list.
     *
     * @param values every value of one topic, any case, repeats allowed
     * @return the lower-case values that another value repeats followed by a capitalised name
     */
    static Set<String> namedKinds(final List<String> values) {
        final Set<String> kinds = new HashSet<>();
        for (final String value : values) {
            for (int space = value.indexOf(' '); space > 0 && space + 1 < value.length();
                 space = value.indexOf(' ', space + 1)) {
                if (Character.isUpperCase(value.charAt(space + 1))) {
                    kinds.add(value.substring(0, space).toLowerCase(Locale.ROOT));
                    break;
                }
            }
        }
        final Set<String> out = new HashSet<>();
        for (final String value : values) {
            final String key = value.toLowerCase(Locale.ROOT);
            if (kinds.contains(key)) {
                out.add(key);
            }
        }
        return out;
    }

    /**
     * @param first a statement of the user (its tenant and user name the list's owner)
     * @param model the embedding model of the list's statements
     * @param topic the topic
     * @return the id of the user's list of that topic and model
     */
    public static String idOf(final Memory first, final String model, final Topic topic) {
        return MemoryIds.uuid("topic-list", first.getTenantId(), first.getUserId(), String.valueOf(model), topic.name());
    }

    /**
     * @param statement a statement
     * @return the values it names, per topic, each once (case-insensitive) ({@link TopicValues})
     */
    public static Map<Topic, List<String>> values(final Memory statement) {
        return TopicValues.of(statement);
    }

    /**
     * Whether a topic list of statements embedded by {@code model} may say {@code content}: its content goes to the
     * same side of the embedder's script routing as they do (mostly-Han text to the Han model, the rest to the main
     * model). Which main model is active does not enter, so the answer does not depend on when the consolidator follows
     * a switch of {@code bin/engram reembed}: a user regrouped between the re-embedded statements and the switch keeps
     * the new model's lists, and a replay, which reads the switch first, ends with the same ones.
     *
     * @param embedder the consolidator's embedder (asked only which model a text goes to)
     * @param model the statements' embedding model
     * @param content the list's text
     * @return false only for a list whose content the routing sends to the other side (Han values under an English
     *     heading among a Han model's statements, or the reverse)
     */
    static boolean sameScriptSide(final Embedder embedder, final String model, final String content) {
        final Embedder now = embedder.current();
        final List<String> models = now.models();
        if (models.size() < 2) {
            return true; // one model for every script (no Han routing, or a switch to the Han model itself)
        }
        final String han = models.get(models.size() - 1);
        return now.modelFor(content).equals(han) == model.equals(han);
    }
}
