package dev.engram.retriever;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import dev.engram.core.UserKey;
import dev.engram.runtime.ApiProblem;
import io.javalin.http.Context;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Sends a request for a user this instance does not own to the instance that does (Kafka Streams'
 * metadata for the user's key), once: the forwarded request carries {@value RetrieverApi#FORWARDED_HEADER},
 * and a request that carries it and still lands on a non-owner (the owner is moving) is a 503 with
 * Retry-After rather than a second hop. The method, path, query, body and the {@code Authorization},
 * {@code X-Api-Key} and {@code Content-Type} headers are passed on; the owner's status, content type,
 * Retry-After and body are returned as they are. Timeout 10 s; an unreachable owner is a 503.
 */
final class OwnerForwarder {

    private final RetrievalService service;
    private final HttpClient client;

    /**
     * @param service knows which instance owns a user
     * @param client the HTTP client the requests are forwarded with
     */
    OwnerForwarder(final RetrievalService service, final HttpClient client) {
        this.service = service;
        this.client = client;
    }

    /**
     * Forwards the request to the instance owning the user, if that is not this one.
     *
     * @param ctx the request
     * @param user the user the request is about
     * @return true if the response was produced by the owner (nothing is left to do), false when this
     *     instance owns the user
     * @throws InterruptedException if interrupted while waiting for the owner
     * @throws ApiProblem 503 when the owner is moving or unreachable
     */
    boolean forwarded(final Context ctx, final UserKey user) throws InterruptedException {
        final Optional<HostInfo> owner = service.remoteOwner(user);
        if (owner.isEmpty()) {
            return false;
        }
        if (ctx.header(RetrieverApi.FORWARDED_HEADER) != null) {
            throw ApiProblem.unavailable("The owner of this user is moving between instances; retry shortly.",
                RetrievalService.RETRY_AFTER_SECONDS);
        }
        final String query = ctx.queryString();
        final URI uri = URI.create("http://" + owner.get().host() + ":" + owner.get().port()
            + ctx.req().getRequestURI() + (query == null ? "" : "?" + query));
        final HttpRequest.Builder request = HttpRequest.newBuilder(uri)
            .method(ctx.method().name(), "GET".equals(ctx.method().name()) || "DELETE".equals(ctx.method().name())
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(ctx.bodyAsBytes()))
            .header(RetrieverApi.FORWARDED_HEADER, "1").timeout(Duration.ofSeconds(10));
        for (final String header : List.of("Authorization", "X-Api-Key", "Content-Type")) {
            final String v = ctx.header(header);
            if (v != null) {
                request.header(header, v);
            }
        }
        try {
            final HttpResponse<byte[]> response = client.send(request.build(),
                HttpResponse.BodyHandlers.ofByteArray());
            ctx.status(response.statusCode());
            response.headers().firstValue("Content-Type").ifPresent(ctx::contentType);
            response.headers().firstValue("Retry-After").ifPresent(v -> ctx.header("Retry-After", v));
            ctx.result(response.body());
            return true;
        } catch (IOException e) {
            throw ApiProblem.unavailable("The instance owning this user is unreachable; retry shortly.",
                RetrievalService.RETRY_AFTER_SECONDS);
        }
    }
}
