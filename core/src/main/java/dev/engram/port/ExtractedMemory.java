package dev.engram.port;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;

/**
 * One memory proposed by a {@link MemoryExtractor}, before embedding.
 *
 * @param type EPISODIC, SEMANTIC or PROCEDURAL
 * @param category fact category, null for episodic memories
 * @param key fact slot (snake_case, e.g. {@code preferred_language}), null for episodic memories
 * @param value fact value (e.g. {@code Kotlin}), null for episodic memories
 * @param displayName a human label for the fact, e.g. "Preferred language"; may be null
 * @param content the memory as one sentence in the third person or as said
 * @param negated true when the statement retracts {@code key=value} ("I no longer use Jira")
 * @param importance 0..1
 * @param confidence 0..1
 * @param source EXPLICIT or INFERRED
 * @param sourceMessageIndexes indexes of the messages that state it, non-empty
 * @param eventTime when it was said (the message timestamp)
 * @param language the content's language, a BCP 47 primary subtag ({@code en}, {@code zh}, …), or null when unknown
 * @param eventDates absolute dates the content refers to, ISO 8601 dates or intervals
 *     ({@code 2023-05-15/2023-05-21}), resolved against the message time; empty when none
 * @param customCategory the tenant's own category of a fact ({@link TenantPolicy.Category#name()}, e.g.
 *     {@code medications}), or null; a fact of a custom category has no built-in {@code category}
 */
public record ExtractedMemory(
    MemoryType type,
    FactCategory category,
    String key,
    String value,
    String displayName,
    String content,
    boolean negated,
    double importance,
    double confidence,
    MemorySource source,
    List<Integer> sourceMessageIndexes,
    Instant eventTime,
    String language,
    List<String> eventDates,
    String customCategory) {

    /** @throws NullPointerException or IllegalArgumentException on a missing or out-of-range field */
    public ExtractedMemory {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(eventTime, "eventTime");
        sourceMessageIndexes = List.copyOf(sourceMessageIndexes);
        eventDates = eventDates == null ? List.of() : List.copyOf(eventDates);
        if (importance < 0 || importance > 1 || confidence < 0 || confidence > 1) {
            throw new IllegalArgumentException("importance and confidence must be within 0..1");
        }
        if ((key == null) != (value == null)) {
            throw new IllegalArgumentException("key and value go together");
        }
    }

    /**
     * Display name of a conversation's episodic summary. A summary stands for its own conversation
     * only: the consolidator never reinforces, judges or merges one with another memory (the summaries
     * of two sessions between the same people read alike, yet are different episodes).
     */
    public static final String SUMMARY_DISPLAY_NAME = "Conversation summary";

    /**
     * Display name of an observation: a memory the consolidator writes, stating together a user's statements
     * on one topic (Park et al., "Generative Agents", UIST 2023, call such higher-level memories reflections).
     * It is derived: never a dedup or merge target, rebuilt when its statements change.
     */
    public static final String OBSERVATION_DISPLAY_NAME = "Observation";

    /**
     * Display name of a topic list: an observation that lists the user's values for one topic (pets, activities,
     * places visited, …) with every statement that names one as its sources (the consolidator's {@code TopicLists}).
     * Derived like any observation.
     */
    public static final String TOPIC_LIST_DISPLAY_NAME = "Topic list";

    /** Display name of an exchange episode (a user turn with the assistant's reply) whose reply recommends something. */
    public static final String EXCHANGE_RECOMMENDATION = "Assistant recommendation";

    /** Display name of any other exchange episode (a user turn with the assistant's reply, verbatim). */
    public static final String EXCHANGE_REPLY = "Assistant reply";

    /**
     * @param type the memory's type
     * @param displayName its display name, or null
     * @return true for an observation (SEMANTIC, {@link #OBSERVATION_DISPLAY_NAME} or {@link #TOPIC_LIST_DISPLAY_NAME}):
     *     a memory the consolidator derives from the user's statements
     */
    public static boolean isObservation(final MemoryType type, final String displayName) {
        return type == MemoryType.SEMANTIC
            && (OBSERVATION_DISPLAY_NAME.equals(displayName) || TOPIC_LIST_DISPLAY_NAME.equals(displayName));
    }

    /**
     * @param type the memory's type
     * @param displayName its display name, or null
     * @return true for a topic list (SEMANTIC, {@link #TOPIC_LIST_DISPLAY_NAME}), one kind of observation
     */
    public static boolean isTopicList(final MemoryType type, final String displayName) {
        return type == MemoryType.SEMANTIC && TOPIC_LIST_DISPLAY_NAME.equals(displayName);
    }

    /**
     * @param displayName a memory's display name, or null
     * @return true for an exchange episode ({@link #EXCHANGE_REPLY}, {@link #EXCHANGE_RECOMMENDATION})
     */
    public static boolean isExchange(final String displayName) {
        return EXCHANGE_REPLY.equals(displayName) || EXCHANGE_RECOMMENDATION.equals(displayName);
    }

    /**
     * @param type the memory's type
     * @param displayName its display name, or null
     * @return true for a conversation summary (EPISODIC, {@link #SUMMARY_DISPLAY_NAME})
     */
    public static boolean isSummary(final MemoryType type, final String displayName) {
        return type == MemoryType.EPISODIC && SUMMARY_DISPLAY_NAME.equals(displayName);
    }

    /**
     * A memory of no custom category.
     *
     * @see #ExtractedMemory(MemoryType, FactCategory, String, String, String, String, boolean, double, double,
     *     MemorySource, List, Instant, String, List, String)
     */
    public ExtractedMemory(final MemoryType type, final FactCategory category, final String key, final String value,
                           final String displayName, final String content, final boolean negated,
                           final double importance, final double confidence, final MemorySource source,
                           final List<Integer> sourceMessageIndexes, final Instant eventTime, final String language,
                           final List<String> eventDates) {
        this(type, category, key, value, displayName, content, negated, importance, confidence, source,
            sourceMessageIndexes, eventTime, language, eventDates, null);
    }

    /**
     * @param name a custom category's name (a fact of it has no built-in category), or null
     * @return this memory in that custom category
     */
    public ExtractedMemory withCustomCategory(final String name) {
        return new ExtractedMemory(type, name == null ? category : null, key, value, displayName, content, negated,
            importance, confidence, source, sourceMessageIndexes, eventTime, language, eventDates, name);
    }

    /**
     * A memory without a detected language or dates (the LLM extractor and hand-made candidates).
     *
     * @see #ExtractedMemory(MemoryType, FactCategory, String, String, String, String, boolean, double, double,
     *     MemorySource, List, Instant, String, List)
     */
    public ExtractedMemory(final MemoryType type, final FactCategory category, final String key, final String value,
                           final String displayName, final String content, final boolean negated,
                           final double importance, final double confidence, final MemorySource source,
                           final List<Integer> sourceMessageIndexes, final Instant eventTime) {
        this(type, category, key, value, displayName, content, negated, importance, confidence, source,
            sourceMessageIndexes, eventTime, null, List.of(), null);
    }

    /**
     * The key prefix of a name the user asked one agent to call them ("Call me Captain" in a conversation with an
     * {@code agentId}): {@code nickname:<agentId>}. Such a fact is that agent's own, not the user's name every agent
     * shares: it keeps the conversation's agent, stays out of the profile, and supersedes only the same agent's.
     */
    public static final String AGENT_NICKNAME = "nickname:";

    /**
     * Between a shared key and the agent that owns a fact of it ({@code city@storybot}): a fact told to one agent that
     * would change the user's shared profile is that agent's own, as a name asked of it is ({@code AgentFacts}).
     */
    public static final String AGENT_KEY = "@";

    /**
     * @param key a fact's key, may be null
     * @return whether the fact belongs to the agent of its conversation rather than to every agent
     *     ({@link #AGENT_NICKNAME}, {@link #AGENT_KEY})
     */
    public static boolean agentScoped(final String key) {
        return key != null && (key.startsWith(AGENT_NICKNAME) || key.contains(AGENT_KEY));
    }

    /** @return true when this is a keyed fact (semantic or procedural with key and value) */
    public boolean isFact() {
        return key != null;
    }
}
