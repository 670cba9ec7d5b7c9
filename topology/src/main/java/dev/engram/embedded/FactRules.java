package dev.engram.embedded;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;

/**
 * The statement patterns of {@link RuleBasedExtractor}: one sentence said by the user in, the facts
 * it states about the user out.
 *
 * <p>Rules are tried in a fixed priority order (response style, diet changes, retractions, name,
 * work, home, technical terms, diet, likes and dislikes, then the weak "lone diet word" rule). A
 * match claims its span of the sentence, so a later rule cannot read the same words again ("I prefer
 * short answers" is a response style, not a liking for "short answers"), and within one sentence the
 * first fact per key wins. Questions and hypotheticals ("if I moved to Paris") state nothing.
 *
 * <h2>Numbers</h2>
 * Importance and confidence are this heuristic's own, on the 0..1 scales of the memory model
 * (docs/ARCHITECTURE.md: below 0.3 importance or 0.5 confidence is not stored):
 * <ul>
 *   <li>confidence {@link #EXPLICIT} 0.9 — a first-person statement matched by a specific pattern; not
 *       1.0, which DESIGN reserves for a user's own correction through the API, because patterns can
 *       misread irony or reported speech;</li>
 *   <li>{@link #FRAGMENT} 0.8 — a subject-less fragment ("Now living in Trondheim", "Three years at
 *       Ferrovia Labs"): explicit, but the subject is implied;</li>
 *   <li>{@link #RETRACTION} 0.85 — "I no longer …": explicit, slightly below a positive statement because
 *       a retraction's scope (which value it ends) is read from the pattern alone;</li>
 *   <li>{@link #INFERRED_CONFIDENCE} 0.6 — a diet word without a first-person verb ("vegan potluck was
 *       great"): evidence, not a statement; above the 0.5 floor so it can reinforce an explicit fact, and
 *       below every explicit value so it never raises a fact's confidence past what the user said.</li>
 * </ul>
 * Importance per slot ranks how much a wrong or missing fact costs the next answer: name 0.9 (used in
 * almost every reply), response style 0.85 (shapes every reply), diet 0.8 (a constraint: ignoring it
 * harms), role and employer 0.75, language / IDE / cloud / city 0.7 (context for technical and local
 * answers), likes, dislikes and other tools 0.6 (useful, rarely decisive). All are above the 0.3 floor:
 * a fact the user states about themselves is always worth keeping.
 */
final class FactRules {

    /** Confidence of a first-person statement matched by a specific pattern. */
    static final double EXPLICIT = 0.9;
    /** Confidence of a subject-less fragment. */
    static final double FRAGMENT = 0.8;
    /** Confidence of a retraction ("I no longer …"). */
    static final double RETRACTION = 0.85;
    /** Confidence of a diet inferred from a lone diet word. */
    static final double INFERRED_CONFIDENCE = 0.6;

    /** Longest remark, in words, in which a lone diet word is read as the user's diet. */
    static final int TERSE_WORDS = 8;

    static final double IMPORTANCE_NAME = 0.9;
    static final double IMPORTANCE_RESPONSE_STYLE = 0.85;
    static final double IMPORTANCE_DIET = 0.8;
    static final double IMPORTANCE_WORK = 0.75;
    static final double IMPORTANCE_CONTEXT = 0.7;
    static final double IMPORTANCE_LIKES = 0.6;

    /**
     * One fact stated in a sentence (before it gets a message index and time).
     *
     * @param type SEMANTIC or PROCEDURAL
     * @param category the fact category
     * @param key the slot
     * @param value the value, canonical spelling
     * @param displayName a label for the slot
     * @param content the fact as a short third-person sentence, numbers as digits
     * @param negated true when it retracts key=value
     * @param importance 0..1
     * @param confidence 0..1
     * @param source EXPLICIT or INFERRED
     */
    record Fact(MemoryType type, FactCategory category, String key, String value, String displayName,
                String content, boolean negated, double importance, double confidence, MemorySource source) {
    }

    @FunctionalInterface
    private interface Builder {
        List<Fact> build(Matcher match, String sentence);
    }

    private record Rule(String name, Pattern pattern, Builder builder) {
    }

    private static final int FLAGS = Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;

    /** Adverbs allowed between the subject and the verb ("I mostly use", "we recently moved"). */
    private static final String ADV = "(?:mostly|mainly|now|primarily|usually|always|still|also|really|just|actually"
        + "|currently|exclusively|only|basically|pretty\\s+much|recently|finally|totally|completely|absolutely"
        + "|kind\\s+of|sort\\s+of|officially|even)";
    private static final String ADVS = "(?:" + ADV + "\\s+){0,2}";
    /** A capitalized name of up to four words ("Ferrovia Labs", "New York"); never the pronoun "I". */
    private static final String PROPER = "(?-i:(?!I\\b)\\p{Lu}[\\p{L}\\p{N}&'.-]*(?:\\s+(?!I\\b)\\p{Lu}[\\p{L}\\p{N}&'.-]*){0,3})";
    private static final String TOOL = "(" + TechVocabulary.ANY + "|" + PROPER + ")";
    private static final String VOCAB = "(" + TechVocabulary.ANY + ")";
    private static final String NUM = "(" + NumberWords.NUMBER + ")";
    private static final String DIET = "(vegan|vegetarian|pescatarian|pescetarian|keto|paleo|plant-based|gluten-free)";
    /** A noun phrase of up to four words, cut at the first stop word by {@link #subject(String)}. */
    private static final String SUBJ = "(\\p{L}[\\p{L}'-]*(?:\\s+\\p{L}[\\p{L}'-]*){0,3})";
    private static final String JOB = "(?:engineer|developer|designer|manager|teacher|nurse|doctor|physician|scientist"
        + "|analyst|architect|consultant|lawyer|attorney|accountant|writer|student|researcher|counsell?or|artist"
        + "|programmer|administrator|lead|director|officer|intern|professor|lecturer|chef|pilot|pharmacist|therapist"
        + "|dentist|mechanic|electrician|plumber|firefighter|journalist|editor|photographer|musician|founder|cto|ceo"
        + "|cfo|sre|tester|librarian|veterinarian|paramedic|recruiter|freelancer|contractor|coach|trainer|instructor"
        + "|tutor|secretary|clerk|cashier|barista|waiter|waitress|farmer|carpenter|baker|entrepreneur|economist"
        + "|statistician|mathematician|physicist|chemist|biologist|psychologist|social\\s+worker|product\\s+owner"
        + "|data\\s+scientist|sales\\s*person|marketer|specialist|technician|surgeon|midwife|paralegal|translator)";
    private static final String STYLE = "(short|shorter|brief|concise|succinct|detailed|long|longer|in-depth|thorough"
        + "|step-by-step)";
    private static final String FORMAT = "(bullet\\s+points|bullets|bulleted\\s+lists?|a\\s+list|lists|markdown|tables?"
        + "|plain\\s+text|short\\s+sentences|one\\s+paragraph)";
    private static final String FAV_ADJ = "(?:(?:all-time|all\\s+time|absolute|very|new|total|number\\s+one|top)\\s+)*";

    private static final String RELATION = "(?-i:brother|sister|son|daughter|mom|mum|mother|dad|father|husband|wife"
        + "|partner|fiancée?|boyfriend|girlfriend|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|niece"
        + "|nephew|friend|stepson|stepdaughter)";
    private static final String PET = "(?-i:dog|cat|puppy|pup|kitten|parrot|hamster|rabbit|bunny|horse|turtle|tortoise"
        + "|snake|lizard|gecko|guinea\\s+pig|bird|fish)";
    /** Keys whose facts name someone or somewhere the sentence says more about: the sentence still makes an episode. */
    private static final List<String> MENTION_KEYS = List.of("family:", "friend:", "pet:", "visited:", "plan:");

    private static final Pattern HYPOTHETICAL = Pattern.compile(
        "\\b(?:if|unless|wish|would|could|might|maybe|perhaps|hope|hoping|dream|dreaming|someday|imagine|whether"
            + "|want\\s+to|wanna|plan\\s+to|planning\\s+to|going\\s+to|gonna|thinking\\s+(?:of|about)|considering)\\b",
        FLAGS);
    private static final Pattern NEGATION = Pattern.compile(
        "\\b(?:not|no|never|nothing|nobody|stopped|quit|gave\\s+up|used\\s+to|anymore|former|ex)\\b|n't\\b", FLAGS);
    private static final Pattern OTHER_PERSON = Pattern.compile(
        "\\b(?:he|she|they|his|her|hers|their|him|them|you|your|friends?|wife|husband|partner|son|daughter|mom|mum"
            + "|dad|mother|father|sister|brother|kids?|children|family|girlfriend|boyfriend|colleagues?|roommates?"
            + "|neighbou?rs?|people|everyone|guests?)\\b", FLAGS);
    private static final Set<String> STOP_WORDS = Set.of("and", "but", "or", "so", "because", "with", "when", "if",
        "since", "as", "for", "too", "very", "much", "lot", "anymore", "again", "now", "these", "all", "of", "on",
        "in", "at", "to", "more", "than", "though", "lately", "either", "really", "is", "are", "was", "were", "be",
        "which", "that", "who", "while", "from", "by", "about", "like", "the", "this", "those", "its",
        "it", "them", "there", "here", "then", "just", "still", "every", "most", "best", "ever", "any", "some", "out", "up", "into", "off", "over",
        "around", "through", "back", "down");
    private static final Set<String> NOT_A_SUBJECT = Set.of("it", "that", "this", "them", "those", "these", "you",
        "him", "her", "me", "us", "what", "how", "when", "where", "why", "who", "to", "being", "having", "doing",
        "going", "getting", "everything", "anything", "something", "nothing", "it's", "that's", "there", "here",
        "your", "his", "their", "our", "my", "lots", "all", "some", "any", "every", "each", "both", "one", "myself",
        "yourself", "so", "too", "much", "way", "idea", "thought", "sound", "sounds", "hearing", "seeing", "know",
        "the", "a", "an", "such", "spending", "i", "i'm", "people", "whenever");
    /** After a gerund, these start a clause or an object the phrase cannot stand without. */
    private static final Set<String> GERUND_NEEDS_MORE = Set.of("it", "them", "him", "her", "me", "us", "you", "my",
        "our", "your", "their", "his", "its", "this", "that", "these", "those", "what", "out", "up", "into", "off",
        "over", "around", "through", "back", "down", "on", "the", "a", "an", "some", "how", "when", "where", "who");
    /** Adverbs skipped before the liked thing ("I like also cheese pizza"). */
    private static final Set<String> LEADING_ADVERBS = Set.of("also", "really", "just", "totally", "absolutely",
        "so", "too", "still", "especially", "particularly", "actually");
    private static final Pattern RELATIVE = Pattern.compile("\\b(?:things?|something|everything|anything|what|which"
        + "|that|stuff|ones?|people|places?|someone|everyone)\\s+(?:(?:we|i)\\s+)?$", FLAGS);
    private static final Set<String> NOT_A_PLACE = Set.of("monday", "tuesday", "wednesday", "thursday", "friday",
        "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july", "august", "september",
        "october", "november", "december", "christmas", "easter", "the");

    private static final List<Rule> RULES = List.of(
        // 1. how the user wants to be served
        rule("response-style-length", "\\bi\\s+" + ADVS + "(?:prefer|like|want|need|appreciate)\\s+" + STYLE
            + "\\s+(?:answers|responses|replies|explanations)", (m, s) -> responseStyle(m.group(1))),
        rule("response-style-format", "\\b(?:please\\s+)?" + ADVS + "(?:answer|respond|reply|write|format\\s+(?:your\\s+)?"
            + "(?:answers|responses))\\s+(?:to\\s+me\\s+|me\\s+)?(?:in|with|using|as)\\s+" + FORMAT,
            (m, s) -> responseStyle(m.group(1))),
        rule("response-style-prefer-format", "\\bi\\s+" + ADVS + "(?:prefer|like|want)\\s+(?:answers|responses|replies)"
            + "\\s+(?:in|as|with)\\s+" + FORMAT, (m, s) -> responseStyle(m.group(1))),
        rule("response-style-keep", "\\bkeep\\s+(?:it|your\\s+answers|answers|responses|replies|things)\\s+"
            + "(short|brief|concise|simple)", (m, s) -> responseStyle(m.group(1))),
        // 2. diet changes stated by what the user eats again
        rule("diet-fish-again", "\\b(?:started|start|began|starting|am|'m)\\s+eating\\s+fish(?:\\s+again)?\\b"
            + "|\\bi\\s+" + ADVS + "eat\\s+fish\\s+but\\s+(?:no|not)\\s+meat",
            (m, s) -> List.of(diet("pescatarian", false, EXPLICIT, MemorySource.EXPLICIT))),
        rule("diet-meat-again", "\\b(?:started|start|began|starting|am|'m)\\s+eating\\s+meat\\s+again\\b",
            (m, s) -> List.of(diet("omnivore", false, EXPLICIT, MemorySource.EXPLICIT))),
        // 3. retractions
        rule("tool-retracted", "\\b(?:i|we)\\s+(?:no\\s+longer|don't|do\\s+not|stopped|quit|gave\\s+up)\\s+"
            + "(?:use|using|rely\\s+on|relying\\s+on|work\\s+with|working\\s+with)\\s+" + TOOL
            + "|\\b(?:i'm|i\\s+am|we're|we\\s+are)\\s+(?:no\\s+longer|not)\\s+using\\s+" + TOOL,
            (m, s) -> tech(first(m, 1, 2), true, RETRACTION)),
        rule("city-retracted", "\\b(?:i|we)\\s+(?:no\\s+longer|don't|do\\s+not)\\s+live\\s+in\\s+(" + PROPER + ")"
            + "|\\b(?:i'm|i\\s+am|we're|we\\s+are)\\s+(?:no\\s+longer|not)\\s+(?:living|based)\\s+in\\s+(" + PROPER + ")",
            (m, s) -> city(first(m, 1, 2), true, RETRACTION)),
        rule("employer-retracted", "\\bi\\s+(?:no\\s+longer|don't|do\\s+not)\\s+work\\s+(?:at|for)\\s+(" + PROPER + ")"
            + "|\\bi(?:'m|\\s+am)\\s+(?:no\\s+longer|not)\\s+working\\s+(?:at|for)\\s+(" + PROPER + ")"
            + "|\\bi(?:'ve|\\s+have)?\\s+" + ADVS + "(?:left|quit)\\s+(?:my\\s+job\\s+at\\s+)?(" + PROPER + ")",
            (m, s) -> employer(first(m, 1, 3), -1, true, RETRACTION)),
        rule("diet-retracted", "\\bi(?:'m|\\s+am)\\s+(?:no\\s+longer|not)\\s+(?:an?\\s+)?" + DIET
            + "|\\b(?:stopped|quit|gave\\s+up)\\s+being\\s+(?:an?\\s+)?" + DIET
            + "|\\bi\\s+(?:no\\s+longer|don't|do\\s+not)\\s+(?:eat|follow|do)\\s+(?:an?\\s+)?" + DIET,
            (m, s) -> List.of(diet(first(m, 1, 3), true, RETRACTION, MemorySource.EXPLICIT))),
        // 4. who the user is
        rule("name", "\\bmy\\s+name(?:'s|\\s+is)\\s+(" + PROPER + ")|\\b(?:please\\s+)?call\\s+me\\s+(" + PROPER + ")",
            (m, s) -> name(first(m, 1, 2))),
        // "my locker (at the gym) is number 14": a numbered thing of the user's, one slot per thing (case-15)
        rule("numbered-thing", "\\bmy\\s+(locker|room|seat|desk|office|flat|apartment|house|parking\\s+spot|cabin|badge)"
            + "(?:\\s+(?:at|in|on)\\s+(?:the\\s+)?\\p{L}+)?(?:\\s+is|'s)\\s+(?:now\\s+)?(?:number\\s+|no\\.?\\s*|#\\s*)?(\\d+[a-z]?)\\b",
            (m, s) -> numbered(m.group(1), m.group(2))),
        rule("employer-tenure", "\\b(?:i|we)(?:'ve|\\s+have)\\s+" + ADVS + "been\\s+(?:working\\s+)?(?:at|with|for)\\s+("
            + PROPER + ")\\s+(?:for\\s+)?(?:(?:the\\s+)?(?:past|last)\\s+)?" + NUM + "\\s+years?",
            (m, s) -> employer(m.group(1), NumberWords.parse(m.group(2)), false, EXPLICIT)),
        rule("employer-tenure-fragment", "(?:^|\\bi(?:'ve|\\s+have)\\s+(?:spent|had|done|worked)\\s+|\\bit(?:'s|\\s+has)"
            + "\\s+been\\s+)" + ADVS + NUM + "\\s+years?\\s+(?:now\\s+)?(?:at|with|working\\s+(?:at|for))\\s+(" + PROPER + ")",
            (m, s) -> employer(m.group(2), NumberWords.parse(m.group(1)), false,
                m.group().toLowerCase(Locale.ROOT).startsWith("i") ? EXPLICIT : FRAGMENT)),
        rule("role-and-employer", "\\bi(?:'m|\\s+am|\\s+work\\s+as|'m\\s+working\\s+as|\\s+am\\s+working\\s+as)\\s+"
            + "(?:now\\s+|currently\\s+|still\\s+)?(?:an?\\s+)((?:[\\p{L}-]+\\s+){0,3}?" + JOB + ")s?\\b"
            + "(?:\\s+(?:at|for|with)\\s+(" + PROPER + "))?",
            (m, s) -> roleAndEmployer(m.group(1), m.group(2))),
        rule("role-title", "\\bmy\\s+(?:job\\s+title|title|role|job|position)\\s+is\\s+(?:an?\\s+)?"
            + "((?:[\\p{L}-]+\\s+){0,3}?" + JOB + ")\\b", (m, s) -> roleAndEmployer(m.group(1), null)),
        rule("employer", "\\b(?:i|we)(?:(?:'m|\\s+am)\\s+" + ADVS + "working|(?:'ve|\\s+have)\\s+" + ADVS
            + "(?:worked|been\\s+working)|\\s+" + ADVS + "work)\\s+(?:at|for)\\s+(" + PROPER + ")"
            + "(?:\\s+for\\s+(?:(?:the\\s+)?(?:past|last)\\s+)?" + NUM + "\\s+years?)?",
            (m, s) -> employer(m.group(1), m.group(2) == null ? -1 : NumberWords.parse(m.group(2)), false, EXPLICIT)),
        rule("employer-joined", "\\b(?:i|we)\\s+" + ADVS + "(?:joined|started\\s+at|started\\s+working\\s+(?:at|for))\\s+("
            + PROPER + ")", (m, s) -> employer(m.group(1), -1, false, EXPLICIT)),
        // 5. where the user lives
        rule("city-live", "\\b(?:i|we)(?:'m|'re|\\s+am|\\s+are|'ve\\s+been|\\s+have\\s+been)?\\s+" + ADVS
            + "(?:live|living|reside|residing|based)\\s+in\\s+(" + PROPER + ")", (m, s) -> city(m.group(1), false, EXPLICIT)),
        rule("city-now-living", "(?:^|[,;]\\s*)" + ADVS + "(?:now|currently)\\s+(?:living|based|residing)\\s+in\\s+("
            + PROPER + ")", (m, s) -> city(m.group(1), false, FRAGMENT)),
        rule("city-moved", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "(?:moved|relocated)\\s+(?:back\\s+|over\\s+|out\\s+)?"
            + "to\\s+(" + PROPER + ")", (m, s) -> city(m.group(1), false, EXPLICIT)),
        // 6. technical terms
        rule("tech-switched", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "(?:switched|migrated|moved|changed)\\s+(?:over\\s+)?"
            + "(?:from\\s+" + VOCAB + "\\s+)?to\\s+" + VOCAB, (m, s) -> switched(m.group(1), m.group(2))),
        rule("tech-main", VOCAB + "\\s+is\\s+my\\s+(?:(?:main|primary|favou?rite|go-to|preferred|daily|default|usual)\\s+)?"
            + "(?:programming\\s+language|language|ide|editor|cloud(?:\\s+provider)?)\\b"
            + "|\\bmy\\s+(?:(?:main|primary|favou?rite|go-to|preferred|daily|default|usual)\\s+)?(?:programming\\s+language"
            + "|language|ide|editor|cloud(?:\\s+provider)?)\\s+(?:of\\s+choice\\s+)?is\\s+" + VOCAB,
            (m, s) -> tech(first(m, 1, 2), false, EXPLICIT)),
        rule("tech-write-in", "\\b(?:i|we)\\s+" + ADVS + "(?:write|code|program|develop|build)\\b[^.!?]{0,40}?\\bin\\s+("
            + TechVocabulary.LANGUAGES + ")", (m, s) -> tech(m.group(1), false, EXPLICIT)),
        rule("tech-use", "\\b(?:i|we)(?:'m|'re|\\s+am|\\s+are)?\\s+" + ADVS
            + "(?:use|using|prefer|rely\\s+on|relying\\s+on)\\s+" + TOOL, (m, s) -> tech(m.group(1), false, EXPLICIT)),
        rule("tech-on", "\\b(?:i'm|i\\s+am|we're|we\\s+are|we've\\s+been|we\\s+have\\s+been)\\s+" + ADVS
            + "(?:all\\s+|fully\\s+)?on\\s+" + VOCAB, (m, s) -> tech(m.group(1), false, EXPLICIT)),
        rule("tech-host-on", "\\b(?:i|we)\\s+" + ADVS + "(?:deploy|host|run)\\s+(?:\\w+\\s+){0,2}?on\\s+" + VOCAB,
            (m, s) -> tech(m.group(1), false, EXPLICIT)),
        // 7. diet stated in the first person
        rule("diet", "\\b(?:i|we)(?:'m|\\s+am|'re|\\s+are|'ve\\s+been|\\s+have\\s+been|\\s+went|\\s+became|'ve\\s+gone"
            + "|\\s+have\\s+gone|\\s+turned|\\s+eat|\\s+follow|\\s+keep)\\s+(?:(?:now|fully|still|strictly|mostly"
            + "|completely|also|a|an|been)\\s+)*" + DIET + "\\b",
            (m, s) -> List.of(diet(m.group(1), false, EXPLICIT, MemorySource.EXPLICIT))),
        // 8. likes and dislikes
        rule("favourite", "(?:^|[,;]\\s*)(?:the\\s+)?" + SUBJ + "\\s+(?:is|are)\\s+(?:still\\s+)?my\\s+" + FAV_ADJ
            + "favou?rites?\\b", (m, s) -> preference(subject(m.group(1), true), true)),
        rule("favourite-is", "\\bmy\\s+" + FAV_ADJ + "favou?rite\\s+(?:\\p{L}+\\s+){1,2}(?:is|are)\\s+" + SUBJ,
            (m, s) -> liked(m, s, true)),
        rule("gone-off", "\\b(?:i(?:'ve|\\s+have)?\\s+)?" + ADVS + "(?:gone|went)\\s+off\\s+" + SUBJ,
            (m, s) -> liked(m, s, false)),
        rule("dislike", "\\bi\\s+" + ADVS + "(?:hate|dislike|detest|loathe|despise|can't\\s+stand|cannot\\s+stand"
            + "|can\\s+no\\s+longer\\s+stand|don't\\s+like|do\\s+not\\s+like|don't\\s+enjoy|do\\s+not\\s+enjoy"
            + "|no\\s+longer\\s+like|no\\s+longer\\s+enjoy)\\s+" + SUBJ, (m, s) -> liked(m, s, false)),
        rule("cant-stand", "(?:^|[,;]\\s*)" + ADVS + "(?:can't|cannot)\\s+stand\\s+" + SUBJ,
            (m, s) -> liked(m, s, false)),
        rule("not-a-fan", "\\bi(?:'m|\\s+am)\\s+" + ADVS + "(?:not\\s+(?:a|much\\s+of\\s+a)\\s+fan\\s+of|sick\\s+of|tired\\s+of"
            + "|fed\\s+up\\s+with)\\s+" + SUBJ, (m, s) -> liked(m, s, false)),
        rule("fan-of", "\\bi(?:'m|\\s+am)\\s+" + ADVS + "(?:a\\s+)?(?:big\\s+|huge\\s+|massive\\s+)?fan\\s+of\\s+" + SUBJ,
            (m, s) -> liked(m, s, true)),
        rule("like", "\\bi\\s+" + ADVS + "(?:love|like|enjoy|adore|prefer)\\s+" + SUBJ,
            (m, s) -> liked(m, s, true)),
        // 9. the people and pets in the user's life, by name, and the places the user went to
        rule("family", "\\bmy\\s+(?:(?:little|older|younger|big|baby|twin|eldest|youngest|oldest|best)\\s+)?("
            + RELATION + ")\\s*,?\\s+(" + PROPER + ")", (m, s) -> relation(m.group(1).equals("friend") ? "friend"
                : "family:" + m.group(1).toLowerCase(Locale.ROOT),
                m.group(2), "Has a " + m.group(1).toLowerCase(Locale.ROOT) + " named ", m.group(1))),
        rule("pet", "\\bmy\\s+(?:(?:new|little|old|sweet|adorable|cute|\\p{L}+-year-old)\\s+)?(?:\\p{L}+\\s+)?(" + PET
            + ")\\s*,?\\s+(?:named\\s+|called\\s+)?(" + PROPER + ")", (m, s) -> relation("pet",
                m.group(2), "Has a " + m.group(1).toLowerCase(Locale.ROOT) + " named ", "Pet " + m.group(1).toLowerCase(Locale.ROOT))),
        rule("visited", "\\b(?:i|we)(?:'ve|\\s+have)?\\s+" + ADVS + "(?:went|been|traveled|travelled|flew|drove|visited"
            + "|took\\s+a\\s+trip)\\s+(?:back\\s+)?(?:to\\s+)?(" + PROPER + ")", (m, s) -> visited(m.group(1))),
        // 10. what the user wants or plans to do ("I want to get into jazz", "we're planning to adopt")
        rule("plan", "\\b(?:i|we)(?:'m|'re|\\s+am|\\s+are)?\\s+" + ADVS + "(want|wanna|plan|planning|hope|hoping"
            + "|would\\s+like|'d\\s+like|going)\\s+to\\s+(get\\s+into|learn|try|start|take\\s+up|visit|go\\s+to"
            + "|travel\\s+to|become|adopt|buy|open|write|run|join|move\\s+to)\\s+" + SUBJ,
            (m, s) -> plan(m.group(1), m.group(2), m.group(3))),
        // 11. weak evidence: a diet word with no verb ("vegan potluck was great")
        rule("diet-mentioned", "\\b(vegan|vegetarian|pescatarian|pescetarian)\\b", (m, s) -> dietMentioned(m.group(1), s)));

    private FactRules() {
    }

    private static Rule rule(final String name, final String regex, final Builder builder) {
        return new Rule(name, Pattern.compile(regex, FLAGS), builder);
    }

    /**
     * @param sentence one sentence said by the user
     * @return the facts it states, at most one per key, in rule priority order; empty for a question
     */
    static List<Fact> extract(final String sentence) {
        final String text = normalizeQuotes(sentence).strip();
        if (text.isEmpty() || TurnHeuristics.isQuestion(text)) {
            return List.of();
        }
        final List<int[]> claimed = new ArrayList<>();
        final Map<String, Fact> byKey = new LinkedHashMap<>();
        for (final Rule rule : RULES) {
            final Matcher m = rule.pattern().matcher(text);
            while (m.find()) {
                if (overlaps(claimed, m.start(), m.end()) || hypothetical(text, m.start())) {
                    continue;
                }
                final List<Fact> facts = rule.builder().build(m, text);
                if (!facts.isEmpty()) {
                    claimed.add(new int[] {m.start(), m.end()});
                    for (final Fact fact : facts) {
                        byKey.putIfAbsent(fact.key(), fact);
                    }
                }
            }
        }
        return List.copyOf(byKey.values());
    }

    /**
     * @param fact a fact from {@link #extract}
     * @return false for facts that only name a person, pet or place ("my brother Tomas plays the trumpet"):
     *     the rest of the sentence is not in the fact, so the sentence still belongs in the turn's episode
     */
    static boolean coversSentence(final Fact fact) {
        return MENTION_KEYS.stream().noneMatch(k -> fact.key().startsWith(k));
    }

    private static List<Fact> relation(final String keyPrefix, final String raw, final String contentPrefix,
                                       final String display) {
        final String name = trimValue(raw).replaceAll("'s$", "");
        if (name.isEmpty() || NOT_A_PLACE.contains(name.toLowerCase(Locale.ROOT))) {
            return List.of();
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, keyPrefix + ":" + slug(name), name,
            Character.toUpperCase(display.charAt(0)) + display.substring(1), contentPrefix + name, false,
            IMPORTANCE_CONTEXT, EXPLICIT, MemorySource.EXPLICIT));
    }

    private static List<Fact> plan(final String verb, final String action, final String raw) {
        final String object = subject(raw.replaceFirst("(?i)^(?:a|an|the|some|my|our)\\s+", ""), false);
        if (object.isEmpty()) {
            return List.of();
        }
        final String what = action.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ") + " " + object;
        final boolean plans = verb.toLowerCase(Locale.ROOT).startsWith("plan") || verb.equalsIgnoreCase("going");
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.CONTEXT, "plan:" + slug(what), what,
            plans ? "Plan" : "Wish", (plans ? "Plans to " : "Wants to ") + what, false, IMPORTANCE_LIKES, EXPLICIT,
            MemorySource.EXPLICIT));
    }

    private static List<Fact> visited(final String raw) {
        final String place = trimValue(raw).replaceAll("'s$", "");
        if (place.isEmpty() || NOT_A_PLACE.contains(place.toLowerCase(Locale.ROOT))) {
            return List.of();
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, "visited:" + slug(place), place,
            "Visited", "Went to " + place, false, IMPORTANCE_LIKES, EXPLICIT, MemorySource.EXPLICIT));
    }

    /** Straight quotes for typographic ones, so "I’m" matches like "I'm" (same length: spans stay valid). */
    static String normalizeQuotes(final String text) {
        return text.replace('\u2019', '\'').replace('\u2018', '\'').replace('\u201C', '"').replace('\u201D', '"');
    }

    private static boolean overlaps(final List<int[]> claimed, final int start, final int end) {
        for (final int[] span : claimed) {
            if (start < span[1] && span[0] < end) {
                return true;
            }
        }
        return false;
    }

    /** A conditional, a wish, a plan or reported speech before the match: nothing is stated as true. */
    private static boolean hypothetical(final String text, final int start) {
        return HYPOTHETICAL.matcher(text.substring(0, start)).find();
    }

    private static String first(final Matcher m, final int from, final int to) {
        for (int g = from; g <= to; g++) {
            if (m.group(g) != null) {
                return m.group(g);
            }
        }
        return "";
    }

    /** Trims surrounding spaces and trailing punctuation ("Labs." → "Labs"). */
    static String trimValue(final String raw) {
        return raw == null ? "" : raw.strip().replaceAll("[\\p{Punct}\\s]+$", "").replaceAll("^[\\p{Punct}\\s]+", "");
    }

    /** @return lower-case snake_case of the words ("Thai food" → "thai_food") */
    static String slug(final String text) {
        return trimValue(text).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}+#]+", "_").replaceAll("^_|_$", "");
    }

    private static List<Fact> tech(final String raw, final boolean negated, final double confidence) {
        final Optional<TechVocabulary.Term> term = TechVocabulary.resolve(raw);
        if (term.isEmpty()) {
            return List.of();
        }
        final TechVocabulary.Term t = term.get();
        final String content;
        final String display;
        switch (t.slot()) {
            case LANGUAGE -> {
                content = negated ? "No longer programs in " + t.value() : "Main programming language is " + t.value();
                display = "Preferred language";
            }
            case IDE -> {
                content = negated ? "No longer uses " + t.value() + " as IDE" : "Uses " + t.value() + " as IDE";
                display = "IDE";
            }
            case CLOUD -> {
                content = negated ? "No longer uses " + t.value() + " as cloud provider"
                    : "Uses " + t.value() + " as cloud provider";
                display = "Cloud provider";
            }
            default -> {
                content = negated ? "No longer uses " + t.value() : "Uses " + t.value();
                display = "Tool: " + t.value();
            }
        }
        final double importance = t.slot() == TechVocabulary.Slot.TOOL ? IMPORTANCE_LIKES : IMPORTANCE_CONTEXT;
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.TECHNICAL, t.key(), t.value(), display, content,
            negated, importance, confidence, MemorySource.EXPLICIT));
    }

    private static List<Fact> switched(final String from, final String to) {
        final List<Fact> facts = new ArrayList<>(tech(to, false, EXPLICIT));
        if (from != null && !facts.isEmpty()) {
            final List<Fact> old = tech(from, true, RETRACTION);
            if (!old.isEmpty() && !old.get(0).key().equals(facts.get(0).key())) {
                facts.addAll(old);
            }
        }
        return facts;
    }

    private static List<Fact> city(final String raw, final boolean negated, final double confidence) {
        final String city = trimValue(raw);
        if (city.isEmpty() || NOT_A_PLACE.contains(city.toLowerCase(Locale.ROOT))
            || TechVocabulary.resolve(city).map(t -> t.slot() != TechVocabulary.Slot.TOOL).orElse(false)) {
            return List.of();
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, "city", city, "City",
            (negated ? "No longer lives in " : "Lives in ") + city, negated, IMPORTANCE_CONTEXT, confidence,
            MemorySource.EXPLICIT));
    }

    private static List<Fact> employer(final String raw, final int years, final boolean negated,
                                       final double confidence) {
        final String company = trimValue(raw);
        if (company.isEmpty() || NOT_A_PLACE.contains(company.toLowerCase(Locale.ROOT))) {
            return List.of();
        }
        final String content;
        if (negated) {
            content = "No longer works at " + company;
        } else if (years > 0) {
            content = "Has worked at " + company + " for " + years + (years == 1 ? " year" : " years");
        } else {
            content = "Works at " + company;
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.ROLE, "employer", company, "Employer", content,
            negated, IMPORTANCE_WORK, confidence, MemorySource.EXPLICIT));
    }

    private static List<Fact> roleAndEmployer(final String rawRole, final String rawEmployer) {
        final String role = trimValue(rawRole).toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        final List<Fact> facts = new ArrayList<>();
        final String[] words = role.split(" ");
        if (Arrays.stream(words).anyMatch(w -> NOT_A_SUBJECT.contains(w) || STOP_WORDS.contains(w))) {
            return List.of();
        }
        facts.add(new Fact(MemoryType.SEMANTIC, FactCategory.ROLE, "role", role, "Role",
            "Works as " + article(role) + " " + role, false, IMPORTANCE_WORK, EXPLICIT, MemorySource.EXPLICIT));
        if (rawEmployer != null) {
            facts.addAll(employer(rawEmployer, -1, false, EXPLICIT));
        }
        return facts;
    }

    private static String article(final String word) {
        return "aeiou".indexOf(word.charAt(0)) >= 0 ? "an" : "a";
    }

    private static List<Fact> name(final String raw) {
        final String name = trimValue(raw);
        if (name.isEmpty()) {
            return List.of();
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, "name", name, "Name", "Name is " + name,
            false, IMPORTANCE_NAME, EXPLICIT, MemorySource.EXPLICIT));
    }

    /** @return "Locker is number 14", key {@code locker_number}: a restated number supersedes the old one */
    private static List<Fact> numbered(final String thing, final String number) {
        final String noun = thing.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        final String label = Character.toUpperCase(noun.charAt(0)) + noun.substring(1);
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PERSONAL, noun.replace(' ', '_') + "_number",
            number.toUpperCase(Locale.ROOT), label + " number", label + " is number " + number.toUpperCase(Locale.ROOT),
            false, IMPORTANCE_CONTEXT, EXPLICIT, MemorySource.EXPLICIT));
    }

    private static Fact diet(final String raw, final boolean negated, final double confidence,
                             final MemorySource source) {
        String diet = trimValue(raw).toLowerCase(Locale.ROOT);
        if (diet.equals("pescetarian")) {
            diet = "pescatarian";
        } else if (diet.equals("plant-based")) {
            diet = "vegan";
        }
        // The clause names what a diet is for, so food questions that share no word with the diet
        // ("what should I cook for him tonight?", case-04) still find it: MiniLM cosine 0.14 → 0.30.
        final String content = negated ? "No longer follows a " + diet + " diet"
            : "Follows a " + diet + " diet (keep in mind when cooking or suggesting meals)";
        return new Fact(MemoryType.SEMANTIC, FactCategory.CONSTRAINT, "diet", diet, "Diet", content, negated,
            IMPORTANCE_DIET, confidence, source);
    }

    /**
     * A diet word in a terse remark ("still vegan, going strong", "vegan potluck was great"): evidence of
     * the user's own diet only when the remark is short (at most {@value #TERSE_WORDS} words), names no
     * one else and negates nothing. Only identity diets count; "a gluten-free crust" describes a dish.
     */
    private static List<Fact> dietMentioned(final String raw, final String sentence) {
        if (sentence.split("\\s+").length > TERSE_WORDS || NEGATION.matcher(sentence).find()
            || OTHER_PERSON.matcher(sentence).find()) {
            return List.of();
        }
        return List.of(diet(raw, false, INFERRED_CONFIDENCE, MemorySource.INFERRED));
    }

    /**
     * "the things I love makes writing fun": the statement is inside a relative clause whose object is
     * before it, so the words after the verb are not what is liked.
     */
    private static boolean relativeClause(final String sentence, final int start) {
        return RELATIVE.matcher(sentence.substring(0, start)).find();
    }

    private static List<Fact> liked(final Matcher m, final String sentence, final boolean like) {
        return relativeClause(sentence, m.start()) ? List.of() : preference(subject(m.group(1), false), like);
    }

    private static List<Fact> preference(final String subject, final boolean like) {
        if (subject.isEmpty()) {
            return List.of();
        }
        return List.of(new Fact(MemoryType.SEMANTIC, FactCategory.PREFERENCE, "preference:" + slug(subject),
            like ? "like" : "dislike", "Preference: " + subject, (like ? "Likes " : "Dislikes ") + subject, false,
            IMPORTANCE_LIKES, EXPLICIT, MemorySource.EXPLICIT));
    }

    /**
     * @param raw up to four words after a liking verb, or before "is my favourite"
     * @param sentenceInitial true when the phrase starts the sentence (its capital is not a name's)
     * @return the noun phrase liked: leading adverbs skipped, cut at the first stop word, at most three
     *     words (titles such as "Lord of the Rings" keep their inner "of the"); a gerund keeps its object
     *     ("making jewelry") or stands alone before a preposition ("traveling to …" → "traveling"). Empty when
     *     the phrase is specific rather than a liking ("the color"), a pronoun, a possessive, an infinitive,
     *     a clause, or a gerund whose object is a pronoun or particle ("making him happy", "trying out")
     */
    static String subject(final String raw, final boolean sentenceInitial) {
        final String[] words = trimValue(raw).split("\\s+");
        int start = 0;
        while (start < words.length - 1 && LEADING_ADVERBS.contains(words[start].toLowerCase(Locale.ROOT))) {
            start++;
        }
        final List<String> kept = new ArrayList<>();
        final boolean title = words.length > start + 1 && Character.isUpperCase(words[start].charAt(0))
            && Character.isUpperCase(words[words.length - 1].charAt(0));
        for (int i = start; i < words.length && kept.size() < (title ? 4 : 3); i++) {
            final String w = words[i];
            final String lower = w.toLowerCase(Locale.ROOT);
            if (kept.isEmpty()) {
                if (NOT_A_SUBJECT.contains(lower) || STOP_WORDS.contains(lower) || lower.equals("not")
                    || lower.equals("they") || lower.equals("he") || lower.equals("she") || lower.equals("we")) {
                    return "";
                }
            } else if (kept.get(0).endsWith("ing") && kept.size() == 1 && GERUND_NEEDS_MORE.contains(lower)) {
                return "";
            } else if (STOP_WORDS.contains(lower) && !(title && (lower.equals("of") || lower.equals("the")))) {
                break;
            }
            kept.add(w);
        }
        final boolean properName = kept.stream().skip(1).anyMatch(k -> Character.isUpperCase(k.charAt(0)))
            || (!sentenceInitial && !kept.isEmpty() && Character.isUpperCase(kept.get(0).charAt(0)));
        final String phrase = String.join(" ", kept);
        return properName ? phrase : phrase.toLowerCase(Locale.ROOT);
    }

    private static List<Fact> responseStyle(final String raw) {
        final String style = raw.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        final String value;
        final String content;
        switch (style) {
            case "short", "shorter", "brief", "concise", "succinct", "simple" -> {
                value = "concise";
                content = "Prefers concise answers";
            }
            case "detailed", "long", "longer", "in-depth", "thorough" -> {
                value = "detailed";
                content = "Prefers detailed answers";
            }
            case "step-by-step" -> {
                value = "step-by-step";
                content = "Prefers step-by-step answers";
            }
            case "bullet points", "bullets", "bulleted list", "bulleted lists", "a list", "lists" -> {
                value = "bullet points";
                content = "Prefers answers in bullet points";
            }
            default -> {
                value = style;
                content = "Prefers answers in " + style;
            }
        }
        return List.of(new Fact(MemoryType.PROCEDURAL, FactCategory.PREFERENCE, "response_style", value,
            "Response style", content, false, IMPORTANCE_RESPONSE_STYLE, EXPLICIT, MemorySource.EXPLICIT));
    }
}
