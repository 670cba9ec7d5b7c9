package dev.engram.llm;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A local OpenAI-compatible Chat Completions server for tests and benchmarks (JDK
 * {@link HttpServer} on 127.0.0.1, any free port): {@code POST /v1/chat/completions} answers with the
 * documented response shape ({@code id, object: chat.completion, created, model, choices[0].message
 * {role, content}, finish_reason, usage {prompt_tokens, completion_tokens, total_tokens}}).
 *
 * <p>Scripted replies ({@link #script}) are served first, one per request, in order; then the default
 * responder. Every reply can carry a status, headers ({@code Retry-After}), a body, and a delay
 * (latency injection; a delay above the client's timeout is a timeout). Requests are handled on a pool
 * of threads so concurrent calls overlap as on a real server. Never reachable from outside the machine.
 */
public final class StubChatServer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern USER_LINE = Pattern.compile("^\\[(\\d+)] user: (.*)$", Pattern.MULTILINE);

    /**
     * One reply.
     *
     * @param status HTTP status
     * @param headers extra headers
     * @param body response body
     * @param delayMs wait before answering
     */
    public record Reply(int status, Map<String, String> headers, String body, long delayMs) {

        /** @param content {@code choices[0].message.content} (null for a JSON null) @return a 200 reply */
        public static Reply content(final String content) {
            return completion(content, null, "stop");
        }

        /**
         * @param content message content, or null
         * @param reasoning {@code reasoning_content}, or null
         * @param finishReason finish reason
         * @return a 200 reply in the Chat Completions shape
         */
        public static Reply completion(final String content, final String reasoning, final String finishReason) {
            final int completion = content == null ? 0 : (content.length() + 3) / 4;
            return new Reply(200, Map.of(), completionBody(content, reasoning, finishReason, "stub", 100, completion), 0);
        }

        /**
         * @param content message content, or null
         * @param reasoning {@code reasoning_content}, or null
         * @param finishReason finish reason
         * @param model the {@code model} field
         * @param promptTokens {@code usage.prompt_tokens}; negative = no {@code usage} object (as some servers answer)
         * @param completionTokens {@code usage.completion_tokens}
         * @return a response body in the Chat Completions shape
         */
        public static String completionBody(final String content, final String reasoning, final String finishReason,
                                            final String model, final int promptTokens, final int completionTokens) {
            final ObjectNode root = JSON.createObjectNode().put("id", "chatcmpl-stub").put("object", "chat.completion")
                .put("created", 0).put("model", model);
            final ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
            final ObjectNode message = choice.putObject("message").put("role", "assistant");
            if (content == null) {
                message.putNull("content");
            } else {
                message.put("content", content);
            }
            if (reasoning != null) {
                message.put("reasoning_content", reasoning);
            }
            choice.put("finish_reason", finishReason);
            if (promptTokens >= 0) {
                root.putObject("usage").put("prompt_tokens", promptTokens).put("completion_tokens", completionTokens)
                    .put("total_tokens", promptTokens + completionTokens);
            }
            return root.toString();
        }

        /** @param status an error status @param retryAfter Retry-After value, or null @return an error reply */
        public static Reply error(final int status, final String retryAfter) {
            return new Reply(status, retryAfter == null ? Map.of() : Map.of("Retry-After", retryAfter),
                "{\"error\":{\"message\":\"stub error\",\"type\":\"server_error\"}}", 0);
        }

        /** @param ms delay @return this reply, answered after {@code ms} */
        public Reply delayed(final long ms) {
            return new Reply(status, headers, body, ms);
        }
    }

    private final HttpServer server;
    private final ExecutorService pool;
    private final Deque<Reply> script = new ArrayDeque<>();
    private final List<JsonNode> requests = new CopyOnWriteArrayList<>();
    private final AtomicInteger count = new AtomicInteger();
    private final AtomicLong latencyMs = new AtomicLong();
    private volatile Function<JsonNode, Reply> responder = StubChatServer::echoExtraction;

    private StubChatServer(final HttpServer server, final ExecutorService pool) {
        this.server = server;
        this.pool = pool;
    }

    /**
     * @param threads request handler threads (≥ the concurrency the test or benchmark drives)
     * @return a started server on 127.0.0.1 and a free port
     * @throws IOException if it cannot bind
     */
    public static StubChatServer start(final int threads) throws IOException {
        final HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        http.setExecutor(pool);
        final StubChatServer stub = new StubChatServer(http, pool);
        http.createContext("/v1/chat/completions", stub::handle);
        http.start();
        return stub;
    }

    /** @return the base URL to configure as {@code llm.base.url} */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    /** @param replies served first, one per request, in order @return this */
    public StubChatServer script(final Reply... replies) {
        synchronized (script) {
            script.addAll(List.of(replies));
        }
        return this;
    }

    /** @param function answers requests once the script is used up @return this */
    public StubChatServer responder(final Function<JsonNode, Reply> function) {
        this.responder = function;
        return this;
    }

    /** @param ms latency added to every default-responder reply @return this */
    public StubChatServer latency(final long ms) {
        latencyMs.set(ms);
        return this;
    }

    /** @return requests received so far */
    public int requestCount() {
        return count.get();
    }

    /** @return the request bodies received, in arrival order */
    public List<JsonNode> requests() {
        return List.copyOf(requests);
    }

    private void handle(final HttpExchange exchange) throws IOException {
        try (exchange) {
            final JsonNode request;
            try (InputStream in = exchange.getRequestBody()) {
                request = JSON.readTree(in.readAllBytes());
            }
            requests.add(request);
            count.incrementAndGet();
            Reply reply;
            synchronized (script) {
                reply = script.pollFirst();
            }
            if (reply == null) {
                reply = responder.apply(request);
                reply = reply.delayed(reply.delayMs() + latencyMs.get());
            }
            if (reply.delayMs() > 0) {
                try {
                    TimeUnit.MILLISECONDS.sleep(reply.delayMs());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            final byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            exchange.sendResponseHeaders(reply.status(), body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } catch (IOException e) {
            // the client went away (e.g. it timed out): nothing to answer
        }
    }

    /**
     * The default responder: one EPISODIC memory per user message of the request (its text, cut to 300
     * characters), in our answer schema — deterministic, so benchmarks and tests can count candidates.
     *
     * @param request the request body
     * @return a 200 reply
     */
    public static Reply echoExtraction(final JsonNode request) {
        final String prompt = request.path("messages").path(request.path("messages").size() - 1).path("content").asText("");
        final ObjectNode answer = JSON.createObjectNode();
        final var memories = answer.putArray("memories");
        final Matcher m = USER_LINE.matcher(prompt);
        while (m.find()) {
            final String text = m.group(2).strip();
            if (text.length() < 12) {
                continue;
            }
            final ObjectNode item = memories.addObject().put("type", "EPISODIC").putNull("category").putNull("key")
                .putNull("value").put("content", text.length() > 300 ? text.substring(0, 300) : text)
                .put("importance", 0.6).put("confidence", 0.8).put("source", "EXPLICIT");
            item.putArray("evidence").add(Integer.parseInt(m.group(1)));
        }
        answer.putNull("summary");
        return Reply.content(answer.toString());
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
