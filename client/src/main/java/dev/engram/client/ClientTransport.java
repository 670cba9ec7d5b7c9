package dev.engram.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.StringJoiner;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The HTTP exchange of {@link EngramClient}: JSON requests with the API key as a bearer token, answers read into the
 * view types, a problem+json answer turned into an {@link EngramApiException}, no answer into an
 * {@link UncheckedIOException}.
 */
final class ClientTransport {

    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
        .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final String baseUrl;
    private final String apiKey;
    private final Duration timeout;
    private final HttpClient http;

    ClientTransport(final String baseUrl, final String apiKey, final Duration timeout, final HttpClient http) {
        this.baseUrl = baseUrl;
        this.apiKey = apiKey;
        this.timeout = timeout;
        this.http = http;
    }

    <T> T get(final String pathAndQuery, final Class<T> type) {
        return read(exchange(request(pathAndQuery).GET()), type);
    }

    <T> T send(final String method, final String pathAndQuery, final Object body, final Class<T> type) {
        try {
            final HttpRequest.Builder request = request(pathAndQuery);
            if (body == null) {
                request.method(method, HttpRequest.BodyPublishers.noBody());
            } else {
                request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
            }
            return read(exchange(request), type);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("Cannot encode the request body", e);
        }
    }

    private HttpRequest.Builder request(final String pathAndQuery) {
        final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + pathAndQuery))
            .timeout(timeout).header("Accept", "application/json");
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        return request;
    }

    private HttpResponse<byte[]> exchange(final HttpRequest.Builder request) {
        final HttpRequest built = request.build();
        try {
            return http.send(built, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(built.method() + " " + built.uri() + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new java.io.InterruptedIOException(built.method() + " " + built.uri() + " interrupted"));
        }
    }

    private static <T> T read(final HttpResponse<byte[]> response, final Class<T> type) {
        try {
            if (response.statusCode() / 100 != 2) {
                throw problem(response);
            }
            return JSON.readValue(response.body(), type);
        } catch (IOException e) {
            throw new UncheckedIOException("Unreadable answer from " + response.uri() + " (" + response.statusCode() + ")", e);
        }
    }

    private static EngramApiException problem(final HttpResponse<byte[]> response) {
        JsonNode node;
        try {
            node = JSON.readTree(response.body());
        } catch (IOException e) {
            node = null;
        }
        final String body = new String(response.body(), StandardCharsets.UTF_8);
        final String title = node != null ? node.path("title").asText("HTTP " + response.statusCode()) : "HTTP " + response.statusCode();
        final String detail = node != null ? node.path("detail").asText(body) : body;
        final long retryAfter = response.headers().firstValue("Retry-After").map(v -> {
            try {
                return Long.parseLong(v.strip());
            } catch (NumberFormatException e) {
                return -1L;
            }
        }).orElse(-1L);
        return EngramApiException.of(response.statusCode(), title, detail, retryAfter);
    }

    static String query(final Object... namesAndValues) {
        final StringJoiner joiner = new StringJoiner("&", "?", "");
        for (int i = 0; i < namesAndValues.length; i += 2) {
            joiner.add(namesAndValues[i] + "=" + segment(String.valueOf(Objects.requireNonNull(namesAndValues[i + 1],
                String.valueOf(namesAndValues[i])))));
        }
        return joiner.toString();
    }

    static <T> T convert(final JsonNode node, final Class<T> type) {
        try {
            return node == null || node.isNull() ? null : JSON.treeToValue(node, type);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException("Unreadable " + type.getSimpleName(), e);
        }
    }

    static String segment(final String raw) {
        return URLEncoder.encode(raw, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static String requireId(final String name, final String id) {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
        return id;
    }
}
