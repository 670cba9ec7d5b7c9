package dev.engram.llm;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.avro.Message;
import dev.engram.avro.UserProfile;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.Extraction;
import dev.engram.port.MemoryExtractor;
import dev.engram.port.TenantPolicy;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link MemoryExtractor} backed by an LLM through {@link ChatCompletionsClient}.
 *
 * <p>Per conversation: nothing, and no call, when the profile says memory is off. Otherwise the
 * messages are cut by {@link ConversationChunker} to {@code llm.context.tokens}; each chunk is one
 * request: a system prompt ({@value #PROMPT_VERSION}) that asks for the memory model (docs/ARCHITECTURE.md) and says
 * what not to keep, the user's known profile facts (so they are not extracted again and a change
 * reuses the same key), and the chunk's messages numbered by their index. Conversations of 4 or more
 * messages also get an episodic summary (summary, topics, decisions) per chunk.
 *
 * <p>The answer is found with {@link TolerantJson} and validated item by item: an invalid item is
 * dropped and counted ({@code engram.llm.items.dropped}, tag {@code reason}); importance and
 * confidence above 1 and up to 100 are read as percentages, other out-of-range numbers drop the item;
 * evidence indexes outside the chunk are removed, and an item with none left is dropped.
 *
 * <p>Failure is never "nothing to remember": an answer without a JSON object with a {@code memories}
 * array (empty content, an empty fence, only a reasoning field, truncated JSON) counts
 * {@code engram.llm.parse.failures} and is asked again up to {@code llm.max.attempts}, then
 * {@link ExtractionException} (the conversation goes to the dead-letter topic with the reason). A
 * transient failure (429, 5xx, timeout) exhausts the client's retries; if by then the circuit breaker
 * is open, the LLM is down rather than this input bad, so the call waits for the breaker to close and
 * is tried again — nothing is dead-lettered or skipped because the server was down; while it waits, the
 * extraction topology's pending window fills and it stops pulling new conversations. A transient failure
 * with the breaker closed is tried for {@value #TRANSIENT_ROUNDS} rounds of retries, then dead-lettered.
 *
 * <p>{@link #name()} is {@code llm:<model>:<prompt version>}, recorded as {@code extractor} on every
 * candidate. Thread-safe: many conversations are extracted concurrently.
 */
public final class LlmMemoryExtractor implements MemoryExtractor {

    /** Version of the prompt and answer schema; change it whenever either changes. */
    public static final String PROMPT_VERSION = "extract-v2";
    /** Rounds of client retries on transient failures while the breaker stays closed. */
    public static final int TRANSIENT_ROUNDS = 2;
    /** Conversations with at least this many messages get an episodic summary. */
    public static final int SUMMARY_MIN_MESSAGES = 4;

    private static final Logger LOG = LoggerFactory.getLogger(LlmMemoryExtractor.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    static final String SYSTEM_PROMPT = """
        You extract long-term memories about the USER from a completed conversation, for a chatbot's memory.
        Answer with one JSON object and nothing else: {"memories": [...], "summary": {...} or null}.
        Each memory: {"type": "SEMANTIC" (a fact about the user) | "PROCEDURAL" (how the user wants to be served) |
        "EPISODIC" (a notable event in the user's life), "category": "ROLE" | "TECHNICAL" | "PREFERENCE" | "CONSTRAINT" |
        "CONTEXT" | "PERSONAL" (facts only, else null), "key": snake_case slot for facts, e.g. preferred_language, ide,
        cloud_provider, city, hometown, employer, role, diet, name, preference:<subject> (value like|dislike; "I prefer X"
        is a preference, not uses:<x>), uses:<tool>, hobby:<activity>, pet:<name>, family:<relation>:<name>,
        favorite:<kind> (value the favourite), response_style, and for safety facts (category CONSTRAINT, importance 0.9
        or more, one memory per item) allergy:<allergen>, intolerance:<substance>, condition:<condition>,
        medication:<medication>, avoids:<food>, accessibility:<need> (else null), "value": the fact's value, e.g. Python
        (null when key is null), "displayName": a short
        human label, "content": the memory as one sentence about the user in the third person, "importance": 0..1,
        "confidence": 0..1, "source": "EXPLICIT" (the user said it) | "INFERRED", "negated": true when the user retracts
        key=value ("I no longer use Jira"), "evidence": the [index] numbers of the messages that state it}.
        Keep only what the USER states about themself and would want remembered in later conversations.
        Do not keep: greetings, thanks, small talk, anything the assistant or system said, one-off trivia and questions,
        requests that only matter for this conversation, secrets such as passwords or card numbers.
        Facts listed as already known must not be extracted again unless the user changes or restates them; a change
        uses the same key. Use one memory per fact. If nothing is worth keeping, answer {"memories": []}.
        """;

    static final String SUMMARY_INSTRUCTION = "Also give \"summary\": {\"summary\": one or two sentences on what the "
        + "conversation was about, \"topics\": [short topics], \"decisions\": [decisions or plans the user made]}.";

    private final ChatCompletionsClient client;
    private final Counter parseFailures;
    private final MeterRegistry registry;
    private final String application;
    private final ObjectNode schema;

    /**
     * @param client the Chat Completions client (shared with other callers is fine: one breaker)
     * @param registry where {@code engram.llm.parse.failures} and {@code engram.llm.items.dropped} go
     * @param application value of the {@code application} tag
     */
    public LlmMemoryExtractor(final ChatCompletionsClient client, final MeterRegistry registry, final String application) {
        this.client = client;
        this.registry = registry;
        this.application = application;
        this.parseFailures = Counter.builder("engram.llm.parse.failures")
            .description("LLM answers without a usable JSON object").tag("application", application).register(registry);
        this.schema = ExtractionSchema.of(TenantPolicy.none(""));
    }

    @Override
    public String name() {
        return "llm:" + client.settings().model() + ":" + PROMPT_VERSION;
    }

    /** @return the client (its breaker is watched by the extraction topology) */
    public ChatCompletionsClient client() {
        return client;
    }


    /**
     * Extracts under the tenant's settings (none: {@link TenantPolicy#none}): its own categories (name,
     * description, keywords) are offered beside the built-in ones in the prompt and the answer schema's
     * {@code category} enum, a built-in category it turned off is neither offered nor accepted, and its extraction
     * instructions follow the system prompt ({@link #systemPrompt}). The usage is every answered request's tokens.
     *
     * @param conversation a validated conversation
     * @param profile the user's profile or null
     * @param policy the tenant's settings at the conversation's time
     * @return the memories, {@link #name()}, the LLM usage
     */
    @Override
    public Extraction extract(final ConversationCompleted conversation, final UserProfile profile,
                              final TenantPolicy policy) {
        if (profile != null && !profile.getMemoryEnabled()) {
            return new Extraction(name(), List.of(), Extraction.Usage.NONE);
        }
        final boolean summarize = conversation.getMessages().size() >= SUMMARY_MIN_MESSAGES;
        final Map<String, ExtractedMemory> byContent = new LinkedHashMap<>();
        final Extraction.Usage[] usage = {Extraction.Usage.NONE};
        final ObjectNode answerSchema = policy.categories().isEmpty() && policy.disabled().isEmpty() ? schema
            : ExtractionSchema.of(policy);
        for (final List<ConversationChunker.Part> chunk
            : ConversationChunker.chunks(conversation.getMessages(), client.settings().contextTokens())) {
            for (final ExtractedMemory memory : extractChunk(conversation, chunk, profile, summarize, policy,
                answerSchema, usage)) {
                byContent.putIfAbsent(memory.content().strip().toLowerCase(Locale.ROOT), memory);
            }
        }
        return new Extraction(name(), List.copyOf(byContent.values()), usage[0]);
    }

    /**
     * The system prompt of one request: the memory model, the summary instruction for a long conversation, then the
     * tenant's categories (each with its description and keywords), the built-in categories it turned off and its own
     * instructions.
     *
     * @param summarize whether the conversation gets an episodic summary
     * @param policy the tenant's settings
     * @return the prompt
     */
    static String systemPrompt(final boolean summarize, final TenantPolicy policy) {
        final StringBuilder out = new StringBuilder(SYSTEM_PROMPT);
        if (summarize) {
            out.append('\n').append(SUMMARY_INSTRUCTION);
        }
        if (!policy.categories().isEmpty()) {
            out.append("\nThis platform also has its own fact categories; use the name as \"category\" for a fact that "
                + "belongs to one, and a key \"<name>:<subject>\":\n");
            for (final TenantPolicy.Category c : policy.categories()) {
                out.append("- ").append(c.name()).append(": ").append(c.description());
                if (!c.keywords().isEmpty()) {
                    out.append(" (e.g. ").append(String.join(", ", c.keywords())).append(')');
                }
                out.append('\n');
            }
        }
        if (!policy.disabled().isEmpty()) {
            out.append("\nDo not keep facts of these categories: ").append(policy.disabled().stream().map(Enum::name)
                .sorted().collect(java.util.stream.Collectors.joining(", "))).append(".\n");
        }
        if (policy.instructions() != null) {
            out.append("\nInstructions from the platform:\n").append(policy.instructions()).append('\n');
        }
        return out.toString();
    }

    private List<ExtractedMemory> extractChunk(final ConversationCompleted conversation,
                                               final List<ConversationChunker.Part> chunk, final UserProfile profile,
                                               final boolean summarize, final TenantPolicy policy,
                                               final ObjectNode answerSchema, final Extraction.Usage[] usage) {
        final List<ChatCompletionsClient.Message> messages = List.of(
            new ChatCompletionsClient.Message("system", systemPrompt(summarize, policy)),
            new ChatCompletionsClient.Message("user", ExtractionPrompt.user(chunk, profile)));
        String reason = "no attempt";
        for (int attempt = 1; attempt <= client.settings().maxAttempts(); attempt++) {
            final ChatCompletionsClient.Completion completion = call(messages, answerSchema);
            usage[0] = usage[0].plus(new Extraction.Usage(1, completion.promptTokens(), completion.completionTokens()));
            final JsonNode answer = TolerantJson.firstObject(completion.content()).orElse(null);
            if (answer != null && answer.path("memories").isArray()) {
                return validate(conversation, chunk, answer, policy);
            }
            parseFailures.increment();
            reason = completion.content() == null || completion.content().isBlank()
                ? (completion.reasoning() != null ? "empty content (text only in the reasoning field)" : "empty content")
                : answer == null ? "no complete JSON object in the answer (finish_reason="
                    + completion.finishReason() + ", " + completion.content().length() + " chars)"
                : "JSON object without a memories array";
            LOG.debug("Unusable LLM answer for conversation {} (attempt {}): {}", conversation.getConversationId(),
                attempt, reason);
        }
        throw new ExtractionException("LLM answer unusable after " + client.settings().maxAttempts() + " attempts: "
            + reason);
    }

    private ChatCompletionsClient.Completion call(final List<ChatCompletionsClient.Message> messages,
                                                  final ObjectNode answerSchema) {
        int rounds = 0;
        while (true) {
            try {
                return client.complete(messages, "engram_memories", answerSchema);
            } catch (CallNotPermittedException e) {
                awaitBreaker();
            } catch (LlmException e) {
                if (!e.transientFailure()) {
                    throw new ExtractionException("LLM call failed: " + e.getMessage(), e);
                }
                if (client.breaker().getState() == io.github.resilience4j.circuitbreaker.CircuitBreaker.State.OPEN) {
                    awaitBreaker();
                } else if (++rounds >= TRANSIENT_ROUNDS) {
                    throw new ExtractionException("LLM call failed after " + rounds + " rounds of "
                        + client.settings().maxAttempts() + " attempts: " + e.getMessage(), e);
                }
            }
        }
    }

    private void awaitBreaker() {
        try {
            client.awaitPermission();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExtractionException("interrupted while the LLM circuit breaker was open", e);
        }
    }

    private List<ExtractedMemory> validate(final ConversationCompleted conversation,
                                           final List<ConversationChunker.Part> chunk, final JsonNode answer,
                                           final TenantPolicy policy) {
        final Map<Integer, Instant> times = new TreeMap<>();
        final Set<Integer> inChunk = new LinkedHashSet<>();
        for (final ConversationChunker.Part part : chunk) {
            inChunk.add(part.index());
        }
        for (final Message message : conversation.getMessages()) {
            times.put(message.getIndex(), message.getTimestamp());
        }
        final List<ExtractedMemory> out = new ArrayList<>();
        for (final JsonNode item : answer.path("memories")) {
            try {
                out.add(item(item, inChunk, times, conversation.getCompletedAt(), policy));
            } catch (Invalid e) {
                dropped(e.getMessage());
            }
        }
        final JsonNode summary = answer.path("summary");
        if (summary.isObject() && summary.path("summary").isTextual() && !summary.path("summary").asText().isBlank()
            && conversation.getMessages().size() >= SUMMARY_MIN_MESSAGES) {
            final StringBuilder content = new StringBuilder(summary.path("summary").asText().strip());
            appendList(content, " Topics: ", summary.path("topics"));
            appendList(content, " Decisions: ", summary.path("decisions"));
            final int last = chunk.get(chunk.size() - 1).index();
            out.add(new ExtractedMemory(MemoryType.EPISODIC, null, null, null, ExtractedMemory.SUMMARY_DISPLAY_NAME,
                content.toString(), false, 0.5, 0.8, MemorySource.INFERRED, List.copyOf(inChunk),
                times.getOrDefault(last, conversation.getCompletedAt())));
        }
        return out;
    }

    private static void appendList(final StringBuilder content, final String label, final JsonNode list) {
        final List<String> items = new ArrayList<>();
        for (final JsonNode node : list) {
            if (node.isTextual() && !node.asText().isBlank()) {
                items.add(node.asText().strip());
            }
        }
        if (!items.isEmpty()) {
            content.append(label).append(String.join("; ", items)).append('.');
        }
    }

    private ExtractedMemory item(final JsonNode item, final Set<Integer> inChunk, final Map<Integer, Instant> times,
                                 final Instant completedAt, final TenantPolicy policy) throws Invalid {
        if (!item.isObject()) {
            throw new Invalid("not_an_object");
        }
        final String content = text(item, "content");
        if (content == null) {
            throw new Invalid("missing_content");
        }
        final MemoryType type = enumValue(MemoryType.class, text(item, "type"), "bad_type");
        if (type == null) {
            throw new Invalid("bad_type");
        }
        final String categoryText = text(item, "category");
        final String custom = categoryText == null ? null
            : policy.category(categoryText.strip().toLowerCase(Locale.ROOT)).map(TenantPolicy.Category::name).orElse(null);
        final FactCategory category = custom != null ? null : enumValue(FactCategory.class, categoryText, "bad_category");
        String key = text(item, "key");
        final String value = text(item, "value");
        if (key != null) {
            key = key.strip().toLowerCase(Locale.ROOT).replaceAll("[\\s-]+", "_");
        }
        if ((key == null) != (value == null)) {
            throw new Invalid("key_without_value");
        }
        if (key != null && type == MemoryType.EPISODIC) {
            throw new Invalid("episodic_with_key");
        }
        final double importance = unit(item.path("importance"), "importance");
        final double confidence = unit(item.path("confidence"), "confidence");
        final String sourceText = text(item, "source");
        final MemorySource source = sourceText == null ? MemorySource.EXPLICIT
            : enumValue(MemorySource.class, sourceText, "bad_source");
        if (source == null || source == MemorySource.CORRECTED) {
            throw new Invalid("bad_source");
        }
        final List<Integer> evidence = new ArrayList<>();
        for (final JsonNode index : item.path("evidence")) {
            if (index.canConvertToInt() && inChunk.contains(index.asInt()) && !evidence.contains(index.asInt())) {
                evidence.add(index.asInt());
            }
        }
        if (evidence.isEmpty()) {
            throw new Invalid("no_valid_evidence");
        }
        final Instant eventTime = times.getOrDefault(evidence.get(0), completedAt);
        final ExtractedMemory memory = new ExtractedMemory(type, category, key, value, text(item, "displayName"),
            content.strip(), item.path("negated").asBoolean(false), importance, confidence, source, evidence, eventTime);
        return custom != null && key != null ? memory.withCustomCategory(custom) : memory;
    }

    private static String text(final JsonNode item, final String field) {
        final JsonNode node = item.path(field);
        if (node.isNull() || node.isMissingNode()) {
            return null;
        }
        final String text = node.isValueNode() ? node.asText() : null;
        return text == null || text.isBlank() || "null".equals(text) ? null : text;
    }

    private static <E extends Enum<E>> E enumValue(final Class<E> type, final String text, final String reason)
        throws Invalid {
        if (text == null) {
            return null;
        }
        try {
            return Enum.valueOf(type, text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new Invalid(reason);
        }
    }

    private static double unit(final JsonNode node, final String field) throws Invalid {
        if (!node.isNumber() && !(node.isTextual() && node.asText().matches("\\s*-?\\d+(\\.\\d+)?\\s*"))) {
            throw new Invalid("missing_" + field);
        }
        final double value = node.asDouble();
        if (Double.isNaN(value) || value < 0 || value > 100) {
            throw new Invalid(field + "_out_of_range");
        }
        return value > 1 ? value / 100.0 : value;
    }

    private void dropped(final String reason) {
        Counter.builder("engram.llm.items.dropped").description("Invalid memories in LLM answers, dropped one by one")
            .tag("application", application).tag("reason", reason).register(registry).increment();
    }

    /** An invalid item; the message is the counted drop reason. */
    private static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;

        Invalid(final String reason) {
            super(reason, null, false, false);
        }
    }
}
