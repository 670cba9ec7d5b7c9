package dev.engram.rules;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.avro.Message;
import dev.engram.avro.UserProfile;
import dev.engram.core.Languages;
import dev.engram.core.MemoryIds;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.Extraction;
import dev.engram.port.MemoryExtractor;
import dev.engram.port.TenantPolicy;
import dev.engram.text.MemoryText;
import dev.engram.text.TurnHeuristics;

/**
 * The embedded default {@link MemoryExtractor} ({@value #NAME}): deterministic rules, no model, no
 * network, any language.
 *
 * <p>Messages with role {@code user} are the user's own words; an {@code assistant} message is the other
 * party (the assistant, or in LoCoMo the other person). Other roles are ignored. For each user turn:
 * <ol>
 *   <li><b>Facts.</b> Every sentence goes through {@link FactRules}: explicit first-person statements
 *       become SEMANTIC facts (and response-style wishes PROCEDURAL ones) with the agreed key vocabulary
 *       ({@code preferred_language}, {@code ide}, {@code cloud_provider}, {@code uses:<tool>}, {@code city},
 *       {@code employer}, {@code role}, {@code diet}, {@code name}, {@code preference:<subject>} = like |
 *       dislike, {@code response_style}). Retractions ("I no longer use Jira") become negated facts
 *       carrying the key and value they retract. Within a turn the last positive statement of a key
 *       wins, and a retraction is dropped when the same turn states a new value for that key ("Started
 *       eating fish again; being vegan wasn't working" gives {@code diet=pescatarian} only). A short answer to the
 *       other party's yes/no question about a slot is the statement it answers ({@link Answers}: "No, Ottawa now." to
 *       "Are you still living in Toronto?" is {@code city=Ottawa}). A message typed all in lower case has its names in
 *       lower case too: the name after a cue ("i live in oslo") is read as capitalized ({@link LowercaseNames}). Facts only
 *       ever come from the user's own sentences: what the assistant says is never a fact about the user.</li>
 *   <li><b>Episodes.</b> A turn with at least one substantive sentence that made no fact becomes one
 *       EPISODIC memory whose content is the turn text as said (LoCoMo's " [image: caption]" included),
 *       each relative date followed by its absolute date ({@link RelativeDates}: "last week (15–21 May
 *       2023)", also in {@code eventDates}), and, when the message before it asked something, that
 *       question as context ({@code (re: "…")}, {@link Exchanges}); importance from
 *       {@link TurnHeuristics#importance(List)}, confidence {@value #EPISODIC_CONFIDENCE}. A turn whose
 *       every sentence made a fact (not a retraction: "I'm no longer allergic to penicillin" is kept as the user's
 *       words, since the consolidator stores a retraction only as the end of a fact it takes back) or was small talk
 *       gives no episode: the episode would repeat the fact
 *       in other words, embed above the 0.9 reinforce threshold next to it, and reinforce (or shadow) the
 *       wrong memory. Pure small talk and questions give nothing.</li>
 * </ol>
 * For each assistant message that answers a user turn and adds to it, an <b>exchange</b> episode
 * {@code User: <turn> — Assistant: <reply>} with both messages as sources and the display name
 * "Assistant recommendation" or "Assistant reply" ({@link Exchanges}), so "what did you recommend to
 * me?" has an answer. The language of every memory is detected ({@link Languages}) and recorded.
 * Identical contents within one conversation are merged into one memory listing every message that
 * said it (they would get the same candidate id anyway). Each memory's event time is the time of the
 * first message that said it (an exchange: the reply's).
 *
 * <p>{@code profile}: when the user has turned memory off ({@code memoryEnabled=false}) nothing is
 * extracted. Known facts are <em>not</em> skipped: a restated fact must reach the consolidator to count
 * as evidence (reinforcement).
 *
 * <p>Confidence {@value #EPISODIC_CONFIDENCE} for episodes: the text is verbatim, so what it says is
 * certain; the remaining doubt is whether the turn is about the user at all (a quoted film line, a joke).
 * It sits below the explicit-fact confidence of {@link FactRules} (0.9).
 *
 * <p>Stateless, thread-safe, deterministic: the same conversation always gives the same list (no
 * clock: dates resolve against each message's own timestamp).
 */
public final class RuleBasedExtractor implements MemoryExtractor {

    /** Recorded on every candidate as {@code extractor}. */
    public static final String NAME = "rule-based-v1";
    /** Confidence of an episodic memory. */
    public static final double EPISODIC_CONFIDENCE = 0.8;

    /**
     * @param turn a user turn
     * @return {@link TurnHeuristics#substance}
     */
    public static String substance(final String turn) {
        return TurnHeuristics.substance(turn);
    }

    private static final String USER_ROLE = "user";
    private static final String ASSISTANT_ROLE = "assistant";

    private final boolean exchanges;

    /** With exchange episodes (the assistant's replies to the user's turns). */
    public RuleBasedExtractor() {
        this(true);
    }

    /**
     * @param exchanges true to remember the assistant's replies as exchange episodes with the user's
     *     turn; false for the user's own turns only
     */
    public RuleBasedExtractor(final boolean exchanges) {
        this.exchanges = exchanges;
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Extracts with the tenant's own categories ({@link CustomCategoryRules}): a built-in fact that names a category's
     * keyword is filed under it, and a first-person statement that made no built-in fact but names one becomes a fact
     * of the category (and, like any fact, no episode). Without categories ({@link TenantPolicy#none}) the rules above
     * alone.
     *
     * @param conversation a validated conversation
     * @param profile the user's profile or null; nothing is extracted when memory is turned off
     * @param policy the tenant's settings at the conversation's time
     * @return facts and episodes in message order (a turn's facts before its episode, a reply's exchange after the
     *     turn it answers), possibly empty; {@value #NAME}; no LLM usage
     */
    @Override
    public Extraction extract(final ConversationCompleted conversation, final UserProfile profile,
                              final TenantPolicy policy) {
        return new Extraction(NAME, memories(conversation, profile, policy), Extraction.Usage.NONE);
    }

    private List<ExtractedMemory> memories(final ConversationCompleted conversation, final UserProfile profile,
                                           final TenantPolicy policy) {
        if (profile != null && !profile.getMemoryEnabled()) {
            return List.of();
        }
        final Map<String, ExtractedMemory> byContent = new LinkedHashMap<>();
        final List<String> medications = profile == null ? new ArrayList<>() : new ArrayList<>(profile.getFacts().values()
            .stream().filter(f -> f.getKey().startsWith("medication:")).map(f -> f.getValue()).toList());
        final List<Message> messages = conversation.getMessages();
        for (int i = 0; i < messages.size(); i++) {
            final Message message = messages.get(i);
            final Message before = i > 0 ? messages.get(i - 1) : null;
            final List<ExtractedMemory> memories;
            if (isRole(message, USER_ROLE)) {
                memories = fromTurn(message, before != null && isRole(before, ASSISTANT_ROLE) ? before : null, policy,
                    medications, conversation.getAgentId());
            } else if (exchanges && isRole(message, ASSISTANT_ROLE) && before != null && isRole(before, USER_ROLE)) {
                memories = fromReply(before, message);
            } else {
                memories = List.of();
            }
            for (final ExtractedMemory memory : memories) {
                byContent.merge(MemoryIds.normalize(memory.content()), memory, RuleBasedExtractor::merge);
            }
        }
        return List.copyOf(byContent.values());
    }

    private static boolean isRole(final Message message, final String role) {
        return role.equals(message.getRole().strip().toLowerCase(Locale.ROOT));
    }

    /** @return whether a fact is a medication the user takes (not a retraction) */
    private static boolean medication(final FactRules.Fact fact) {
        return !fact.negated() && fact.key().startsWith("medication:");
    }

    /**
     * @param message a user turn
     * @param asked the other party's message right before it, or null
     * @param policy the tenant's settings (its own categories)
     * @param medications the user's medications known so far (profile, then this conversation), the latest last: a
     *     dose said without its drug is of the latest ({@link DoseRules#resolve}); updated with the turn's
     * @param agent the conversation's agent or null: a name asked of it is its own ({@link IdentityRules#agentName})
     */
    private static List<ExtractedMemory> fromTurn(final Message message, final Message asked, final TenantPolicy policy,
                                                  final List<String> medications, final String agent) {
        final int index = message.getIndex();
        final Instant time = message.getTimestamp();
        final String language = Languages.detect(TurnHeuristics.withoutImage(message.getContent()));
        final Map<String, FactRules.Fact> facts = new LinkedHashMap<>();
        final Map<String, String> sentences = new LinkedHashMap<>();
        final Map<String, ExtractedMemory> custom = new LinkedHashMap<>();
        final List<String> substantive = new ArrayList<>();
        final String said = TurnHeuristics.withoutImage(message.getContent());
        // a user who types everything in lower case types names so too ("i live in oslo")
        final boolean lowercase = LowercaseNames.applies(said);
        final List<int[]> quoted = ReportedSpeech.othersQuotations(said);
        int at = 0;
        boolean first = true;
        for (final String sentence : TurnHeuristics.sentences(said)) {
            final int start = Math.max(at, said.indexOf(sentence, at));
            at = start + sentence.length();
            // "No, Ottawa now." to "Are you still living in Toronto?" says "I live in Ottawa."
            final String answer = first && asked != null ? Answers.restated(asked.getContent(), sentence) : null;
            first = false;
            List<FactRules.Fact> stated = answer != null ? FactRules.extract(answer)
                : FactRules.extract(lowercase ? LowercaseNames.capitalized(sentence) : sentence,
                    within(quoted, start, sentence.length()));
            // a tenant's own category takes what it names before the built-in medication rules ("I take 5 mg of
            // amlodipine daily" is the health tenant's medications fact, dose and all); other built-in facts stay first
            final Optional<ExtractedMemory> keyword = stated.stream().allMatch(RuleBasedExtractor::medication)
                ? CustomCategoryRules.fact(policy, sentence, index, time, language) : Optional.empty();
            if (keyword.isPresent()) {
                stated = List.of();
            }
            stated = knownMedications(stated, medications);
            keyword.ifPresent(k -> custom.put(k.key(), k));
            if (keyword.isEmpty() && stated.stream().noneMatch(FactRules::coversSentence)) {
                if (!TurnHeuristics.isSmallTalk(sentence) && !TurnHeuristics.isQuestion(sentence)) {
                    substantive.add(sentence);
                }
            }
            for (final FactRules.Fact fact : stated) {
                final FactRules.Fact earlier = facts.get(fact.key());
                // A later positive statement of the same key wins; a retraction never replaces a value
                // stated in the same turn (the new value already supersedes the old one downstream).
                if (earlier == null || !fact.negated()) {
                    facts.remove(fact.key());
                    facts.put(fact.key(), fact);
                    sentences.put(fact.key(), sentence);
                }
            }
        }
        final List<ExtractedMemory> out = new ArrayList<>();
        for (final FactRules.Fact made : facts.values()) {
            final FactRules.Fact f = IdentityRules.agentName(made, sentences.get(made.key()), agent);
            final ExtractedMemory fact = new ExtractedMemory(f.type(), f.category(), f.key(), f.value(), f.displayName(),
                NumberWords.toDigits(f.content()), f.negated(), f.importance(), f.confidence(), f.source(),
                List.of(index), time, language, List.of());
            out.add(CustomCategoryRules.file(policy, sentences.get(made.key()), f.key(), f.value())
                .map(c -> fact.withCustomCategory(c.name())).orElse(fact));
        }
        out.addAll(custom.values());
        if (!substantive.isEmpty()) {
            final Dated turn = Dated.of(message.getContent().strip(), time, language);
            final String question = asked == null ? null : Exchanges.questionOf(asked.getContent());
            final String content = question == null ? turn.text() : turn.text() + " (re: \"" + question + "\")";
            out.add(new ExtractedMemory(MemoryType.EPISODIC, null, null, null, null, content,
                false, TurnHeuristics.importance(substantive), EPISODIC_CONFIDENCE, MemorySource.EXPLICIT,
                List.of(index), time, language, turn.dates()));
        }
        return out;
    }

    /**
     * @param spans [start, end) spans of a turn
     * @param start where a sentence starts in the turn
     * @param length its length
     * @return the parts of the spans inside the sentence, relative to its start
     */
    private static List<int[]> within(final List<int[]> spans, final int start, final int length) {
        final List<int[]> out = new ArrayList<>();
        for (final int[] span : spans) {
            final int from = Math.max(span[0] - start, 0);
            final int to = Math.min(span[1] - start, length);
            if (from < to) {
                out.add(new int[] {from, to});
            }
        }
        return out;
    }

    /**
     * @param stated the facts of a sentence
     * @param medications the medications known so far, the latest last; the sentence's own are added (a retracted one
     *     removed)
     * @return the facts with a dose said without its drug given the latest drug, or dropped when none is known
     */
    private static List<FactRules.Fact> knownMedications(final List<FactRules.Fact> stated, final List<String> medications) {
        final List<FactRules.Fact> out = new ArrayList<>();
        for (final FactRules.Fact said : stated) {
            final FactRules.Fact fact = DoseRules.resolve(said, medications);
            if (fact == null) {
                continue;
            }
            if (fact.key().startsWith("medication:")) {
                medications.remove(fact.value());
                if (!fact.negated()) {
                    medications.add(fact.value());
                }
            }
            out.add(fact);
        }
        return out;
    }

    /**
     * An exchange: the user's turn and the assistant's reply to it, as one episode that says who said
     * what. Never a fact: what the assistant says is not a statement about the user.
     */
    private static List<ExtractedMemory> fromReply(final Message turn, final Message reply) {
        final String said = TurnHeuristics.withoutImage(reply.getContent()).strip();
        final List<String> substantive = new ArrayList<>();
        for (final String sentence : TurnHeuristics.sentences(said)) {
            if (!TurnHeuristics.isSmallTalk(sentence) && !TurnHeuristics.isQuestion(sentence)) {
                substantive.add(sentence);
            }
        }
        if (substantive.isEmpty() || !Exchanges.addsToTurn(turn.getContent(), substantive)) {
            return List.of();
        }
        final String language = Languages.detect(said + " " + TurnHeuristics.withoutImage(turn.getContent()));
        final Dated user = Dated.of(turn.getContent().strip(), turn.getTimestamp(), language);
        final Dated assistant = Dated.of(reply.getContent().strip(), turn.getTimestamp(), language);
        final List<String> dates = new ArrayList<>(user.dates());
        assistant.dates().stream().filter(d -> !dates.contains(d)).forEach(dates::add);
        final String content = new MemoryText.Exchange(user.text(), assistant.text()).content();
        return List.of(new ExtractedMemory(MemoryType.EPISODIC, null, null, null, Exchanges.displayName(said), content,
            false, TurnHeuristics.importance(substantive), EPISODIC_CONFIDENCE, MemorySource.EXPLICIT,
            List.of(turn.getIndex(), reply.getIndex()), reply.getTimestamp(), language, dates));
    }

    /** A turn with its relative dates resolved: the annotated text and the ISO dates. */
    private record Dated(String text, List<String> dates) {
        static Dated of(final String text, final Instant said, final String language) {
            final List<RelativeDates.Resolved> resolved = RelativeDates.resolve(text, said, "en".equals(language));
            final List<String> dates = new ArrayList<>();
            resolved.stream().map(RelativeDates.Resolved::iso).filter(d -> !dates.contains(d)).forEach(dates::add);
            return new Dated(RelativeDates.annotate(text, resolved), dates);
        }
    }

    /** Two memories with the same content: one memory, every source message, the first time. */
    private static ExtractedMemory merge(final ExtractedMemory first, final ExtractedMemory again) {
        final List<Integer> indexes = new ArrayList<>(first.sourceMessageIndexes());
        for (final Integer i : again.sourceMessageIndexes()) {
            if (!indexes.contains(i)) {
                indexes.add(i);
            }
        }
        return new ExtractedMemory(first.type(), first.category(), first.key(), first.value(), first.displayName(),
            first.content(), first.negated(), Math.max(first.importance(), again.importance()),
            Math.max(first.confidence(), again.confidence()), first.source(), indexes, first.eventTime(),
            first.language(), first.eventDates(), first.customCategory());
    }
}
