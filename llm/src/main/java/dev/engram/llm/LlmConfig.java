package dev.engram.llm;

import java.util.ArrayList;
import java.util.List;

import dev.engram.config.ConfigFields;
import dev.engram.config.ConfigFields.Importance;
import dev.engram.config.ConfigFields.Range;
import dev.engram.config.ConfigFields.Type;
import dev.engram.config.ConfigFields.ValidString;
import dev.engram.config.ConfigFinding;
import dev.engram.config.ConfigGroup;
import dev.engram.config.ConfigValues;
import dev.engram.config.CoreConfig;

/**
 * The settings the LLM adapter owns ({@link ConfigGroup} {@code llm}): the chat completions server, its limits, retries
 * and circuit breaker, and what the extractor and the consolidator ask of it. Registered as a service, composed onto
 * the core definition by {@code EngramConfig}; the keys are this class's constants.
 */
public final class LlmConfig implements ConfigGroup {

    /** The extractor's transaction timeout with an LLM (ms), unless a {@code kafka.*} setting says otherwise. */
    public static final int LLM_TRANSACTION_TIMEOUT_MS = 300_000;
    /** The setting that overrides {@link #LLM_TRANSACTION_TIMEOUT_MS}. */
    public static final String TRANSACTION_TIMEOUT_KEY = CoreConfig.KAFKA_PREFIX + "producer.transaction.timeout.ms";

    public static final String LLM_BASE_URL = "llm.base.url";
    public static final String LLM_MODEL = "llm.model";
    public static final String LLM_API_KEY = "llm.api.key";
    public static final String LLM_TIMEOUT_MS = "llm.timeout.ms";
    public static final String LLM_MAX_TOKENS = "llm.max.tokens";
    public static final String LLM_TEMPERATURE = "llm.temperature";
    public static final String LLM_MAX_CONCURRENCY = "llm.max.concurrency";
    public static final String LLM_MAX_ATTEMPTS = "llm.max.attempts";
    public static final String LLM_BACKOFF_MS = "llm.backoff.ms";
    public static final String LLM_CONTEXT_TOKENS = "llm.context.tokens";
    public static final String LLM_RESPONSE_FORMAT = "llm.response.format";
    public static final String LLM_BREAKER_OPEN_MS = "llm.breaker.open.ms";
    public static final String LLM_JUDGE = "llm.judge.enabled";
    public static final String LLM_EPISODES = "llm.extraction.episodes";
    public static final String LLM_MERGE = "llm.merge.enabled";

    /** Called by the service loader ({@code META-INF/services/dev.engram.config.ConfigGroup}). */
    public LlmConfig() {
        // the keys are constants; the declaration is {@link #define}
    }

    @Override
    public String name() {
        return "llm";
    }

    @Override
    public void define(final ConfigFields fields) {
        fields
            .define(LLM_BASE_URL, Type.STRING, "", Importance.HIGH,
                "OpenAI-compatible Chat Completions base URL including the version (e.g. http://localhost:11434/v1 for Ollama, "
                    + "https://api.openai.com/v1); empty = the offline rule-based extractor and key/value judge.")
            .define(LLM_MODEL, Type.STRING, "gpt-4o-mini", Importance.HIGH,
                "Model name sent to the LLM server; recorded with the prompt version on every candidate.")
            .define(LLM_API_KEY, Type.PASSWORD, "", Importance.HIGH,
                "Bearer token for the LLM server; empty sends no Authorization header (Ollama, vLLM, llama.cpp).")
            .define(LLM_TIMEOUT_MS, Type.INT, 30_000, Range.atLeast(1), Importance.MEDIUM,
                "Timeout of one LLM call in ms (a timeout is retried like a 5xx).")
            .define(LLM_MAX_TOKENS, Type.INT, 1024, Range.atLeast(16), Importance.MEDIUM,
                "max_tokens of every LLM request.")
            .define(LLM_TEMPERATURE, Type.DOUBLE, 0.0, Range.between(0.0, 2.0), Importance.LOW,
                "temperature of every LLM request (0 = as deterministic as the server allows).")
            .define(LLM_MAX_CONCURRENCY, Type.INT, 32, Range.atLeast(1), Importance.MEDIUM,
                "LLM calls in flight per extractor instance; also the most conversations a task holds pending.")
            .define(LLM_MAX_ATTEMPTS, Type.INT, 4, Range.atLeast(1), Importance.MEDIUM,
                "Attempts per LLM call on 429, 5xx, timeouts and unparseable answers before the conversation goes to the dead-letter topic.")
            .define(LLM_BACKOFF_MS, Type.INT, 500, Range.atLeast(0), Importance.LOW,
                "First retry wait in ms, doubled per attempt; a Retry-After header from the server wins.")
            .define(LLM_CONTEXT_TOKENS, Type.INT, 6000, Range.atLeast(200), Importance.MEDIUM,
                "Token budget of the conversation part of one extraction request; longer conversations are chunked.")
            .define(LLM_RESPONSE_FORMAT, Type.STRING, "json_schema", ValidString.in("json_schema", "json_object"),
                Importance.LOW, "Structured output mode; json_schema falls back to json_object by itself when the server rejects it.")
            .define(LLM_BREAKER_OPEN_MS, Type.INT, 10_000, Range.atLeast(1), Importance.LOW,
                "How long the LLM circuit breaker stays open (no calls, no new work pulled) before a probe call.")
            .define(LLM_JUDGE, Type.BOOLEAN, true, Importance.LOW,
                "With llm.base.url set: ask the LLM about 0.7-0.9 similar pairs that share no fact key (else the key/value judge).")
            .define(LLM_EPISODES, Type.BOOLEAN, true, Importance.MEDIUM,
                "With llm.base.url set: also store the rule-based extractor's episodes (the user's turns as said) beside the "
                    + "LLM's facts and summaries (better LoCoMo recall at every k and token budget, no extra LLM tokens); "
                    + "false = the LLM's memories only (mem0-style).")
            .define(LLM_MERGE, Type.BOOLEAN, false, Importance.LOW,
                "With llm.base.url set: the LLM writes the content of memories merged by the consolidation pass (else the "
                    + "members' contents are joined); off by default because the pass runs inside one transaction.");
    }

    /**
     * Warned: with {@code llm.base.url} set, one LLM call's worst case ({@code llm.max.attempts} ×
     * {@code llm.timeout.ms} + the backoffs {@code llm.backoff.ms} × (2<sup>attempts−1</sup> − 1), doubling as the
     * client does) longer than the extractor's transaction timeout ({@link #LLM_TRANSACTION_TIMEOUT_MS} unless
     * {@code kafka.producer.transaction.timeout.ms} is set): the broker aborts the transaction before the
     * conversation is extracted or dead-lettered, and the task re-runs it again and again.
     */
    @Override
    public List<ConfigFinding> check(final ConfigValues config) {
        final List<ConfigFinding> findings = new ArrayList<>();
        if (config.getString(LLM_BASE_URL).isBlank()) {
            return findings;
        }
        final int attempts = config.getInt(LLM_MAX_ATTEMPTS);
        final long worst = (long) attempts * config.getInt(LLM_TIMEOUT_MS)
            + (long) config.getInt(LLM_BACKOFF_MS) * ((1L << Math.min(attempts - 1, 30)) - 1);
        // the app sets the producer-prefixed timeout, which wins over an unprefixed kafka.transaction.timeout.ms
        final Object configured = config.originals().get(TRANSACTION_TIMEOUT_KEY);
        final long timeout;
        try {
            timeout = configured == null ? LLM_TRANSACTION_TIMEOUT_MS : Long.parseLong(configured.toString().strip());
        } catch (NumberFormatException e) {
            return findings; // Kafka's own validation names the key at start
        }
        if (worst > timeout) {
            findings.add(ConfigFinding.warn("one LLM call may take " + worst + " ms with its retries, longer than the extractor's "
                + "transaction timeout of " + timeout + " ms: the broker aborts the transaction first and the "
                + "conversation is re-run instead of extracted or dead-lettered", LLM_MAX_ATTEMPTS,
                LLM_TIMEOUT_MS, LLM_BACKOFF_MS, TRANSACTION_TIMEOUT_KEY));
        }
        return findings;
    }
}
