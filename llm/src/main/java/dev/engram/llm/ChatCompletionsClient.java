package dev.engram.llm;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client of the OpenAI Chat Completions API ({@code POST {base}/chat/completions}), as spoken by
 * OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp server and LM Studio. java.net.http and Jackson; no SDK.
 *
 * <p>Resilience (resilience4j): every attempt goes through one {@link CircuitBreaker} shared by all
 * callers of this client; failed attempts of a transient kind (429, 5xx, timeout, connection) are
 * retried by a {@link Retry} with exponential backoff from {@code llm.backoff.ms}, or after the
 * server's {@code Retry-After} (seconds or an HTTP date) when it sends one. A call refused by the open
 * breaker is not retried: {@link CallNotPermittedException} goes to the caller, who waits for the
 * breaker instead of burning attempts ({@link #awaitPermission()}).
 *
 * <p>Structured output: with {@code llm.response.format=json_schema} the request carries
 * {@code response_format: {type: json_schema, json_schema: {name, strict, schema}}}; a server that
 * answers 400 to that (older vLLM, llama.cpp builds) is asked again with {@code json_object}, and this
 * client keeps using json_object from then on (a 422, as some servers answer a schema they cannot
 * compile, is taken the same way).
 *
 * <p>Answers as servers really send them: the text in {@code content}, thoughts beside it in
 * {@code reasoning_content} (vLLM, llama.cpp, DeepSeek) or {@code reasoning} (Ollama, OpenRouter) and
 * kept apart; a reasoning model served without a reasoning parser puts {@code <think>…</think>} in front
 * of the content, which is moved to {@code reasoning} so JSON in the thoughts is never taken for the
 * answer. A server that sends no {@code usage} (some llama.cpp and Ollama builds, streaming proxies) gets
 * its tokens estimated as ⌈chars / 4⌉ (+4 per prompt message) and counted on
 * {@code engram.llm.usage.missing}.
 *
 * <p>Meters (tag {@code application}): {@code engram.llm.calls} (tag {@code outcome}: ok or the
 * {@link LlmException.Kind}), {@code engram.llm.latency} (timer with percentiles histogram, per
 * attempt), {@code engram.llm.tokens} (tag {@code kind}: prompt, completion; from the response's
 * {@code usage}). Thread-safe.
 */
public final class ChatCompletionsClient {

    private static final Logger LOG = LoggerFactory.getLogger(ChatCompletionsClient.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern THINK = Pattern.compile("\\s*<think>(.*?)</think>", Pattern.DOTALL);

    /** One chat message. @param role system, user or assistant @param content text */
    public record Message(String role, String content) {
    }

    /**
     * The answer.
     *
     * @param content {@code choices[0].message.content}, possibly null or empty
     * @param reasoning {@code reasoning_content} or {@code reasoning} when the server returns one, else null
     * @param finishReason {@code choices[0].finish_reason} (e.g. stop, length)
     * @param promptTokens {@code usage.prompt_tokens}; when the server sent no usage, estimated from the
     *     request as ⌈chars / 4⌉ + 4 per message
     * @param completionTokens {@code usage.completion_tokens}; when absent, ⌈(content + reasoning chars) / 4⌉
     * @param usageEstimated true when the server sent no {@code usage} and the counts are estimates
     */
    public record Completion(String content, String reasoning, String finishReason, int promptTokens,
                             int completionTokens, boolean usageEstimated) {
    }

    private final LlmSettings settings;
    private final HttpClient http;
    private final CircuitBreaker breaker;
    private final Retry retry;
    private final AtomicBoolean schemaSupported;
    private final MeterRegistry registry;
    private final String application;
    private final Timer latency;
    private final Counter promptTokens;
    private final Counter completionTokens;
    private final Counter usageMissing;

    /**
     * @param settings the {@code llm.*} settings
     * @param registry where the meters go
     * @param application value of the {@code application} tag
     */
    public ChatCompletionsClient(final LlmSettings settings, final MeterRegistry registry, final String application) {
        this.settings = settings;
        this.registry = registry;
        this.application = application;
        this.http = HttpClient.newBuilder().connectTimeout(settings.timeout()).version(HttpClient.Version.HTTP_1_1)
            .build();
        this.schemaSupported = new AtomicBoolean("json_schema".equals(settings.responseFormat()));
        this.breaker = CircuitBreaker.of("llm-" + application, CircuitBreakerConfig.custom()
            .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
            .slidingWindowSize(20)
            .minimumNumberOfCalls(5)
            .failureRateThreshold(50)
            .waitDurationInOpenState(settings.breakerOpen())
            .permittedNumberOfCallsInHalfOpenState(2)
            .automaticTransitionFromOpenToHalfOpenEnabled(true)
            .recordException(e -> e instanceof LlmException l && l.transientFailure())
            .build());
        final IntervalBiFunction<Object> interval = (attempt, outcome) -> {
            final Duration after = outcome.isLeft() && outcome.getLeft() instanceof LlmException l ? l.retryAfter() : null;
            if (after != null) {
                return Math.min(after.toMillis(), 60_000L);
            }
            return settings.backoff().toMillis() * (1L << Math.min(attempt - 1, 10));
        };
        this.retry = Retry.of("llm-" + application, RetryConfig.custom()
            .maxAttempts(settings.maxAttempts())
            .intervalBiFunction(interval)
            .retryOnException(e -> e instanceof LlmException l && l.transientFailure())
            .failAfterMaxAttempts(false)
            .build());
        this.latency = Timer.builder("engram.llm.latency").description("Latency of one LLM call attempt")
            .tag("application", application).publishPercentileHistogram().register(registry);
        this.promptTokens = Counter.builder("engram.llm.tokens").description("Tokens billed by the LLM server")
            .tag("application", application).tag("kind", "prompt").register(registry);
        this.completionTokens = Counter.builder("engram.llm.tokens").description("Tokens billed by the LLM server")
            .tag("application", application).tag("kind", "completion").register(registry);
        this.usageMissing = Counter.builder("engram.llm.usage.missing")
            .description("Answers without a usage object; their tokens are estimated (chars / 4)")
            .tag("application", application).register(registry);
    }

    /** @return the circuit breaker (its state drives back-pressure in the extraction topology) */
    public CircuitBreaker breaker() {
        return breaker;
    }

    /** @return the settings */
    public LlmSettings settings() {
        return settings;
    }

    /**
     * Blocks while the circuit breaker is open, polling its state; returns once it lets calls through.
     *
     * @throws InterruptedException when the thread is interrupted (the task is closing)
     */
    public void awaitPermission() throws InterruptedException {
        final long pollMs = Math.max(10, Math.min(1000, settings.breakerOpen().toMillis() / 10));
        while (breaker.getState() == CircuitBreaker.State.OPEN || breaker.getState() == CircuitBreaker.State.FORCED_OPEN) {
            TimeUnit.MILLISECONDS.sleep(pollMs);
        }
    }

    /**
     * Sends one request, with retries and through the breaker.
     *
     * @param messages the conversation with the model (system prompt first)
     * @param schemaName name of the JSON schema, e.g. {@code engram_memories}
     * @param schema the JSON schema of the answer, or null for json_object mode
     * @return the completion
     * @throws LlmException when the last attempt failed
     * @throws CallNotPermittedException when the breaker is open
     */
    public Completion complete(final List<Message> messages, final String schemaName, final ObjectNode schema) {
        return Retry.decorateSupplier(retry, CircuitBreaker.decorateSupplier(breaker,
            () -> attempt(messages, schemaName, schema))).get();
    }

    private Completion attempt(final List<Message> messages, final String schemaName, final ObjectNode schema) {
        final boolean useSchema = schema != null && schemaSupported.get();
        try {
            return send(body(messages, schemaName, schema, useSchema), messages);
        } catch (LlmException e) {
            if (useSchema && e.kind() == LlmException.Kind.CLIENT_ERROR
                && (e.getMessage().contains("HTTP 400") || e.getMessage().contains("HTTP 422"))) {
                LOG.info("LLM server rejected response_format json_schema ({}); using json_object from now on",
                    e.getMessage());
                schemaSupported.set(false);
                return send(body(messages, schemaName, schema, false), messages);
            }
            throw e;
        }
    }

    private String body(final List<Message> messages, final String schemaName, final ObjectNode schema,
                        final boolean useSchema) {
        final ObjectNode body = JSON.createObjectNode();
        body.put("model", settings.model());
        final ArrayNode array = body.putArray("messages");
        for (final Message m : messages) {
            array.addObject().put("role", m.role()).put("content", m.content());
        }
        body.put("temperature", settings.temperature());
        body.put("max_tokens", settings.maxTokens());
        final ObjectNode format = body.putObject("response_format");
        if (useSchema) {
            format.put("type", "json_schema");
            format.putObject("json_schema").put("name", schemaName).put("strict", false).set("schema", schema);
        } else {
            format.put("type", "json_object");
        }
        return body.toString();
    }

    private Completion send(final String body, final List<Message> messages) {
        final HttpRequest.Builder request = HttpRequest.newBuilder(
                java.net.URI.create(settings.baseUrl() + "/chat/completions"))
            .timeout(settings.timeout())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
        if (!settings.apiKey().isEmpty()) {
            request.header("Authorization", "Bearer " + settings.apiKey());
        }
        final long start = System.nanoTime();
        try {
            final HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            final int status = response.statusCode();
            if (status == 429 || status >= 500) {
                throw count(new LlmException(status == 429 ? LlmException.Kind.RATE_LIMITED : LlmException.Kind.SERVER_ERROR,
                    "HTTP " + status, retryAfter(response)));
            }
            if (status >= 300) {
                throw count(new LlmException(LlmException.Kind.CLIENT_ERROR, "HTTP " + status + " "
                    + excerpt(response.body()), null));
            }
            final Completion completion = parse(response.body(), messages);
            if (completion.usageEstimated()) {
                usageMissing.increment();
            }
            promptTokens.increment(completion.promptTokens());
            completionTokens.increment(completion.completionTokens());
            Counter.builder("engram.llm.calls").tag("application", application).tag("outcome", "ok")
                .register(registry).increment();
            return completion;
        } catch (HttpConnectTimeoutException e) {
            throw count(new LlmException(LlmException.Kind.CONNECTION, "connect timeout", null));
        } catch (HttpTimeoutException e) {
            latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            throw count(new LlmException(LlmException.Kind.TIMEOUT, "no answer within " + settings.timeout().toMillis()
                + " ms", null));
        } catch (ConnectException e) {
            throw count(new LlmException(LlmException.Kind.CONNECTION, String.valueOf(e.getMessage()), null));
        } catch (IOException e) {
            throw count(new LlmException(LlmException.Kind.CONNECTION, e.getClass().getSimpleName() + ": "
                + e.getMessage(), null));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LlmException(LlmException.Kind.CONNECTION, "interrupted", null);
        }
    }

    private LlmException count(final LlmException e) {
        Counter.builder("engram.llm.calls").description("LLM call attempts by outcome").tag("application", application)
            .tag("outcome", e.kind().name().toLowerCase(java.util.Locale.ROOT)).register(registry).increment();
        return e;
    }

    private Completion parse(final String body, final List<Message> messages) {
        final JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            throw count(new LlmException(LlmException.Kind.MALFORMED, "response body is not JSON", null));
        }
        final JsonNode choice = root.path("choices").path(0);
        if (choice.isMissingNode()) {
            throw count(new LlmException(LlmException.Kind.MALFORMED, "response has no choices", null));
        }
        final JsonNode message = choice.path("message");
        String content = message.path("content").isTextual() ? message.path("content").asText() : null;
        final JsonNode reasoningNode = message.has("reasoning_content") ? message.path("reasoning_content")
            : message.path("reasoning");
        String reasoning = reasoningNode.isTextual() ? reasoningNode.asText() : null;
        final Matcher think = content == null ? null : THINK.matcher(content);
        if (think != null && think.lookingAt()) {
            // a reasoning model served without a reasoning parser: the thoughts lead the content
            reasoning = reasoning == null ? think.group(1).strip() : reasoning;
            content = content.substring(think.end());
        }
        final JsonNode usage = root.path("usage");
        if (usage.path("prompt_tokens").canConvertToInt()) {
            return new Completion(content, reasoning, choice.path("finish_reason").asText(null),
                usage.path("prompt_tokens").asInt(0), usage.path("completion_tokens").asInt(0), false);
        }
        int prompt = 0;
        for (final Message m : messages) {
            prompt += ConversationChunker.tokens(m.content()) + ConversationChunker.MESSAGE_OVERHEAD_TOKENS;
        }
        final int completion = ConversationChunker.tokens((content == null ? "" : content)
            + (reasoning == null ? "" : reasoning));
        return new Completion(content, reasoning, choice.path("finish_reason").asText(null), prompt, completion, true);
    }

    private static Duration retryAfter(final HttpResponse<String> response) {
        final String value = response.headers().firstValue("Retry-After").orElse(null);
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Duration.ofMillis(Math.max(0, (long) (Double.parseDouble(value.strip()) * 1000)));
        } catch (NumberFormatException e) {
            try {
                final ZonedDateTime at = ZonedDateTime.parse(value.strip(), DateTimeFormatter.RFC_1123_DATE_TIME);
                return Duration.ofMillis(Math.max(0, at.toInstant().toEpochMilli() - System.currentTimeMillis()));
            } catch (RuntimeException ignored) {
                return null;
            }
        }
    }

    private static String excerpt(final String body) {
        final String text = body == null ? "" : body.replaceAll("\\s+", " ");
        return text.length() > 200 ? text.substring(0, 200) + "…" : text;
    }
}
