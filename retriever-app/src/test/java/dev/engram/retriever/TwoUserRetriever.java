package dev.engram.retriever;

import static dev.engram.testing.MemoryFixtures.fact;
import static dev.engram.testing.MemoryFixtures.memory;
import static dev.engram.testing.MemoryFixtures.updated;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.serde.AvroSerdes;
import dev.engram.testing.EmbeddedKafka;
import org.apache.kafka.common.serialization.StringSerializer;
import dev.engram.topics.Topic;

/**
 * A retriever on the in-process broker serving two users of tenant {@code t1} with API keys on: {@code u-ana}
 * (prefers Kotlin, lives in Lisbon) and {@code u-ben} (plays chess), fed as memory-updated records with real
 * MiniLM embeddings. Keys: {@link #ANA_KEY} and {@link #BEN_KEY} (one user each), {@link #ADMIN_KEY} (tenant t1).
 */
final class TwoUserRetriever implements AutoCloseable {

    static final String ANA_KEY = "t1-u-ana-key-0000000001";
    static final String BEN_KEY = "t1-u-ben-key-0000000002";
    static final String ADMIN_KEY = "t1-admin-key-0000000003";
    static final Instant T0 = Instant.parse("2025-04-01T07:00:00Z");

    private final EmbeddedKafka kafka;
    private final RetrieverApp.Handle retriever;
    private final HttpClient http = HttpClient.newHttpClient();

    private TwoUserRetriever(final EmbeddedKafka kafka, final RetrieverApp.Handle retriever) {
        this.kafka = kafka;
        this.retriever = retriever;
    }

    static TwoUserRetriever start() {
        final EmbeddedKafka kafka = EmbeddedKafka.start();
        kafka.createTopics(2, Topic.allNames());
        final RetrieverApp.Handle retriever = RetrieverApp.start(kafka.engramConfig(Map.of(RetrieverConfig.AUTH_KEYS,
            ANA_KEY + "=t1:user:u-ana," + BEN_KEY + "=t1:user:u-ben," + ADMIN_KEY + "=t1:admin")));
        final TwoUserRetriever fixture = new TwoUserRetriever(kafka, retriever);
        final List<EmbeddedKafka.Record<String, MemoryUpdated>> records = List.of(
            record(updated(fact("t1", "u-ana", "m-ana-kotlin", FactCategory.TECHNICAL, "preferred_language", "Kotlin",
                "Prefers Kotlin for backend work", T0), UpdateOperation.CREATED, T0)),
            record(updated(fact("t1", "u-ana", "m-ana-city", FactCategory.PERSONAL, "city", "Lisbon",
                "Lives in Lisbon", T0.plusSeconds(60)), UpdateOperation.CREATED, T0.plusSeconds(60))),
            record(updated(memory("t1", "u-ben", "m-ben-chess", "Plays chess on Sundays", T0.plusSeconds(120)).build(),
                UpdateOperation.CREATED, T0.plusSeconds(120))));
        kafka.send(Topic.MEMORY_UPDATED.name(), new StringSerializer(), AvroSerdes.serde(MemoryUpdated.class).serializer(), records);
        final String[] last = {""};
        try {
            EmbeddedKafka.waitUntil(() -> {
                final HttpResponse<String> ana = fixture.get("/v1/tenants/t1/users/u-ana/memories", ADMIN_KEY);
                final HttpResponse<String> ben = fixture.get("/v1/tenants/t1/users/u-ben/memories", ADMIN_KEY);
                last[0] = ana.statusCode() + " " + ana.body() + " / " + ben.statusCode() + " " + ben.body();
                // and ready: caught up with what it started on, so that an unknown user is a 404, not a 503
                return ana.statusCode() == 200 && ben.statusCode() == 200 && ana.body().contains("Lisbon")
                    && fixture.get("/health/ready", null).statusCode() == 200;
            }, Duration.ofSeconds(90), "the retriever to serve both users and be ready");
        } catch (AssertionError e) {
            fixture.closeQuietly();
            throw new AssertionError(e.getMessage() + "; last answers: " + last[0], e);
        }
        return fixture;
    }

    private static EmbeddedKafka.Record<String, MemoryUpdated> record(final MemoryUpdated event) {
        return new EmbeddedKafka.Record<>(event.getTenantId() + "/" + event.getUserId(), event, event.getEventTime());
    }

    EmbeddedKafka kafka() {
        return kafka;
    }

    RetrieverApp.Handle retriever() {
        return retriever;
    }

    String baseUrl() {
        return retriever.baseUrl();
    }

    HttpResponse<String> get(final String path, final String key) {
        return send("GET", path, key, null);
    }

    HttpResponse<String> send(final String method, final String path, final String key, final String body) {
        return send(method, path, key, body, Map.of());
    }

    HttpResponse<String> send(final String method, final String path, final String key, final String body,
                              final Map<String, String> headers) {
        return sendBytes(method, path, key, body == null ? null : body.getBytes(java.nio.charset.StandardCharsets.UTF_8), headers);
    }

    /** Sends a body of raw bytes (e.g. invalid UTF-8) as application/json, unless the headers give a Content-Type. */
    HttpResponse<String> sendBytes(final String method, final String path, final String key, final byte[] body,
                              final Map<String, String> headers) {
        try {
            final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
            if (key != null) {
                request.header("Authorization", "Bearer " + key);
            }
            if (body != null && headers.keySet().stream().noneMatch("Content-Type"::equalsIgnoreCase)) {
                request.header("Content-Type", "application/json");
            }
            headers.forEach(request::header);
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (Exception e) {
            System.err.println("Cannot close the fixture: " + e);
        }
    }

    @Override
    public void close() throws Exception {
        retriever.close();
        kafka.close();
    }
}
