package dev.engram.consolidation;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.avro.Memory;
import dev.engram.consolidation.TopicLists.Topic;
import dev.engram.text.CaselessPattern;
import dev.engram.text.MemoryText;
import dev.engram.text.TurnHeuristics;

/**
 * The values one statement names, per {@link Topic}: the fixed English vocabularies and patterns that
 * {@link TopicLists} builds its lists from (no model call, so a list is a function of the statements).
 *
 * <p>Per sentence of the statement's own words ({@link MemoryText#ownWords}; an image caption the user shared counts;
 * a sentence with a negation or aversion cue, {@link Facts#isNegative}, names no value): a fact's key names its topic
 * ({@code hobby:…}, {@code pet:…}, {@code visited:…}, {@code family:…}); otherwise each topic's vocabulary (see
 * {@link TopicLists} for what each topic reads). Values are trimmed, inner whitespace collapsed, each once per topic
 * (case-insensitive), in order of appearance.
 *
 * <p>Stateless, thread-safe (the patterns are compiled once).
 */
final class TopicValues {

    /** A capitalised name (case-sensitive inside a case-insensitive pattern). */
    private static final String NAME = "(?-i:[A-Z][\\p{L}'-]+)";
    private static final String NAMES = NAME + "(?:\\s+and\\s+" + NAME + ")?";
    private static final String PLACE = "(?-i:[A-Z][\\p{L}'.-]+(?:\\s+(?:of\\s+|de\\s+|la\\s+)?[A-Z][\\p{L}'.-]+){0,2})";
    private static final Set<String> NOT_NAMES = Set.of("I", "I'm", "I've", "I'll", "I'd", "It", "It's", "The", "We",
        "He", "She", "They", "This", "That", "My", "Our", "And", "But", "So", "Yes", "No", "Thanks", "Monday", "Tuesday",
        "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December", "Christmas", "Easter", "Halloween", "Thanksgiving");

    /** Activities: canonical name → the forms that name it (verbs in every tense, the noun). */
    private static final Map<String, CaselessPattern> ACTIVITIES = activities(
        "pottery=pottery|ceramics", "camping=camp(?:ing|ed)|campfires?", "hiking=hik(?:e|es|ed|ing)",
        "swimming=swim(?:s|ming)?|swam", "running=running|jog(?:s|ged|ging)?|marathons?", "painting=paint(?:s|ed|ing|ings)?",
        "drawing=drawing|drew|sketch(?:es|ed|ing)?", "reading=reading|reads? (?:a |the |some )?(?:book|novel)s?",
        "writing=writing|journal(?:s|ing)", "poetry=poetry|poems?", "cooking=cook(?:s|ed|ing)", "baking=bak(?:e|es|ed|ing)",
        "gardening=gardening|garden(?:ed|s)", "dancing=danc(?:e|es|ed|ing)", "singing=sing(?:s|ing)?|sang",
        "photography=photography|tak(?:e|es|ing) (?:photos|pictures)", "yoga=yoga", "meditation=meditat(?:e|es|ed|ing|ion)",
        "cycling=cycl(?:e|es|ed|ing)|bik(?:e|es|ed|ing)", "fishing=fishing", "kayaking=kayak(?:s|ed|ing)?",
        "surfing=surf(?:s|ed|ing)", "skiing=ski(?:s|ed|ing)?", "snowboarding=snowboard(?:s|ed|ing)?",
        "skateboarding=skateboard(?:s|ed|ing)?", "climbing=climb(?:s|ed|ing)|bouldering",
        "knitting=knit(?:s|ted|ting)?", "sewing=sew(?:s|ed|ing)", "crocheting=crochet(?:s|ed|ing)?",
        "volunteering=volunteer(?:s|ed|ing)?", "video games=video games?|gaming", "board games=board games?",
        "traveling=travel(?:s|ed|led|ing|ling)?|road ?trips?", "working out=gym|work(?:s|ed|ing)? out|workouts?",
        "horseback riding=horseback riding|horse riding|riding horses", "woodworking=woodworking",
        "sculpting=sculpt(?:s|ed|ing|ures?)?", "calligraphy=calligraphy", "stargazing=stargazing",
        "birdwatching=bird ?watching", "chess=chess", "soccer=soccer", "football=football", "basketball=basketball",
        "baseball=baseball", "tennis=tennis", "volleyball=volleyball", "golf=golf(?:ing)?", "hockey=hockey",
        "bowling=bowling", "boxing=boxing", "martial arts=martial arts|karate|judo|taekwondo|kung fu",
        "pilates=pilates", "scrapbooking=scrapbooking", "dj-ing=dj(?:ing)?");

    private static final String SPECIES = "(cats?|kittens?|kitty|dogs?|pupp(?:y|ies)|pups?|turtles?|tortoises?|hamsters?"
        + "|guinea\\s+pigs?|rabbits?|bunn(?:y|ies)|parrots?|budgies?|birds?|goldfish|snakes?|lizards?|geckos?|horses?"
        + "|ponies|pony|ferrets?|chinchillas?|hedgehogs?)";
    /** A species word that names something else here ("my horse painting"). */
    private static final String NOT_A_PET = "(?!\\s+(?:painting|drawing|picture|photo|figurine|toy|food|shelter|show"
        + "|sitter|walker|park|bed|treats?|lover|person|people)\\b)";
    private static final CaselessPattern PET_OWNED = CaselessPattern.compile("\\b(?:my|our|his|her|their)\\s+(?:(?:new|little|two|three"
        + "|old|sweet|other|rescue|pet)\\s+){0,2}" + SPECIES + "\\b" + NOT_A_PET
        + "(?:,?\\s+(?:named|called)\\s+(" + NAMES + ")|,?\\s+(" + NAMES + ")\\b)?");
    private static final CaselessPattern PET_GOT = CaselessPattern.compile("\\b(?:got|adopted|rescued|have|has|had|bought|getting"
        + "|adopting|own|owns)\\s+(?:(?:a|an|another|two|three|some|new|little|pet)\\s+){0,3}" + SPECIES + "\\b" + NOT_A_PET
        + "(?:,?\\s+(?:named|called)\\s+(" + NAMES + ")|,\\s+(" + NAMES + ")\\b)?");
    private static final CaselessPattern PET_NAMED = CaselessPattern.compile("\\b" + SPECIES + "\\s+(?:named|called)\\s+(" + NAMES + ")");
    /** A name and an appositive pet ("meet Toby, my puppy"): species first, then the name, as the other patterns give. */
    private static final CaselessPattern PET_APPOSITIVE = CaselessPattern.compile("\\b(" + NAME + "),\\s+(?:my|our)\\s+(?:(?:new|little"
        + "|sweet|rescue|pet)\\s+){0,2}" + SPECIES + "\\b" + NOT_A_PET);
    /** A shared photo whose subject is an animal ("[image: a photo of a dog laying on a couch]"): its species. */
    private static final CaselessPattern CAPTION_PET = CaselessPattern.compile("\\[image:\\s*(?:a\\s+|an\\s+)?(?:photo(?:graph|graphy)?"
        + "|picture|close\\s*up)\\s+of\\s+(?:a|an|the|my|two|three)\\s+(?:[\\p{L}-]+\\s+){0,2}?" + SPECIES + "\\b" + NOT_A_PET);
    /** A name the user introduces ("this is Max!", "meet Toby", "here's Luna"), the photo's subject. */
    private static final CaselessPattern INTRODUCED = CaselessPattern.compile("\\b(?:this\\s+is|meet|say\\s+hi\\s+to|introducing|here's|here\\s+is)"
        + "\\s+(" + NAME + ")\\b");
    /** What follows the first name of an enumeration ("Toby and I", "Toby, and I", "Toby, Max"): not an appositive. */
    private static final CaselessPattern ENUMERATION = CaselessPattern.compile("\\s*,?\\s*(?:and|or|&)(?=\\s)|\\s*,\\s*" + NAME);

    private static final CaselessPattern INSTRUMENT = CaselessPattern.compile("\\b(violin|viola|cello|guitar|bass guitar|piano|keyboard"
        + "|clarinet|flute|saxophone|sax|trumpet|trombone|drums|ukulele|harp|banjo|harmonica|accordion|oboe|mandolin)\\b");
    private static final CaselessPattern PLAYS = CaselessPattern.compile("\\b(?:play|plays|played|playing|learn|learns|learned|learning"
        + "|practi[cs]e|practi[cs]ing|lessons?|my|our)\\b");

    private static final Pattern TITLE = Pattern.compile("[\"\u201C]([^\"\u201C\u201D]{2,60}?)[\"\u201D]");
    private static final CaselessPattern ABOUT_BOOKS = CaselessPattern.compile("\\b(?:books?|novels?|read|reads|reading|author|memoir"
        + "|series)\\b");

    private static final CaselessPattern VISITED = CaselessPattern.compile("\\b(?:visit(?:ed|ing|s)?|trips?\\s+to|travel(?:l?ed|l?ing|s)?"
        + "\\s+to|went\\s+(?:back\\s+)?to|been\\s+to|flew\\s+to|vacation(?:ed|ing)?\\s+in|holiday\\s+in|road\\s?trip\\s+to"
        + "|moved\\s+(?:here\\s+|back\\s+)?from|toured|(?:was|were|been|stayed)\\s+in)\\s+(?:the\\s+)?(" + PLACE + ")");
    /**
     * A clause that tells no trip the user made: a condition, a wish, a plan or a guess ("If I moved to Paris", "I would
     * love to visit Tokyo someday", "maybe Seoul", "I hope to visit Rome"), or a future one.
     */
    private static final CaselessPattern NOT_BEEN = CaselessPattern.compile("\\b(?:if|unless|would|wouldn't|'d(?!\\s+been)|could|might"
        + "|should|will|won't|'ll|wish(?:es|ed|ing)?|wants?|wanted|wanting|wanna|hop(?:e|es|ed|ing)|plan(?:s|ned|ning)?"
        + "|someday|some\\s+day|one\\s+day|maybe|perhaps|dream(?:s|ed|ing|t)?|going\\s+to|gonna|thinking\\s+(?:about|of)"
        + "|consider(?:s|ed|ing)?|next\\s+(?:week|month|year|summer|winter|spring|fall|autumn|time))\\b");
    /** Someone who is not the user ("my sister visited Rome", "they went to Oslo"): their trip, not the user's. */
    private static final CaselessPattern OTHERS = CaselessPattern.compile("\\b(?:he|she|they|you|his|her|their|your|my|our)\\b"
        + "|(?-i:\\b[A-Z][\\p{L}'-]+(?<!ly|Yesterday|Today|Once|Then|Also|Just|Last|Recently|Lately)\\s*$)");
    /** The user among those who went ("I", "we", "my wife and I", "me and the kids"). */
    private static final CaselessPattern USER = CaselessPattern.compile("\\b(?:I|I'm|I've|I'd|we|we've|we're|me|us)\\b");

    private static final CaselessPattern RELATIVE = CaselessPattern.compile("\\b(?:my|our)\\s+(?:(?:little|big|younger|older|oldest"
        + "|youngest|eldest|baby|twin|late|new|two|three|step)\\s+)?(husband|wife|partner|sons?|daughters?|kids|children"
        + "|child|mom|mum|mother|dad|father|brothers?|sisters?|grandma|grandmother|grandpa|grandfather|grandparents"
        + "|parents|aunt|uncle|cousins?|niece|nephew|fianc[eé]e?|boyfriend|girlfriend|twins|stepson|stepdaughter)\\b"
        + "(?:,?\\s+(?:named\\s+|called\\s+)?(" + NAME + "))?");

    private static final CaselessPattern EVENT = CaselessPattern.compile("\\b(?:a|an|the|this|that|my|our|another|some)\\s+((?:[\\p{L}+'-]+"
        + "\\s+){0,2}(?:parade|conference|workshop|seminar|concert|festival|exhibit|exhibition|fair|meetup|rally|march"
        + "|protest|fundraiser|support\\s+group|class|course|retreat|convention|competition|contest|tournament|race"
        + "|gala|ceremony|lecture|webinar|recital|performance|museum|poetry\\s+reading|book\\s+club|camp))\\b");
    private static final CaselessPattern ATTENDED = CaselessPattern.compile("\\b(?:went|go|goes|going|attend(?:s|ed|ing)?|joined|join"
        + "|took\\s+part|participat(?:ed|ing)|signed\\s+up|been\\s+to|visited|volunteer(?:ed|ing)?|hosted|organi[sz]ed"
        + "|performed|took)\\b");
    private static final Set<String> NOT_MODIFIERS = Set.of("great", "awesome", "amazing", "big", "fun", "cool", "nice",
        "new", "first", "recent", "huge", "little", "really", "super", "last", "next", "good", "wonderful", "incredible",
        "whole", "local", "same", "other", "very", "such", "best", "special");

    private TopicValues() {
    }

    /**
     * @param statement a statement
     * @return the values it names, per topic ({@link Topic} keys in order of first value), each once (case-insensitive)
     */
    static Map<Topic, List<String>> of(final Memory statement) {
        return of(statement, TopicValues::ofContent);
    }

    /**
     * {@link #of(Memory)} with the content's values read by {@code ofContent} (e.g. a memo of {@link #ofContent}: a
     * regrouping reads every statement of the user again each time one of them changes).
     *
     * @param statement a statement
     * @param ofContent {@link #ofContent} or a function giving the same values
     * @return as {@link #of(Memory)}
     */
    static Map<Topic, List<String>> of(final Memory statement, final Function<String, Map<Topic, List<String>>> ofContent) {
        final Map<Topic, Set<String>> out = new LinkedHashMap<>();
        fromKey(statement, out);
        // the content's values after the key's, each once: the same as reading both into one map in that order
        ofContent.apply(statement.getContent()).forEach((topic, values) -> values.forEach(v -> add(out, topic, v)));
        final Map<Topic, List<String>> lists = new LinkedHashMap<>();
        out.forEach((topic, values) -> lists.put(topic, List.copyOf(values)));
        return lists;
    }

    /**
     * The values a statement's content names (what {@link #of} adds to its key's), per topic in order of first value,
     * unmodifiable: a function of the content alone, so a caller may keep it per content.
     *
     * @param content a statement's content
     * @return the values, per topic
     */
    static Map<Topic, List<String>> ofContent(final String content) {
        final Map<Topic, Set<String>> out = new LinkedHashMap<>();
        final String own = MemoryText.ownWords(content);
        final Matcher photo = CAPTION_PET.matcher(own);
        final String pictured = photo.find() ? singular(photo.group(1)) : null;
        final String words = own.replace('[', ' ').replace(']', '.');
        for (final String sentence : TurnHeuristics.sentences(words)) {
            if (!Facts.isNegative(sentence)) {
                values(sentence, out);
                if (pictured != null) {
                    // "this is Max!" with a photo of a dog: the dog is Max
                    final Matcher introduced = INTRODUCED.matcher(sentence);
                    while (introduced.find()) {
                        if (isName(introduced.group(1))) {
                            add(out, Topic.PETS, pictured + " " + name(introduced.group(1)));
                        }
                    }
                }
            }
        }
        final Map<Topic, List<String>> lists = new LinkedHashMap<>();
        out.forEach((topic, values) -> lists.put(topic, List.copyOf(values)));
        return Collections.unmodifiableMap(lists);
    }

    /** A fact whose key names a topic ({@code hobby:pottery}, {@code pet:oliver}, …) gives its value. */
    private static void fromKey(final Memory m, final Map<Topic, Set<String>> out) {
        final String key = m.getKey();
        final String value = m.getValue() == null ? null : m.getValue().strip();
        if (key == null || value == null || value.isEmpty() || m.getDisplayName() == null) {
            return;
        }
        final String display = m.getDisplayName().strip();
        if (key.startsWith("hobby:")) {
            add(out, Topic.ACTIVITIES, activity(value));
        } else if (key.startsWith("visited:")) {
            add(out, Topic.PLACES, value);
        } else if (key.startsWith("pet:")) {
            final String kind = display.replaceFirst("^Pet\\s*", "");
            add(out, Topic.PETS, kind.isEmpty() || kind.equalsIgnoreCase(value) ? singular(value)
                : singular(kind) + " " + name(value));
        } else if (key.startsWith("family:")) {
            final String relation = display.toLowerCase(Locale.ROOT);
            add(out, Topic.FAMILY, relation.equalsIgnoreCase(value) ? value : relation + " " + name(value));
        }
    }

    private static void values(final String sentence, final Map<Topic, Set<String>> out) {
        ACTIVITIES.forEach((name, forms) -> {
            if (forms.matcher(sentence).find()) {
                add(out, Topic.ACTIVITIES, name);
            }
        });
        int named = -1; // where "<Name>, my <species>" ends: that pet is named, not a second, nameless one
        final Matcher appositive = PET_APPOSITIVE.matcher(sentence);
        while (appositive.find()) {
            if (isName(appositive.group(1))) {
                add(out, Topic.PETS, singular(appositive.group(2)) + " " + name(appositive.group(1)));
                named = appositive.end();
            }
        }
        for (final CaselessPattern pet : List.of(PET_NAMED, PET_OWNED, PET_GOT)) {
            final Matcher m = pet.matcher(sentence);
            while (m.find()) {
                final String name = m.groupCount() >= 3 && m.group(3) != null ? m.group(3) : m.group(2);
                if (m.end(1) != named || isName(name)) {
                    add(out, Topic.PETS, singular(m.group(1)) + (isName(name) ? " " + name(name) : ""));
                }
            }
        }
        if (PLAYS.matcher(sentence).find()) {
            final Matcher m = INSTRUMENT.matcher(sentence);
            while (m.find()) {
                add(out, Topic.INSTRUMENTS, m.group(1).toLowerCase(Locale.ROOT));
            }
        }
        if (ABOUT_BOOKS.matcher(sentence).find()) {
            final Matcher m = TITLE.matcher(sentence);
            while (m.find()) {
                add(out, Topic.BOOKS, "\"" + m.group(1).strip() + "\"");
            }
        }
        final Matcher place = VISITED.matcher(sentence);
        while (place.find()) {
            if (!wasThere(sentence, place.start(), place.end())) {
                continue;
            }
            final String where = place.group(1).replaceFirst("[.'-]+$", "").replaceFirst("'s$", "");
            if (isName(where.split("\\s+")[0])) {
                add(out, Topic.PLACES, where);
            }
        }
        final Matcher relative = RELATIVE.matcher(sentence);
        while (relative.find()) {
            // "my girlfriend, Toby and I": after a bare comma, a name that an enumeration goes on from is not hers
            final String name = relative.group(2) != null && relative.group(0).matches("(?s).*,\\s*" + Pattern.quote(relative.group(2)))
                && ENUMERATION.matcher(sentence).region(relative.end(), sentence.length()).lookingAt() ? null
                : relative.group(2);
            add(out, Topic.FAMILY, relative.group(1).toLowerCase(Locale.ROOT) + (isName(name) ? " " + name(name) : ""));
        }
        if (ATTENDED.matcher(sentence).find()) {
            final Matcher event = EVENT.matcher(sentence);
            while (event.find()) {
                final List<String> words = new ArrayList<>(List.of(event.group(1).strip().split("\\s+")));
                while (words.size() > 1 && NOT_MODIFIERS.contains(words.get(0).toLowerCase(Locale.ROOT))) {
                    words.remove(0);
                }
                add(out, Topic.EVENTS, String.join(" ", words));
            }
        }
    }

    /**
     * Whether the clause of a place match tells that the user was there: not a condition, wish, plan or future trip
     * anywhere in the clause ({@link #NOT_BEEN}; clauses end at a comma, semicolon, colon or dash), and not someone
     * else's trip (before the verb a pronoun, possessive or name other than the user's, {@link #OTHERS}, without the
     * user among them, {@link #USER}). A trial's "If I moved to Paris I would learn French." and "I would love to visit
     * Tokyo someday" listed both under "Places visited".
     *
     * @param sentence one sentence
     * @param start where the match starts (its verb)
     * @param end where the match ends (its place)
     * @return true when the clause states the user's own trip or stay
     */
    private static boolean wasThere(final String sentence, final int start, final int end) {
        int from = start;
        while (from > 0 && ",;:\u2013\u2014".indexOf(sentence.charAt(from - 1)) < 0 && !sentence.startsWith(" - ", from - 1)) {
            from--;
        }
        int to = end;
        while (to < sentence.length() && ",;:\u2013\u2014".indexOf(sentence.charAt(to)) < 0 && !sentence.startsWith(" - ", to)) {
            to++;
        }
        if (NOT_BEEN.matcher(sentence.substring(from, to)).find()) {
            return false;
        }
        final String before = sentence.substring(from, start);
        return USER.matcher(before).find() || !OTHERS.matcher(before.strip()).find();
    }

    /** @return a name without a possessive ending ("Sara's" → "Sara") */
    private static String name(final String said) {
        return said.replaceFirst("(?:'s|’s|')$", "");
    }

    /** @return an activity by its canonical name when the vocabulary knows it ("dance" → "dancing"), else as said */
    private static String activity(final String said) {
        for (final Map.Entry<String, CaselessPattern> a : ACTIVITIES.entrySet()) {
            if (a.getValue().matcher(said).matches()) {
                return a.getKey();
            }
        }
        return said;
    }

    private static boolean isName(final String word) {
        return word != null && !NOT_NAMES.contains(word);
    }

    private static void add(final Map<Topic, Set<String>> out, final Topic topic, final String value) {
        final String v = value.strip().replaceAll("\\s+", " ");
        if (!v.isEmpty()) {
            final Set<String> values = out.computeIfAbsent(topic, t -> new LinkedHashSet<>());
            if (values.stream().noneMatch(x -> x.equalsIgnoreCase(v))) {
                values.add(v);
            }
        }
    }

    /** @return a species word in the singular ("puppies" → "puppy", "cats" → "cat") */
    static String singular(final String species) {
        final String s = species.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        if (s.equals("pup") || s.equals("pups")) {
            return "puppy";
        }
        if (s.endsWith("ies")) {
            return s.substring(0, s.length() - 3) + "y";
        }
        return s.endsWith("s") && !s.endsWith("ss") ? s.substring(0, s.length() - 1) : s;
    }

    private static Map<String, CaselessPattern> activities(final String... entries) {
        final Map<String, CaselessPattern> out = new LinkedHashMap<>();
        for (final String entry : entries) {
            final int eq = entry.indexOf('=');
            out.put(entry.substring(0, eq), CaselessPattern.compile("\\b(?:" + entry.substring(eq + 1) + ")\\b"));
        }
        return out;
    }
}
