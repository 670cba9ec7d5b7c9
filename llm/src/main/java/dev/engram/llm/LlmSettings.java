package dev.engram.llm;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

import dev.engram.config.EngramConfig;

/**
 * The settings of the LLM client, read from {@link EngramConfig} ({@code llm.*}).
 *
 * @param baseUrl the OpenAI-compatible base URL up to and including the version, e.g.
 *     {@code https://api.openai.com/v1} or {@code http://localhost:11434/v1}; {@code /chat/completions} is appended
 * @param model the model name sent with every request and recorded on every candidate
 * @param apiKey the bearer token, or empty for servers without authentication (Ollama, vLLM, llama.cpp)
 * @param timeout per-call timeout (connect and response)
 * @param maxTokens {@code max_tokens} of every request
 * @param temperature {@code temperature} of every request, 0..2
 * @param maxConcurrency LLM calls in flight per extractor instance (threads of the extraction pool)
 * @param maxAttempts attempts per call on 429, 5xx, timeouts and unparseable answers (1 = no retry)
 * @param backoff first retry wait; doubles per attempt, unless the server sends {@code Retry-After}
 * @param contextTokens the token budget of one request's conversation part (chunking)
 * @param responseFormat {@code json_schema} or {@code json_object}
 * @param breakerOpen how long the circuit breaker stays open before it lets a probe through
 */
public record LlmSettings(URI baseUrl, String model, String apiKey, Duration timeout, int maxTokens,
                          double temperature, int maxConcurrency, int maxAttempts, Duration backoff,
                          int contextTokens, String responseFormat, Duration breakerOpen) {

    /**
     * @param config the Engram config
     * @return the settings, or empty when {@code llm.base.url} is unset (the offline rule-based default)
     */
    public static Optional<LlmSettings> from(final EngramConfig config) {
        final String base = config.getString(LlmConfig.LLM_BASE_URL);
        if (base == null || base.isBlank()) {
            return Optional.empty();
        }
        final String key = config.getPassword(LlmConfig.LLM_API_KEY) == null ? ""
            : config.getPassword(LlmConfig.LLM_API_KEY).value();
        return Optional.of(new LlmSettings(URI.create(base.endsWith("/") ? base.substring(0, base.length() - 1) : base),
            config.getString(LlmConfig.LLM_MODEL), key,
            Duration.ofMillis(config.getInt(LlmConfig.LLM_TIMEOUT_MS)), config.getInt(LlmConfig.LLM_MAX_TOKENS),
            config.getDouble(LlmConfig.LLM_TEMPERATURE), config.getInt(LlmConfig.LLM_MAX_CONCURRENCY),
            config.getInt(LlmConfig.LLM_MAX_ATTEMPTS), Duration.ofMillis(config.getInt(LlmConfig.LLM_BACKOFF_MS)),
            config.getInt(LlmConfig.LLM_CONTEXT_TOKENS), config.getString(LlmConfig.LLM_RESPONSE_FORMAT),
            Duration.ofMillis(config.getInt(LlmConfig.LLM_BREAKER_OPEN_MS))));
    }

    /**
     * @param baseUrl base URL
     * @param model model name
     * @return settings with the defaults of {@link EngramConfig} for the rest (for tests and the benchmark)
     */
    public static LlmSettings of(final String baseUrl, final String model) {
        return from(EngramConfig.defaults().with(java.util.Map.of(LlmConfig.LLM_BASE_URL, baseUrl,
            LlmConfig.LLM_MODEL, model))).orElseThrow();
    }

    /**
     * @param newTimeout timeout
     * @param attempts max attempts
     * @param newBackoff first backoff
     * @param open breaker open time
     * @return a copy with these resilience settings
     */
    public LlmSettings withResilience(final Duration newTimeout, final int attempts, final Duration newBackoff,
                                      final Duration open) {
        return new LlmSettings(baseUrl, model, apiKey, newTimeout, maxTokens, temperature, maxConcurrency, attempts,
            newBackoff, contextTokens, responseFormat, open);
    }

    /**
     * @param tokens chunk budget
     * @return a copy with this context budget
     */
    public LlmSettings withContextTokens(final int tokens) {
        return new LlmSettings(baseUrl, model, apiKey, timeout, maxTokens, temperature, maxConcurrency, maxAttempts,
            backoff, tokens, responseFormat, breakerOpen);
    }
}
